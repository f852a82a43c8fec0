/**
 * Gradient heat: every edge coloured by log10 of the norm of the gradient it carried back
 * (app/worker/lenses/heat.py), on a diverging scale with a legend, and the gradient norm that reached
 * each parameter, from the input side, as bars whose length grows with the norm (on a log scale).
 * The view colours the drawing as it opens; its switch takes the colours away.
 */

import { sizedChart } from "../chart_size.js";
import { el, h } from "../dom.js";
import { num3 } from "../format.js";
import { t } from "../i18n.js";
import { whyButton } from "../panels/why.js";
import { clear, fill, paintEdge } from "./marks.js";

// Every stop stays dark enough to stand out from the drawing's own edges on white: the middle (a
// norm of 1) is a purple, not a grey that reads as an edge without heat.
const STOPS = [[8, 69, 148], [33, 113, 181], [117, 72, 160], [215, 48, 39], [150, 10, 20]];
// How wide a coloured edge is on the screen, in pixels, at any zoom (lenses.css: non-scaling).
const EDGE_PX = 5;

/** The colour of x in [-1, 1] on the diverging scale (blue: small, purple: 1, red: large). */
export function diverging(x) {
  const u = (Math.max(-1, Math.min(1, x)) + 1) / 2 * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(u));
  const f = u - i;
  const c = STOPS[i].map((v, j) => Math.round(v + (STOPS[i + 1][j] - v) * f));
  return `rgb(${c.join(",")})`;
}

export class HeatLens {
  constructor(host) {
    this.host = host;
    this.on = true;
    this.entry = null;
  }

  available(resp) {
    return !!(resp && resp.lenses && resp.lenses.heat.some((p) => p.edges.length));
  }

  load(resp) {
    this.resp = resp;
    this.passes = resp.lenses.heat.filter((p) => p.edges.length);
    this.entry = this.passes[0];
  }

  /** Where the example opens: the end of the first pass with heat (every edge carried its gradient). */
  opening(tl) {
    const pi = this.resp.backward.findIndex((p) => p.index === this.entry.pass_index);
    return pi >= 0 && tl.passEnd[pi] >= 0 ? tl.passEnd[pi] + 1 : null;
  }

  /** The scale's half width: the largest |log10| of the pass, at least 1. */
  span(entry) {
    let m = 1;
    for (const e of entry.edges) if (e.log10 !== null) m = Math.max(m, Math.abs(e.log10));
    return Math.ceil(m);
  }

  render() {
    const entry = this.entry;
    this.toggle = h("input", { type: "checkbox", "data-testid": "grad-heat-switch", onchange: () => {
      this.on = this.toggle.checked;
      this.paint();
    } });
    this.toggle.checked = this.on;
    const legend = this.legend(this.span(entry));
    const passLabel = this.passes.length > 1 ? h("p", { class: "hint" }, t("gh_pass", { k: entry.pass_index + 1 })) : null;
    const bars = h("div", { class: "chart-box", "data-testid": "grad-heat-params" });
    fill(this.host, 
      h("p", { class: "hint" }, t("gh_intro")),
      h("label", { class: "switch" }, this.toggle, " ", t("gh_switch")),
      h("p", { class: "legend-title" }, t("gh_scale")),
      legend, passLabel,
      h("h3", {}, t("gh_params")),
      bars,
      this.ratio(entry),
      this.asks(),
    );
    sizedChart(bars, (size) => this.bars(entry, size));
    this.paint();
  }

  /** The scale from small to large, left to right: its colours, then 10^-span, 1 and 10^+span
   * under them, then what each end means. */
  legend(span) {
    const stops = [-1, -0.5, 0, 0.5, 1].map(diverging).join(", ");
    return h("div", { class: "heat-legend", "data-testid": "grad-heat-legend", "data-span": span },
      h("i", { class: "heat-bar", style: `background: linear-gradient(90deg, ${stops})` }),
      h("div", { class: "heat-ticks" },
        h("span", { "data-end": "small" }, `1e-${span}`), h("span", {}, "1"), h("span", { "data-end": "large" }, `1e+${span}`)),
      h("div", { class: "heat-ticks heat-words" },
        h("span", {}, `← ${t("gh_small")}`), h("span", {}, `${t("gh_large")} →`)));
  }

  /** The norm that reached each parameter as a bar (`size`: the chart's, chart_size.js). */
  bars(entry, { width: W, font, text }) {
    const params = entry.params.filter((p) => p.norm !== null);
    const row = Math.max(20, Math.round(font * 1.6));
    const H = Math.max(1, params.length) * row + font + 14;
    const logs = params.filter((p) => p.log10 !== null).map((p) => p.log10);
    // bars grow from the scale's low end, half a decade under the smallest norm, so the smallest
    // gradient has the shortest bar and still shows
    const base = Math.floor(Math.min(0, ...logs) - 0.5);
    const top = Math.max(base + 1, Math.ceil(Math.max(0, ...logs)));
    const norms = params.map((p) => (p.log10 === null ? t("gh_zero") : num3(Number(p.norm))));
    const topText = top === 0 ? "1" : `1e${top}`;
    // the names get what the norms and the bars leave, a third of the width at least
    const right = W - Math.max(text(topText, true) / 2, ...norms.map((s) => text(s, true))) - 8;
    const names = params.map((p) => fitName(p.name || `#${p.node}`, (s) => text(s, true), W / 3));
    const left = Math.max(text(`1e${base}`, true) / 2, ...names.map((s) => text(s, true))) + 8;
    const X = (v) => left + ((v - base) / (top - base)) * (right - left);
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart heat-bars", role: "img", "aria-label": t("gh_params") });
    svg.appendChild(el("line", { x1: left, y1: 4, x2: left, y2: H - font - 8, class: "axis" }));
    if (base < 0 && top > 0) svg.appendChild(el("line", { x1: X(0), y1: 4, x2: X(0), y2: H - font - 8, class: "axis one" }));
    const tick = (v, s) => svg.appendChild(el("text", { x: X(v), y: H - 4, class: "tick", "text-anchor": "middle" }, s));
    tick(base, `1e${base}`);
    if (base < 0 && top > 0) tick(0, "1");
    tick(top, topText);
    const span = this.span(entry);
    const baseline = Math.round((row - 6) / 2 + font * 0.35); // a row's text centred on its bar
    params.forEach((p, i) => {
      const y = 6 + i * row;
      svg.appendChild(el("text", { x: left - 6, y: y + baseline, "text-anchor": "end", class: "tick" }, names[i]));
      if (p.log10 !== null) {
        svg.appendChild(el("rect", { x: left, y, width: Math.max(1, X(p.log10) - left), height: row - 6, fill: diverging(p.log10 / span), "data-node": p.node }));
      }
      svg.appendChild(el("text", { x: right + 4, y: y + baseline, class: "tick" }, norms[i]));
    });
    return svg;
  }

  /** A "Why?" for each named tensor whose gradient is suspicious (panels/why.js answers it). */
  asks() {
    const why = this.resp.why;
    const names = why ? Object.keys(why.tensors) : [];
    const buttons = names.map((name) => whyButton(name, `why-heat-${name}`, true)).filter(Boolean);
    if (!buttons.length) return null;
    return h("p", { class: "why-asks", "data-testid": "grad-heat-why" }, t("why_heat"), ...buttons);
  }

  ratio(entry) {
    const ps = entry.params.filter((p) => p.norm !== null && Number(p.norm) > 0);
    if (ps.length < 2) return null;
    const r = Number(ps[0].norm) / Number(ps[ps.length - 1].norm);
    return h("p", { class: "hint", "data-testid": "grad-heat-ratio" }, t("gh_ratio", { r: num3(r) }));
  }

  /** Colour the mounted drawing's edges (or take the colours away). */
  paint() {
    clear("heat");
    if (!this.on || !this.entry) return;
    const span = this.span(this.entry);
    for (const e of this.entry.edges) {
      const color = e.log10 === null ? "#1f2937" : diverging(e.log10 / span);
      paintEdge(e.edge, color, EDGE_PX);
    }
  }

  /** The timeline moved: the pass of the frame, if it has heat, is the one shown. */
  frame(k, tl) {
    const pi = tl.passAt ? tl.passAt[k] : -1;
    const pass = pi >= 0 ? this.resp.backward[pi] : null;
    const entry = pass ? this.passes.find((p) => p.pass_index === pass.index) : null;
    if (entry && entry !== this.entry) {
      this.entry = entry;
      this.render();
    } else this.paint();
  }

  /** The view closed: the colours go, and come back the next time it opens (opening the view is
   * asking to see them). */
  off() {
    this.on = true;
    clear("heat");
  }
}

/** A parameter's name as it fits in `room` px (`width(s)`: as written): its end kept after "…". */
function fitName(name, width, room) {
  if (width(name) <= room) return name;
  let keep = name.length - 1;
  while (keep > 1 && width(`…${name.slice(-keep)}`) > room) keep--;
  return `…${name.slice(-keep)}`;
}

/**
 * Gradient heat: every edge coloured by log10 of the norm of the gradient it carried back
 * (app/lenses/heat.py), on a diverging scale with a legend, and the gradient norm that reached
 * each parameter, from the input side, as bars.
 */

import { h } from "../dom.js";
import { num3 } from "../format.js";
import { t } from "../i18n.js";
import { clear, fill, paintEdge } from "./marks.js";

const NS = "http://www.w3.org/2000/svg";
const STOPS = [[33, 102, 172], [103, 169, 207], [150, 150, 150], [239, 138, 98], [178, 24, 43]];

function el(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The colour of x in [-1, 1] on the diverging scale (blue: small, grey: 1, red: large). */
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
    this.on = false;
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
    const span = this.span(entry);
    const legend = h("div", { class: "heat-legend", "data-testid": "grad-heat-legend" },
      h("span", { class: "heat-end" }, `${-span} · ${t("gh_small")}`),
      h("i", { class: "heat-bar", style: `background: linear-gradient(90deg, ${[-1, -0.5, 0, 0.5, 1].map(diverging).join(", ")})` }),
      h("span", { class: "heat-end" }, `${t("gh_large")} · +${span}`));
    const passLabel = this.passes.length > 1 ? h("p", { class: "hint" }, t("gh_pass", { k: entry.pass_index + 1 })) : null;
    fill(this.host, 
      h("p", { class: "hint" }, t("gh_intro")),
      h("label", { class: "switch" }, this.toggle, " ", t("gh_switch")),
      h("p", { class: "legend-title" }, t("gh_legend")),
      legend, passLabel,
      h("h3", {}, t("gh_params")),
      this.bars(entry),
      this.ratio(entry),
    );
    this.paint();
  }

  bars(entry) {
    const params = entry.params.filter((p) => p.norm !== null);
    const W = 380;
    const row = 20;
    const H = Math.max(1, params.length) * row + 24;
    const lo = Math.min(0, ...params.map((p) => (p.log10 === null ? 0 : p.log10)));
    const hi = Math.max(0, ...params.map((p) => (p.log10 === null ? 0 : p.log10)));
    const left = 84;
    const right = W - 80;
    const X = (v) => left + ((v - Math.floor(lo)) / Math.max(1, Math.ceil(hi) - Math.floor(lo))) * (right - left);
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart heat-bars", role: "img", "aria-label": t("gh_params") });
    svg.appendChild(el("line", { x1: X(0), y1: 4, x2: X(0), y2: H - 18, class: "axis" }));
    svg.appendChild(el("text", { x: X(Math.floor(lo)), y: H - 4, class: "tick", "text-anchor": "middle" }, `1e${Math.floor(lo)}`));
    svg.appendChild(el("text", { x: X(0), y: H - 4, class: "tick", "text-anchor": "middle" }, "1"));
    if (Math.ceil(hi) > 0) svg.appendChild(el("text", { x: X(Math.ceil(hi)), y: H - 4, class: "tick", "text-anchor": "middle" }, `1e${Math.ceil(hi)}`));
    const span = this.span(entry);
    params.forEach((p, i) => {
      const y = 6 + i * row;
      const v = p.log10 === null ? null : p.log10;
      const label = p.name || `#${p.node}`;
      svg.appendChild(el("text", { x: left - 6, y: y + 11, "text-anchor": "end", class: "tick" }, label.length > 13 ? `…${label.slice(-12)}` : label));
      if (v !== null) {
        const x0 = Math.min(X(0), X(v));
        svg.appendChild(el("rect", { x: x0, y, width: Math.max(1, Math.abs(X(v) - X(0))), height: row - 6, fill: diverging(v / span), "data-node": p.node }));
      }
      svg.appendChild(el("text", { x: right + 4, y: y + 11, class: "tick" }, v === null ? t("gh_zero") : num3(Number(p.norm))));
    });
    return h("div", { class: "chart-box", "data-testid": "grad-heat-params" }, svg);
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
      paintEdge(e.edge, color, 3);
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

  off() {
    clear("heat");
  }
}

/**
 * The saved-tensor memory chart: bytes the graphs hold for backward at each moment of the run
 * (app/worker/lenses/memory.py), a marker at the timeline's frame, click to move there.
 */

import { sizedChart } from "../chart_size.js";
import { el, h } from "../dom.js";
import { num } from "../format.js";
import { t } from "../i18n.js";
import { fill } from "./marks.js";


/** Bytes as text: "96 B", "1.5 KB (1,536 B)". */
export function bytesText(b) {
  if (b < 1024) return `${b} B`;
  const units = ["KB", "MB", "GB"];
  let x = b / 1024;
  let u = 0;
  while (x >= 1024 && u < units.length - 1) {
    x /= 1024;
    u++;
  }
  return `${num(x, { decimals: x < 10 ? 2 : 1 })} ${units[u]} (${num(b, "count")} B)`;
}

/** The frame of each point (op: where its node appears; step: that step; others: the one before). */
export function pointFrames(memory, resp, tl) {
  const passPos = new Map(resp.backward.map((p, i) => [p.index, i]));
  let last = -1;
  return memory.points.map((p) => {
    let f;
    if (p.kind === "op") f = tl.nodeAppear.get(p.node);
    else if (p.kind === "step") {
      const pi = passPos.get(p.pass_index);
      f = pi === undefined ? undefined : tl.stepAt.get(`${pi}:${p.node}`);
    }
    if (f !== undefined) last = f;
    return last;
  });
}

export class MemoryLens {
  constructor(host, { goto }) {
    this.host = host;
    this.goto = goto;
    this.data = null;
  }

  available(resp) {
    const m = resp && resp.lenses && resp.lenses.memory;
    return !!(m && m.points.length > 2);
  }

  load(resp, tl) {
    this.data = resp.lenses.memory;
    this.frames = pointFrames(this.data, resp, tl);
  }

  /** Where the example opens: the last frame (the whole curve lies behind the marker). */
  opening(tl) {
    return tl.length - 1;
  }

  render() {
    const m = this.data;
    this.now = h("span", { class: "mem-now", "data-testid": "memory-now" });
    const box = h("div", { class: "chart-box", "data-testid": "memory-chart", "data-peak": m.peak, "data-end": m.end });
    fill(this.host, 
      h("p", { class: "hint" }, t("mm_intro")),
      box,
      h("p", { class: "mem-stats" }, h("b", {}, t("mm_peak", { b: bytesText(m.peak) })), " · ",
        t("mm_end", { b: bytesText(m.end) }), " · ", this.now),
      h("p", { class: "hint" }, t("mm_kinds")),
    );
    sizedChart(box, (size) => {
      const svg = this.chart(size);
      if (this.k !== undefined) this.frame(this.k);
      return svg;
    });
  }

  /** The bytes held at each point as steps (`size`: the chart's, chart_size.js), with the marker. */
  chart({ width: W, font, text }) {
    const m = this.data;
    const H = Math.round(170 * Math.max(1, font / 12));
    const pad = { l: Math.max(text(`${m.peak} B`, true), font * 2) + 8, r: 10, t: 12, b: font + 10 };
    const n = m.points.length;
    const peak = Math.max(1, m.peak);
    const X = (i) => pad.l + (n === 1 ? 0 : (i / (n - 1)) * (W - pad.l - pad.r));
    const Y = (b) => pad.t + (H - pad.t - pad.b) * (1 - b / peak);
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart mem-chart", role: "img", "aria-label": t("mm_axis") });
    svg.appendChild(el("line", { x1: pad.l, y1: Y(0), x2: W - pad.r, y2: Y(0), class: "axis" }));
    svg.appendChild(el("line", { x1: pad.l, y1: pad.t, x2: pad.l, y2: Y(0), class: "axis" }));
    svg.appendChild(el("text", { x: pad.l - 4, y: Y(peak) + Math.round(font * 0.35), "text-anchor": "end", class: "tick" }, `${m.peak} B`));
    svg.appendChild(el("text", { x: pad.l - 4, y: Y(0), "text-anchor": "end", class: "tick" }, "0"));
    svg.appendChild(el("text", { x: pad.l, y: H - 4, class: "tick" }, t("mm_points", { n: m.total_points })));
    let d = "";
    m.points.forEach((p, i) => {
      d += i === 0 ? `M${X(i)},${Y(p.bytes)}` : `H${X(i)}V${Y(p.bytes)}`;
    });
    svg.appendChild(el("path", { d, class: "mem-line" }));
    m.points.forEach((p, i) => {
      if (p.kind === "free") svg.appendChild(el("circle", { cx: X(i), cy: Y(p.bytes), r: 2.5, class: "mem-free" }));
    });
    this.marker = el("line", { x1: 0, y1: pad.t, x2: 0, y2: Y(0), class: "mem-marker" });
    svg.appendChild(this.marker);
    svg.addEventListener("click", (e) => {
      const box = svg.getBoundingClientRect();
      const x = ((e.clientX - box.left) / box.width) * W;
      const i = Math.max(0, Math.min(n - 1, Math.round(((x - pad.l) / (W - pad.l - pad.r)) * (n - 1))));
      if (this.frames[i] >= 0) this.goto(this.frames[i]);
    });
    this.X = X;
    return svg;
  }

  frame(k) {
    this.k = k;
    if (!this.marker) return;
    let at = 0;
    this.frames.forEach((f, i) => {
      if (f <= k && f >= 0) at = i;
    });
    const x = this.X(at);
    this.marker.setAttribute("x1", x);
    this.marker.setAttribute("x2", x);
    const b = this.data.points[at].bytes;
    this.now.textContent = t("mm_now", { b: bytesText(b) });
    this.now.dataset.bytes = b;
  }
}

/**
 * Small SVG line charts for the training view: no library, one function per chart.
 * lineChart(series, opts) → an <svg> drawn for the width and font size it is shown at (chart_size.js).
 */

import { el } from "./dom.js";
import { num } from "./format.js";

export const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

/** The y scale: log when the values span more than `logRatio`, else linear from 0 or the minimum. */
export function yScale(values, { log = "auto", logRatio = 30, zero = true } = {}) {
  const finite = values.filter((v) => v !== null && Number.isFinite(v));
  if (!finite.length) return { log: false, lo: 0, hi: 1, f: () => 0.5 };
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  const pos = finite.every((v) => v > 0);
  const useLog = log === true || (log === "auto" && pos && hi / Math.max(lo, 1e-300) > logRatio);
  if (useLog) {
    const l0 = Math.log10(lo);
    const l1 = Math.log10(hi);
    const span = l1 - l0 || 1;
    return { log: true, lo, hi, f: (v) => (v > 0 ? (Math.log10(v) - l0) / span : 0) };
  }
  if (zero && lo > 0) lo = 0;
  if (hi === lo) hi = lo + 1;
  return { log: false, lo, hi, f: (v) => (v - lo) / (hi - lo) };
}

/**
 * series: [{label, values: [y per x index or null], color?, points?: [[x, y]...], axis?: "right"}]
 * opts: {n: number of x positions, width, font, text(s): the chart's size in CSS px and how wide a
 *        text is written (chart_size.js), height, marker: x index or null, dots: [x indices],
 *        right: {lo, hi, format} for series on the right axis, title, xLabel, onPick(x)}
 */
export function lineChart(series, opts) {
  const W = opts.width || 380;
  const font = opts.font || 12;
  const text = opts.text || ((s) => String(s).length * font * 0.62);
  const H = opts.height || Math.round(180 * Math.max(1, font / 12));
  const n = Math.max(1, opts.n);
  const left = series.filter((s) => s.axis !== "right");
  const scale = yScale(left.flatMap((s) => s.values), opts.scale || {});
  const ends = tickTexts(scale, opts.right);
  // room for the widest number at each side, as written
  const pad = { l: Math.max(...ends.left.map((s) => text(s)), font * 2) + 8,
    r: opts.right ? Math.max(...ends.right.map((s) => text(s))) + 8 : 12, t: 14, b: font + 14 };
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const X = (i) => pad.l + (n === 1 ? iw / 2 : (i / (n - 1)) * iw);
  const Y = (v) => pad.t + ih - scale.f(v) * ih;
  const c = { W, H, pad, iw, ih, n, X, Y, scale, font, ends };
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img" });
  if (opts.title) svg.appendChild(el("title", {}, opts.title));
  svg.appendChild(el("rect", { x: pad.l, y: pad.t, width: iw, height: ih, class: "chart-bg" }));
  axisEnds(svg, c, opts);
  series.forEach((s, si) => drawSeries(svg, c, s, s.color || PALETTE[si % PALETTE.length], opts));
  for (const i of opts.dots || []) {
    const s = left[0];
    const v = s ? s.values[i] : null;
    if (v === null || v === undefined) continue;
    svg.appendChild(el("circle", { cx: X(i), cy: Y(v), r: 3.2, class: "chart-dot", "data-x": i }));
  }
  if (opts.marker !== null && opts.marker !== undefined) {
    svg.appendChild(el("line", { x1: X(opts.marker), x2: X(opts.marker), y1: pad.t, y2: pad.t + ih, class: "chart-marker" }));
  }
  if (opts.onPick) svg.appendChild(pickArea(svg, c, opts.onPick));
  return svg;
}

/** The numbers at the ends of the axes as written: the left axis's (and "log"), the right one's. */
function tickTexts(scale, right) {
  const left = [num(scale.hi, "tick"), num(scale.lo, "tick")];
  if (scale.log) left.push("log");
  if (!right) return { left, right: [] };
  const fmt = right.format || ((x) => num(x, "tick"));
  return { left, right: [fmt(right.hi), fmt(right.lo)] };
}

/** The numbers at the ends of the axes (`c`: the chart's size, scales, x positions and texts). */
function axisEnds(svg, { W, H, pad, iw, ih, n, scale, font, ends }, opts) {
  const tick = (x, y, text, anchor) =>
    svg.appendChild(el("text", { x, y, class: "chart-tick", "text-anchor": anchor }, text));
  const top = pad.t + Math.round(font * 0.7); // the text's top level with the plot's
  tick(pad.l - 4, top, ends.left[0], "end");
  tick(pad.l - 4, pad.t + ih, ends.left[1], "end");
  if (scale.log) tick(pad.l - 4, pad.t + ih / 2, "log", "end");
  tick(pad.l, H - 6, "1");
  tick(pad.l + iw, H - 6, String(n), "end");
  if (opts.xLabel) tick(pad.l + iw / 2, H - 6, opts.xLabel, "middle");
  if (opts.right) {
    tick(W - pad.r + 4, top, ends.right[0]);
    tick(W - pad.r + 4, pad.t + ih, ends.right[1]);
  }
}

/** One series as a line (and its points as dots when it has few). */
function drawSeries(svg, { pad, ih, X, Y }, s, color, opts) {
  let pts;
  if (s.points) {
    const r = opts.right || { lo: 0, hi: 1 };
    const fy = s.axis === "right" ? (v) => pad.t + ih - ((v - r.lo) / (r.hi - r.lo || 1)) * ih : Y;
    pts = s.points.map(([x, y]) => [X(x), fy(y)]);
  } else {
    pts = [];
    s.values.forEach((v, i) => {
      if (v !== null && Number.isFinite(v)) pts.push([X(i), Y(v)]);
    });
  }
  if (!pts.length) return;
  const d = pts.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
  svg.appendChild(el("path", { d, class: `chart-line ${s.cls || ""}`, stroke: color, "data-series": s.label }));
  if (s.points && s.points.length <= 60) {
    for (const [x, y] of pts) svg.appendChild(el("circle", { cx: x, cy: y, r: 2.2, fill: color }));
  }
}

/** A transparent area over the plot: a click picks the nearest x position. */
function pickArea(svg, { W, pad, iw, ih, n }, onPick) {
  const hit = el("rect", { x: pad.l, y: pad.t, width: iw, height: ih, class: "chart-hit" });
  hit.addEventListener("click", (e) => {
    const box = svg.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * W;
    const i = Math.round(((x - pad.l) / iw) * (n - 1));
    onPick(Math.max(0, Math.min(n - 1, i)));
  });
  return hit;
}

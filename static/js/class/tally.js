/**
 * What the class answered at one step, judged as each student's page judges it (predict.js's
 * isRight, the same tolerance), and drawn for the teacher: per question, a bar per distinct guess
 * (the most common first), right ones green, and the count of students right on every question.
 * Plus the join link's QR code as an SVG of squares. DOM built element by element (no markup).
 */

import { h } from "../dom.js";
import { num } from "../format.js";
import { t } from "../i18n.js";
import { isRight } from "../predict.js";
import { qrMatrix } from "./qr.js";

const SVGNS = "http://www.w3.org/2000/svg";
const BARS = 5; // distinct guesses shown per question; the rest are one bar "other"

/** {right, total, questions: [[{label, count, right}]], each: [{right, total}]} of `guesses` (per
 * student, one list of numbers per question) against the questions `qs` ({truth}) of predict.js:
 * `right` students right on every question, `each` question's answers and right ones. */
export function tally(guesses, qs) {
  let right = 0;
  const groups = qs.map(() => new Map());
  const each = qs.map(() => ({ right: 0, total: 0 }));
  for (const g of guesses) {
    const marks = qs.map((q, i) => Array.isArray(g[i]) && isRight(g[i], q.truth));
    if (g.length === qs.length && marks.every(Boolean)) right += 1;
    qs.forEach((q, i) => {
      if (!Array.isArray(g[i]) || !g[i].length) return;
      each[i].total += 1;
      if (marks[i]) each[i].right += 1;
      const label = g[i].map(num).join(", ");
      const bar = groups[i].get(label) || { label, count: 0, right: marks[i] };
      bar.count += 1;
      groups[i].set(label, bar);
    });
  }
  const questions = groups.map((m) => {
    const bars = [...m.values()].sort((a, b) => b.count - a.count);
    if (bars.length <= BARS) return bars;
    const rest = bars.slice(BARS - 1);
    return [...bars.slice(0, BARS - 1), { label: null, count: rest.reduce((a, b) => a + b.count, 0), right: false }];
  });
  return { right, total: guesses.length, questions, each };
}

/** The histogram element of a tally. */
export function histogram(result) {
  const most = Math.max(1, ...result.questions.flat().map((b) => b.count));
  const parts = result.questions.map((bars, i) => h("figure", { class: "class-q" },
    h("figcaption", {}, t("class_q", { k: i + 1 })),
    bars.length ? bars.map((b) => h("div", { class: `class-bar ${b.right ? "right" : "wrong"}` },
      h("span", { class: "class-bar-fill", style: `width: ${Math.round((100 * b.count) / most)}%` }),
      h("span", { class: "class-bar-label" }, `${b.label ?? t("class_other")} × ${b.count}`)))
      : h("p", { class: "muted" }, t("class_none"))));
  return h("div", { class: "class-histogram", "data-testid": "class-histogram", role: "group", "aria-label": t("class_histogram") },
    h("p", { class: "class-rw", "data-testid": "class-right-wrong" },
      t("class_right_wrong", { right: result.right, wrong: result.total - result.right })), ...parts);
}

/** The QR code of `text` as an SVG (dark squares on white, a quiet zone of 4 modules). */
export function qrSvg(text) {
  const m = qrMatrix(text);
  const n = m.length + 8;
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${n} ${n}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("shape-rendering", "crispEdges");
  const bg = document.createElementNS(SVGNS, "rect");
  for (const [k, v] of [["width", n], ["height", n], ["fill", "#fff"]]) bg.setAttribute(k, v);
  const path = document.createElementNS(SVGNS, "path");
  let d = "";
  m.forEach((row, y) => row.forEach((dark, x) => { if (dark) d += `M${x + 4} ${y + 4}h1v1h-1z`; }));
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(bg, path);
  return svg;
}

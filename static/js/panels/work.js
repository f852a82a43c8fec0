/**
 * The worked arithmetic of one input of a backward step, from the answer's explanation model
 * (app/worker/explain/): the rule in the student's names, the saved values under the rule's names, each
 * operation with its numbers (or its shapes, for a matrix product or a large tensor), the sum over
 * broadcast dims, and the gradient sent down.
 */

import { h, valueBox } from "../dom.js";
import { flat, heatMap, nested, num, valueText } from "../format.js";
import { pick, t } from "../i18n.js";

const INLINE = 4; // operands and results with at most this many elements are written inline
const SIGNS = { add: " + ", sub: " − ", mul: " · ", div: " / ", matmul: " · " };

/** The elements of a Value (null when summarized). */
function elements(v) {
  if (v === null || v === undefined) return null;
  if (typeof v !== "object") return [v];
  if (v.data === null || v.data === undefined) return null;
  return flat(v.data);
}

function small(v) {
  const xs = elements(v);
  return xs !== null && xs.length <= INLINE;
}

function shapeOf(v) {
  if (v === null || v === undefined || typeof v !== "object") return [];
  return v.shape || [];
}

/** A shape as the worked lines write it: [2×3]; a number has none. */
export function dims(shape) {
  return shape && shape.length ? `[${shape.join("×")}]` : "";
}

function inline(v) {
  if (typeof v === "number" || typeof v === "boolean" || v === null) return num(v);
  const xs = elements(v);
  if (!xs) return valueText(v, 60);
  return v.shape.length ? nested(v.data) : num(xs[0]);
}

/**
 * Resolve a step's argument references ({G}, {name}, {num}, {step}) to what they stand for:
 * {label, value}.
 */
export function resolver(work, upstream) {
  const named = new Map((work.values || []).map((v) => [v.name, v]));
  return (ref) => {
    if (!ref) return { label: "?", value: null };
    if ("G" in ref) return { label: "G", value: upstream };
    if ("name" in ref) return { label: ref.name, value: named.has(ref.name) ? named.get(ref.name).value : null };
    if ("num" in ref) return { label: num(ref.num), value: ref.num };
    const s = work.steps[ref.step];
    return { label: pick(s.text), value: s.value, step: true };
  };
}

/** One worked step as DOM: "text = numbers = result", or "text [shapes] =" with the result below. */
export function stepLine(step, resolve) {
  const args = step.args.map(resolve);
  const sign = SIGNS[step.op];
  let text = pick(step.text);
  if (step.op === "matmul" || step.op === "outer") {
    // A matrix product is a product of shapes: G [2×3] · Bᵀ [3×4] (an outer product g · vᵀ: [n] · [1×m]).
    const right = step.op === "outer" ? [1, ...shapeOf(args[1].value)] : shapeOf(args[1].value);
    text = `${wrapLabel(args[0].label)} ${dims(shapeOf(args[0].value))} · ${wrapLabel(args[1].label)}${step.op === "outer" ? "ᵀ" : ""} ${dims(right)}`;
  }
  const allSmall = small(step.value) && args.every((a) => a.value === null || small(a.value));
  if (allSmall) {
    const numbers = sign && args.length === 2 ? `${wrapNum(args[0].value)}${sign}${wrapNum(args[1].value)}` : null;
    const line = numbers && numbers !== text ? `${text} = ${numbers} = ${inline(step.value)}` : `${text} = ${inline(step.value)}`;
    return [h("p", { class: "math work" }, h("code", {}, line))];
  }
  return [
    h("p", { class: "math work" }, h("code", {}, `${text} =`)),
    valueBox(valueText(step.value), heatMap(step.value)),
  ];
}

/** An operand inline: a negative number in parentheses (1 · (-4), never 1 · -4). */
function wrapNum(v) {
  const s = inline(v);
  const xs = typeof v === "number" ? [v] : elements(v);
  const single = xs && xs.length === 1 && !(v && v.shape && v.shape.length);
  return single && Number(xs[0]) < 0 ? `(${s})` : s;
}

function wrapLabel(s) {
  return /^[\w.′₀-₉ᵀ]+$/.test(s) ? s : `(${s})`;
}

/** The named values a rule reads: "c = 10", with what each is when it is not a tensor of the program. */
export function valuesList(work) {
  const items = (work.values || []).map((v) => {
    const says = v.says ? h("small", { class: "muted" }, ` (${pick(v.says)})`) : null;
    return h("li", {}, h("code", {}, `${v.name} = ${valueText(v.value, 120)}`), says);
  });
  return items.length ? h("ul", { class: "flows values" }, ...items) : null;
}

/** The whole explanation of one input: rule, values, worked steps, broadcast sum, result. */
export function workBlock(work, upstream, { index, srcName, hidden }) {
  const box = h("div", { class: "rule", "data-input": String(index) });
  box.appendChild(h("p", {}, t("ex_rule", { i: index + 1, src: srcName }), " ",
    h("code", { class: "formula" }, work.rule ? pick(work.rule) : "")));
  if (hidden) {
    box.appendChild(h("p", {}, t("ex_send_short", { src: work.name }), " ", h("code", { class: "math concealed" }, "?")));
    return box;
  }
  const values = valuesList(work);
  if (values) box.append(h("p", { class: "lbl" }, t("ex_with")), values);
  if (work.ok === null || work.ok === undefined) {
    box.appendChild(h("p", { class: "muted" }, t("ex_too_large")));
  } else {
    const resolve = resolver(work, upstream);
    if (!work.steps.length && work.result && "G" in work.result) box.appendChild(h("p", { class: "muted" }, t("ex_passes")));
    for (const s of work.steps) {
      if (s.op === "sum_to" && work.broadcast) box.appendChild(h("p", { class: "note bcast" }, pick(work.broadcast.says)));
      box.append(...stepLine(s, resolve));
    }
    if (!work.ok) box.appendChild(h("p", { class: "errtext" }, t("ex_not_reproduced")));
  }
  return box;
}

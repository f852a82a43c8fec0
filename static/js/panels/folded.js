/**
 * The step panel's words for a frame inside a closed part: the answer names its node by id only,
 * so there are no values to explain yet; it says which part and which loop iteration (or which
 * layer of a stack of identical layers) the step is in, and opens the part on request.
 */

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { sourceLine } from "../names.js";
import { PartIndex, partTitle } from "../parts.js";
import { emit } from "../state.js";

const indexes = new WeakMap(); // response -> its PartIndex (built once per answer)

function indexOf(resp) {
  let idx = indexes.get(resp);
  if (!idx || idx.parts.size !== (resp.parts || []).length) {
    idx = new PartIndex(resp);
    indexes.set(resp, idx);
  }
  return idx;
}

/** The explanation of frame f (an op or a step hidden in a closed part) of the state `st`. */
export function foldedBody(st, f) {
  const resp = st.response;
  const idx = indexOf(resp);
  const view = resp.views[f.view] || resp.views[0];
  const box = idx.boxOf(f.node, new Set(view.open || []));
  const part = box ? idx.parts.get(box) : null;
  const it = idx.iteration(f.node);
  // a loop that names the classes it repeats is a stack of identical layers (partTitle): its
  // repetitions are layers, not iterations of the program
  const repeat = !!(it && it.loop.type_name);
  const tl = st.timeline;
  const title = f.kind === "step"
    ? t("ex_step_title", { pass: tl.passes[f.pass].index + 1, i: f.index + 1, n: tl.stepCount(f.pass), name: t("folded_step") })
    : t("folded_op");
  const out = [h("h3", {}, title)];
  out.push(h("p", { "data-testid": "folded-where" }, t("folded_inside", { what: partTitle(part) }),
    it ? h("b", { "data-testid": "folded-iteration" }, " ", t(repeat ? "folded_layer" : "folded_iteration", { i: it.i, n: it.n })) : null));
  if (part && part.line) {
    out.push(h("p", { class: "where" }, t("ex_op_line", { line: part.line, code: "" }),
      h("code", {}, sourceLine(st.ranSource, part.line))));
  }
  if (box) {
    out.push(h("p", { class: "muted" }, t("folded_hint")));
    out.push(h("button", { type: "button", class: "open-part", "data-testid": "open-part",
      onclick: () => emit("open-part", f.view, box) }, t("folded_open")));
  }
  return out;
}

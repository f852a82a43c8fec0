/**
 * Check it by hand: once a backward pass has finished, each leaf's gradient three ways side by
 * side: autograd's, a central finite difference the server computed in float64, and, for the
 * built-in examples, the course's hand-derived formula with the numbers filled in; the relative
 * error of each, green within the tolerance of the leaf's dtype. The numbers are the answer's
 * ``grad_check`` (app/worker/gradcheck.py, app/worker/course.py).
 */

import { h } from "../dom.js";
import { num, shapeText, valueText } from "../format.js";
import { failed, needExtras, pending } from "../extras.js";
import { pick, t } from "../i18n.js";
import { tensorName } from "../names.js";
import { on, state } from "../state.js";

const REASONS = {
  time_budget: "gc_why_time",
  too_large: "gc_why_large",
  replay_failed: "gc_why_replay",
  replay_mismatch: "gc_why_mismatch",
  below_resolution: "gc_why_resolution",
  autograd_grad: "gc_why_autograd_grad",
  no_leaves: "gc_why_no_leaves",
  program_function: "gc_why_function",
};

/** The backward pass (index into timeline.passes) that has finished by frame k, or -1. */
export function finishedPass(tl, k) {
  let found = -1;
  tl.passes.forEach((p, pi) => {
    const end = tl.passEnd[pi];
    if (end >= 0 && end < k) found = pi;
  });
  return found;
}

/** The course writes a loss as L (∂L/∂a): the formula with the name the pass's output goes by. */
export function ownRoot(formula, root) {
  return root && formula.startsWith("∂L/") ? `∂${root}/${formula.slice(3)}` : formula;
}

export class GradCheckPanel {
  constructor(panel, host) {
    this.panel = panel;
    this.host = host;
    on("extras", () => this.render(state)); // the checks arrived (../extras.js)
  }

  render(st) {
    const tl = st.timeline;
    const resp = st.response;
    const checks = resp && (resp.grad_check || pending(resp));
    const pi = tl && checks ? finishedPass(tl, st.frame) : -1;
    const pass = pi >= 0 ? tl.passes[pi] : null;
    if (pass && pending(resp)) {
      this._waiting(resp, pass);
      return;
    }
    const check = pass ? checks.find((c) => c.pass === pass.index) : null;
    this.panel.hidden = !check;
    if (!check) {
      this.host.replaceChildren();
      return;
    }
    const out = [h("p", {}, t("gc_intro", { n: pass.index + 1 }))];
    if (check.status === "skipped") {
      out.push(h("p", { class: "muted" }, t(REASONS[check.reason] || "gc_why_replay")));
      this.host.replaceChildren(...out);
      return;
    }
    if (check.hook_changed) out.push(h("p", { class: "note", "data-testid": "gc-hook" }, t("gc_hook_changed")));
    const root = tensorName(tl.nodes.get(pass.root));
    out.push(...check.leaves.map((l) => this._leaf(l, root)));
    if (check.unlisted) out.push(h("p", { class: "muted", "data-testid": "gc-unlisted" }, t("gc_unlisted", { n: check.unlisted })));
    out.push(h("p", { class: "note gc-note" }, t("gc_dtype_note")));
    this.host.replaceChildren(...out);
  }

  /** A pass has finished but the answer's checks are still asked for (app/worker/extras.py). */
  _waiting(resp, pass) {
    this.panel.hidden = false;
    const why = failed(resp);
    this.host.replaceChildren(h("p", {}, t("gc_intro", { n: pass.index + 1 })),
      h("p", { class: "muted", "data-testid": "gc-pending" }, why ? t("extras_failed", { msg: why }) : t("gc_pending")));
    if (!why) needExtras(resp);
  }

  /** One leaf: its verdict, then autograd, the finite difference and the course's formula, one per row. */
  _leaf(l, root) {
    const sampled = l.positions ? h("small", { class: "muted" }, ` ${t("gc_sampled", { k: l.checked, n: l.total })}`) : null;
    const auto = l.positions ? l.autograd_at : l.autograd;
    const verdict = l.ok === null || l.ok === undefined
      ? h("span", { class: "muted" }, l.reason === "below_resolution" ? t("gc_too_small") : "—")
      : h("span", { class: l.ok ? "gc-ok" : "gc-bad", "data-testid": "gc-verdict" },
        `${l.ok ? "✓" : "✗"} ${num(l.rel_error, "error")} ${l.ok ? "<" : "≥"} ${num(l.tolerance, "error")}`);
    const dl = h("dl", {});
    const row = (label, ...v) => dl.append(h("dt", {}, label), h("dd", {}, ...v));
    row(t("gc_autograd"), h("code", {}, valueText(auto, 90)), sampled);
    const below = l.reason === "below_resolution"
      ? h("div", { class: "muted", "data-testid": "gc-below" }, t("gc_below_step")) : null;
    if (l.numeric) row(t("gc_numeric"), h("code", {}, valueText(l.numeric, 90)), sampled ? sampled.cloneNode(true) : null, below);
    else row(t("gc_numeric"), h("span", { class: "muted" }, t(REASONS[l.reason] || "gc_why_replay")));
    if (l.hand) {
      row(t("gc_hand"), h("code", { class: "formula" }, ownRoot(pick(l.hand.formula), root)),
        l.hand.filled ? h("div", { class: "math" }, `= ${pick(l.hand.filled)}`) : null,
        h("div", {}, h("code", {}, `= ${valueText(l.hand.value, 90)}`)),
        h("div", {}, h("small", { class: "muted" }, t("gc_vs_autograd", { e: num(l.hand.rel_error, "error") }))));
    }
    row(t("gc_error"), verdict);
    return h("div", { class: "gc-leaf", "data-leaf": l.name },
      h("p", { class: "gc-name" }, h("b", {}, l.name), " ", h("small", { class: "muted" }, `${l.dtype} ${shapeText(l.shape)}`)),
      dl);
  }
}

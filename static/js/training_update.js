/** The training view's optimizer step (norms, the chosen parameter's worked update) and its accumulation. */

import { h } from "./dom.js";
import { STYLES, num } from "./format.js";
import { t } from "./i18n.js";
import { headOf, normOf, workedUpdate } from "./training_model.js";

const SIG3 = { ...STYLES.digits, sig: 3 };
const SIG6 = { ...STYLES.digits, sig: 6 };

/** Fill view.opt with the optimizer step after the chosen pass (view: training.js's TrainingView). */
export function showOptimizer(view) {
  const j = view.ord.stepOfPass.get(view.sel);
  const step = view.resp.optimizer_steps.find((s) => s.index === j);
  if (!step) {
    view.opt.replaceChildren(h("p", { class: "muted" }, t("tr_opt_none")));
    return;
  }
  const labels = view.series.map((s) => s.label);
  const name = (p, i) => p.name || labels[i] || `#${i + 1}`;
  const ps = Math.min(view.paramSel || 0, step.params.length - 1);
  // One compact row per parameter (norms); the chosen one's numbers below, with a worked update.
  const rows = step.params.map((p, i) => h("tr", {
    "data-param": i, class: i === ps ? "on" : "", tabindex: 0,
    onclick: () => view._chooseParam(i),
    onkeydown: (e) => {
      if (e.key === "Enter") view._chooseParam(i);
    },
  },
  h("th", { scope: "row" }, name(p, i), h("small", {}, ` [${(p.before?.shape || []).join(", ")}]`)),
  h("td", {}, h("code", {}, `${num(normOf(p.before), SIG3)} → ${num(normOf(p.after), SIG3)}`)),
  h("td", {}, h("code", {}, num(normOf(p.grad), SIG3)))));
  const chosen = step.params[ps];
  const list = (v) => {
    const xs = headOf(v, 4).map((x) => num(x, "digits"));
    return `[${xs.join(", ")}${headOf(v).length > 4 || (v && v.summary) ? ", …" : ""}]`;
  };
  const w = chosen ? workedUpdate(step, chosen) : null;
  let worked = null;
  if (w && w.before !== undefined) {
    const key = step.optimizer.startsWith("Adam") ? "tr_worked_adam" : "tr_worked_other";
    worked = w.lr !== null
      ? t("tr_worked", { p: num(w.before, SIG6), lr: w.lr, g: num(w.grad, SIG6), a: num(w.after, SIG6) })
      : t(key, { p: num(w.before, SIG6), a: num(w.after, SIG6) });
  }
  view.opt.replaceChildren(
    h("p", { class: "rule" }, h("code", { "data-testid": "optimizer-rule" }, `${step.optimizer}: ${step.rule}`)),
    h("div", { class: "table-wrap" }, h("table", { class: "params" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("tr_param")),
        h("th", { scope: "col" }, `‖p‖ ${t("tr_before")} → ${t("tr_after")}`),
        h("th", { scope: "col" }, `‖${t("tr_grad")}‖`))),
      h("tbody", {}, rows))),
    chosen ? h("dl", { class: "pvals", "data-testid": "param-values" },
      h("dt", {}, `${name(chosen, ps)} ${t("tr_before")}`), h("dd", {}, h("code", {}, list(chosen.before))),
      h("dt", {}, `${t("tr_grad")}`), h("dd", {}, h("code", {}, list(chosen.grad))),
      h("dt", {}, `${t("tr_after")}`), h("dd", {}, h("code", {}, list(chosen.after)))) : null,
    worked ? h("p", { class: "worked", "data-testid": "worked-update" }, worked) : null);
}

/** Fill view.accum with the passes summed into the chosen parameter's .grad around the chosen pass. */
export function showAccumulation(view) {
  const group = view.ord.group.get(view.sel) || [view.sel];
  // The parameter chosen in the optimizer table (matched by name), else the first one.
  const j = view.ord.stepOfPass.get(view.sel);
  const step = view.resp.optimizer_steps.find((q) => q.index === j);
  const chosen = step && step.params[Math.min(view.paramSel || 0, step.params.length - 1)];
  const s = view.series.find((q) => chosen && q.label === chosen.name) || view.series[0];
  if (!s) {
    view.accum.replaceChildren();
    return;
  }
  const items = group.map((p, k) =>
    h("li", { class: p === view.sel ? "cur" : "" }, `${t("tr_accum_pass", { k: k + 1 })}: ‖${s.label}.grad‖ = ${num(s.grad[p], "digits")}`));
  const hasStep = view.ord.stepOfPass.has(view.sel);
  if (hasStep) items.push(h("li", { class: "used" }, `→ ${t("tr_accum_used")}`));
  const next = group[group.length - 1] + 1;
  if (hasStep && next < view.n) {
    items.push(h("li", { class: "reset" }, view.ord.zeroBefore.has(next) ? `→ ${t("tr_accum_reset")}` : `→ ${t("tr_accum_kept")}`));
  }
  view.accum.replaceChildren(h("ol", {}, items));
}

/**
 * Forward mode beside reverse mode (app/worker/lenses/modes.py): what each counted (passes, rule
 * applications), forward mode's passes one input element at a time with each op's forward-mode
 * rule and its numbers, and the gradients both give.
 */

import { h } from "../dom.js";
import { num, valueText } from "../format.js";
import { t } from "../i18n.js";
import { clear, fill, mark } from "./marks.js";

function inputLabel(entry, pass) {
  const inp = entry.inputs.find((i) => i.node === pass.input);
  const name = (inp && inp.name) || `#${pass.input}`;
  return pass.element.length ? `${name}[${pass.element.join(", ")}]` : name;
}

function rootName(resp, entry) {
  const n = resp.graph.nodes.find((x) => x.id === entry.root);
  return (n && n.var) || "y";
}

export class ModesLens {
  constructor(host, { goto }) {
    this.host = host;
    this.goto = goto;
    this.mode = "reverse";
    this.which = 0;
    this.k = 0;
  }

  available(resp) {
    return !!(resp && resp.lenses && resp.lenses.modes.length);
  }

  load(resp, tl) {
    this.resp = resp;
    this.tl = tl;
    this.which = 0;
    this.k = 0;
  }

  /** Where the example opens: the end of the backward pass (the whole graph, every gradient). */
  opening(tl) {
    const pi = this.resp.backward.findIndex((p) => p.index === this.entry.pass_index);
    return pi >= 0 && tl.passEnd[pi] >= 0 ? tl.passEnd[pi] + 1 : null;
  }

  get entry() {
    return this.resp.lenses.modes[this.which];
  }

  render() {
    const e = this.entry;
    const f = e.forward;
    const card = (mode, passes, rules) => h("button", {
      type: "button", class: `mode-card ${mode}`, "data-testid": `mode-${mode}`, "aria-pressed": String(this.mode === mode),
      "data-passes": passes, "data-rules": rules ?? "",
      onclick: () => { this.mode = mode; this.render(); },
    }, h("b", {}, t(mode === "forward" ? "md_forward" : "md_reverse")),
    h("span", { class: "mode-count" }, t("md_count_passes", { n: passes })),
    h("span", { class: "mode-count" }, t("md_count_rules", { n: rules ?? "—" })));
    const picker = this.resp.lenses.modes.length > 1
      ? h("label", { class: "mode-pick" }, t("md_pick_pass"), " ",
        h("select", { onchange: (ev) => { this.which = Number(ev.target.value); this.k = 0; this.render(); } },
          this.resp.lenses.modes.map((m, i) => h("option", { value: i, selected: i === this.which }, t("gh_pass", { k: m.pass_index + 1 })))))
      : null;
    const body = this.mode === "forward" ? this.forwardBody(e) : this.reverseBody(e);
    fill(this.host, 
      picker,
      h("p", { class: "hint" }, t("md_intro", { root: rootName(this.resp, e), n: e.directions })),
      h("div", { class: "mode-cards", role: "group", "aria-label": t("md_toggle") },
        card("reverse", e.reverse.passes, e.reverse.rules),
        card("forward", e.directions, f ? f.rules : null)),
      body,
      this.gradsTable(e),
    );
    this.paint();
  }

  reverseBody(e) {
    const pi = this.resp.backward.findIndex((p) => p.index === e.pass_index);
    const start = pi >= 0 ? this.tl.passStart[pi] : -1;
    return h("div", { class: "mode-body", "data-testid": "mode-reverse-body" },
      h("p", {}, t("md_reverse_body")),
      start >= 0 ? h("button", { type: "button", class: "small", "data-testid": "mode-play-reverse", onclick: () => this.goto(start) }, t("md_play_reverse")) : null);
  }

  forwardBody(e) {
    const f = e.forward;
    if (!f) {
      const key = { too_many: "md_too_many", too_large: "md_too_large", rule_failed: "md_rule_failed", no_inputs: "md_no_inputs" }[e.unavailable] || "md_rule_failed";
      return h("p", { class: "warn", "data-testid": "mode-forward-body" }, t(key, { n: e.directions, ops: e.reverse.steps }));
    }
    this.k = Math.min(this.k, f.passes.length - 1);
    const pass = f.passes[this.k];
    const label = inputLabel(e, pass);
    const nav = h("div", { class: "mode-nav" },
      h("button", { type: "button", class: "small", "data-testid": "mode-prev", disabled: this.k === 0, onclick: () => { this.k--; this.render(); } }, "◀"),
      h("span", { "data-testid": "mode-pass-label" }, t("md_pass_of", { k: this.k + 1, n: f.count, input: label })),
      h("button", { type: "button", class: "small", "data-testid": "mode-next", disabled: this.k >= f.count - 1, onclick: () => { this.k++; this.render(); } }, "▶"));
    const steps = pass.steps
      ? h("ol", { class: "mode-steps", "data-testid": "mode-steps" }, pass.steps.map((s) => h("li", { "data-node": s.node },
        h("div", { class: "rule" }, t("md_step_rule", { grad_fn: s.grad_fn, formula: s.formulas.filter((_, i) => s.tangents[i]).join(" + ") })),
        s.tangents.map((tan, i) => (tan ? h("div", { class: "nums" },
          h("span", {}, `${t("md_in")} ${valueText(tan, 60)}`), " → ",
          h("span", {}, `${t("md_share")} ${valueText(s.shares[i], 60)}`)) : null)),
        h("div", { class: "nums out" }, `${t("md_out")} ${valueText(s.tangent, 60)}`))))
      : h("p", { class: "hint" }, t("md_steps_cut"));
    return h("div", { class: "mode-body", "data-testid": "mode-forward-body", "data-rules": pass.rules }, nav, steps,
      h("p", { class: "mode-result", "data-testid": "mode-result" },
        t("md_result", { root: rootName(this.resp, e), input: label, value: num(pass.output_tangent) })));
  }

  gradsTable(e) {
    const fwd = new Map((e.forward ? e.forward.grads : []).map((g) => [g.node, g.grad]));
    return h("div", { class: "mode-grads" },
      h("h3", {}, t("md_grads")),
      h("table", { "data-testid": "mode-grads" },
        h("thead", {}, h("tr", {}, h("th", {}, t("md_col_input")), h("th", {}, t("md_col_fwd")), h("th", {}, t("md_col_rev")))),
        h("tbody", {}, e.inputs.map((i) => h("tr", {},
          h("td", {}, i.name || `#${i.node}`),
          h("td", { class: "mono" }, fwd.has(i.node) ? valueText(fwd.get(i.node), 80) : "—"),
          h("td", { class: "mono" }, i.grad ? valueText(i.grad, 80) : "—"))))),
      e.unlisted ? h("p", { class: "muted", "data-testid": "mode-unlisted" }, t("md_unlisted", { n: e.unlisted })) : null);
  }

  /** Forward mode: the nodes the current pass's tangent reached are marked on the drawing. */
  paint() {
    clear("tangent");
    const f = this.entry && this.entry.forward;
    if (this.mode !== "forward" || !f) return;
    const pass = f.passes[this.k];
    if (pass && pass.steps) mark("tangent", [pass.input, ...pass.steps.map((s) => s.node)]);
  }

  frame() {
    this.paint();
  }

  off() {
    clear("tangent");
  }
}

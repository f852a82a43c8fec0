/**
 * Two forward passes compared (app/worker/lenses/compare.py): the leaves that are the same objects, the
 * op nodes that are all new, the ops only one of them ran (a structural difference), and what a
 * graph traced once would compute on the second pass's inputs.
 */

import { h } from "../dom.js";
import { valueText } from "../format.js";
import { t } from "../i18n.js";
import { clear, fill, mark } from "./marks.js";

export class CompareLens {
  constructor(host, { goto }) {
    this.host = host;
    this.goto = goto;
    this.which = 0;
    this.marked = true;
  }

  available(resp) {
    return !!(resp && resp.lenses && resp.lenses.compare && resp.lenses.compare.pairs.length);
  }

  load(resp, tl) {
    this.resp = resp;
    this.tl = tl;
    this.which = 0;
  }

  /** Where the example opens: the end of the second forward's backward pass (its whole graph). */
  opening(tl) {
    const f = this.resp.lenses.compare.forwards.find((x) => x.view === this.pair.second);
    const pi = f ? this.resp.backward.findIndex((p) => p.index === f.pass_index) : -1;
    return pi >= 0 && tl.passEnd[pi] >= 0 ? tl.passEnd[pi] + 1 : null;
  }

  get pair() {
    return this.resp.lenses.compare.pairs[this.which];
  }

  /** 1-based position of a view among the compared forward passes. */
  ordinal(view) {
    return this.resp.lenses.compare.forwards.findIndex((f) => f.view === view) + 1;
  }

  render() {
    const c = this.resp.lenses.compare;
    const p = this.pair;
    const nodes = new Map(this.resp.graph.nodes.map((n) => [n.id, n]));
    const a = this.ordinal(p.first);
    const b = this.ordinal(p.second);
    const picker = c.pairs.length > 1
      ? h("label", {}, t("cf_pick"), " ", h("select", { "data-testid": "compare-pick", onchange: (ev) => { this.which = Number(ev.target.value); this.render(); this.show(); } },
        c.pairs.map((q, i) => h("option", { value: i, selected: i === this.which }, t("cf_pair", { a: this.ordinal(q.first), b: this.ordinal(q.second) })))))
      : null;
    const leafRows = p.leaves.filter((l) => !l.constant).map((l) => h("li", { "data-same": String(l.same_object) },
      h("code", {}, l.name || `#${l.first}`), " — ",
      l.same_object ? (l.same_node ? t("cf_same_obj", { obj: l.obj }) : `${t("cf_same_obj", { obj: l.obj })}; ${t("cf_new_node", { a: l.first, b: l.second })}`) : t("cf_new_obj")));
    const newNames = p.new_leaves.map((n) => (nodes.get(n) || {}).var).filter(Boolean);
    const count = (view) => (c.forwards.find((f) => f.view === view) || {}).ops;
    const opsOnly = (ids, k) => ids.map((id) => {
      const n = nodes.get(id) || {};
      return h("li", { "data-node": id }, `${n.name || id}${n.line ? ` (${t("cf_line", { line: n.line })})` : ""} — ${t("cf_only_first", { k })}`);
    });
    const toggle = h("input", { type: "checkbox", "data-testid": "compare-mark", onchange: () => { this.marked = toggle.checked; this.paint(); } });
    toggle.checked = this.marked;
    const st = p.static;
    fill(this.host, h("div", { "data-testid": "compare-forwards", "data-same-structure": String(p.same_structure) },
      h("p", { class: "hint" }, t("cf_intro")),
      picker,
      h("h3", {}, t("cf_pair", { a, b })),
      h("h4", {}, t("cf_leaves")),
      h("ul", { class: "cf-leaves", "data-testid": "compare-leaves" }, leafRows),
      newNames.length ? h("p", {}, t("cf_new_leaves", { k: b, names: newNames.join(", ") })) : null,
      h("p", { "data-testid": "compare-ops" }, t("cf_ops", { a: count(p.first), b: count(p.second), fa: a, fb: b })),
      h("p", { class: p.same_structure ? "ok" : "warn", "data-testid": "compare-structure" }, t(p.same_structure ? "cf_same_structure" : "cf_diff_structure")),
      p.same_structure ? null : h("ul", { class: "cf-only" }, opsOnly(p.only_first, a), opsOnly(p.only_second, b)),
      p.same_structure ? null : h("label", { class: "switch" }, toggle, " ", t("cf_mark")),
      st ? h("p", { "data-testid": "compare-static", "data-agree": String(st.agree) },
        t("cf_static", { a, b, s: valueText(st.static, 60), d: valueText(st.dynamic, 60) }), " ",
        h("b", {}, t(st.agree ? "cf_static_agree" : "cf_static_wrong"))) : null,
      h("div", { class: "cf-go" },
        h("button", { type: "button", class: "small", "data-testid": "compare-show-first", onclick: () => this.showView(p.first) }, t("cf_show", { k: a })),
        h("button", { type: "button", class: "small", "data-testid": "compare-show-second", onclick: () => this.showView(p.second) }, t("cf_show", { k: b }))),
    ));
    this.paint();
  }

  showView(view) {
    const k = this.tl.viewStart.get(view);
    if (k !== undefined) this.goto(k);
  }

  show() {
    this.showView(this.pair.first);
  }

  paint() {
    clear("only");
    clear("same-leaf");
    const p = this.pair;
    if (!p) return;
    mark("same-leaf", p.leaves.filter((l) => l.same_object && !l.constant).flatMap((l) => [l.first, l.second]));
    if (this.marked && !p.same_structure) mark("only", [...p.only_first, ...p.only_second]);
  }

  frame() {
    this.paint();
  }

  off() {
    clear("only");
    clear("same-leaf");
  }
}

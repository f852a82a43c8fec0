/**
 * Higher-order gradients: the nodes a create_graph=True backward pass recorded
 * (app/worker/lenses/orders.py), marked on the drawing as their own region, the edges where they read
 * the forward graph, and the later pass that walks them.
 */

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { badge, clear, fill, mark } from "./marks.js";

export class OrdersLens {
  constructor(host, { goto }) {
    this.host = host;
    this.goto = goto;
    this.marked = true;
  }

  available(resp) {
    return !!(resp && resp.lenses && resp.lenses.orders.length);
  }

  load(resp, tl) {
    this.resp = resp;
    this.tl = tl;
  }

  /** Where the example opens: the start of the pass that walks the nodes backward made. */
  opening(tl) {
    const w = this.resp.lenses.orders[0].walked_by[0];
    const pi = w ? this.resp.backward.findIndex((p) => p.index === w.pass_index) : -1;
    return pi >= 0 ? tl.passStart[pi] : null;
  }

  render() {
    const nodes = new Map(this.resp.graph.nodes.map((n) => [n.id, n]));
    const passPos = new Map(this.resp.backward.map((p, i) => [p.index, i]));
    const box = this.resp.lenses.orders.map((o) => {
      const bp = this.resp.backward[passPos.get(o.pass_index)];
      return h("section", { class: "ho-pass", "data-testid": "higher-order-pass", "data-pass": o.pass_index, "data-nodes": o.nodes.length },
        h("h3", {}, t("ho_pass", { k: o.pass_index + 1, api: o.api, line: bp && bp.line ? bp.line : "?", n: o.nodes.length })),
        h("ul", { class: "ho-nodes" }, o.nodes.map((m) => h("li", { "data-node": m.node },
          t("ho_node", { name: (nodes.get(m.node) || {}).name || `#${m.node}`, step: m.step + 1 })))),
        h("p", {}, t("ho_reads", { n: o.reads.length })),
        o.walked_by.map((w) => {
          const pi = passPos.get(w.pass_index);
          const start = pi === undefined ? -1 : this.tl.passStart[pi];
          return h("p", {}, t("ho_walked", { k: w.pass_index + 1, n: w.steps }), " ",
            start >= 0 ? h("button", { type: "button", class: "small", "data-testid": "higher-order-walk", onclick: () => this.goto(start) },
              t("ho_walk", { k: w.pass_index + 1 })) : null);
        }));
    });
    const toggle = h("input", { type: "checkbox", "data-testid": "higher-order-mark", onchange: () => {
      this.marked = toggle.checked;
      this.paint();
    } });
    toggle.checked = this.marked;
    fill(this.host, h("p", { class: "hint" }, t("ho_intro")),
      h("label", { class: "switch" }, toggle, " ", t("ho_mark")), ...box);
    this.paint();
  }

  paint() {
    clear("made");
    clear("reads");
    if (!this.marked) return;
    for (const o of this.resp.lenses.orders) {
      mark("made", o.nodes.map((m) => m.node));
      mark("reads", [], o.reads);
      badge("made", o.nodes.map((m) => m.node), t("ho_badge_short", { k: o.pass_index + 1 }));
    }
  }

  frame() {
    this.paint();
  }

  off() {
    clear("made");
    clear("reads");
  }
}

/**
 * Details of the node or edge under the pointer (or picked): grad_fn name, local formula,
 * value, grad at the current step, shape, dtype, saved tensors; small matrices as heat maps.
 */

import { h, valueBox } from "../dom.js";
import { heatMap, shapeText, valueText } from "../format.js";
import { pick, t } from "../i18n.js";
import { isConstant, nodeLabel, tensorName } from "../names.js";
import { whyButton } from "./why.js";

export class DetailsPanel {
  constructor(host) {
    this.host = host;
  }

  render(st) {
    const sel = st.hovered || st.selected || this._current(st);
    const tl = st.timeline;
    if (!tl || !sel) {
      this.host.replaceChildren(h("p", { class: "muted" }, t("details_hint")));
      return;
    }
    const body = sel.kind === "edge" ? this._edge(tl, sel.id, st.frame) : this._node(tl, sel.id, st.frame);
    const named = sel.kind === "node" ? tl.nodes.get(sel.id) : null;
    const ask = named && named.var ? whyButton(named.var, `why-node-${named.var}`) : null;
    this.host.replaceChildren(...(ask ? [ask] : []), ...body);
  }

  _current(st) {
    const f = st.timeline ? st.timeline.frames[st.frame] : null;
    return f && f.node !== undefined ? { kind: "node", id: f.node } : null;
  }

  _node(tl, id, k) {
    const n = tl.nodes.get(id);
    if (!n) return [h("p", { class: "muted" }, t("details_hint"))];
    const kind = n.kind === "op" ? t("kind_op") : n.is_param ? t("kind_param") : t("kind_leaf");
    const out = [h("h3", {}, nodeLabel(n), " ", h("small", { class: "muted" }, kind))];
    const dl = h("dl", {});
    const row = (k2, ...v) => dl.append(h("dt", {}, k2), h("dd", {}, ...v));
    const model = n.explain;
    if (model) {
      row("", h("code", { class: "formula" }, `${tensorName(n)} = ${model.expr}`), ` (${pick(model.about)})`);
      model.rules.forEach((r, i) => {
        const e = tl.edges.get(n.inputs[i]);
        if (e && isConstant(tl.nodes.get(e.source))) return; // a number of the formula has no rule
        row(t("formula"), h("code", { class: "formula" }, r ? pick(r) : n.formulas[i] || ""));
      });
    } else {
      if (n.description) row("", n.description);
      (n.formulas || []).forEach((f) => row(t("formula"), h("code", { class: "formula" }, f)));
    }
    row(t("shape"), shapeText(n.shape));
    row(t("dtype"), n.dtype);
    if (n.line) row(t("line"), `${n.line}:${n.col ?? ""}`);
    if (n.module) row(t("module"), n.module);
    out.push(dl);
    const value = n.kind === "leaf" ? tl.valueAt(id, k) : n.value;
    out.push(h("p", { class: "lbl" }, t("value")), valueBox(valueText(value), heatMap(value)));
    const grad = this._grad(tl, n, k);
    out.push(h("p", { class: "lbl" }, t("grad")), valueBox(grad ? valueText(grad) : t("none"), heatMap(grad)));
    if (n.kind === "op") {
      out.push(h("p", { class: "lbl" }, t("saved")));
      const freed = tl.nodeState(id, k) === "freed";
      if (!n.saved.length) out.push(h("p", { class: "muted" }, t("saved_none")));
      for (const s of n.saved) {
        const src = s.node !== null && s.node !== undefined ? tl.nodes.get(s.node) : null;
        out.push(h("div", { class: freed ? "saved freed" : "saved" },
          h("b", {}, `${src ? tensorName(src) : s.name} `), h("small", {}, shapeText(s.shape)),
          freed ? h("small", { class: "muted" }, ` (${t("saved_freed")})`) : null,
          valueBox(valueText(s.value), heatMap(s.value))));
      }
    }
    return out;
  }

  /** A leaf's .grad at frame k; for an op, the gradient of its output in the latest pass so far. */
  _grad(tl, n, k) {
    if (n.kind === "leaf") return tl.gradAt(n.id, k);
    let g = null;
    tl.passes.forEach((p, pi) => {
      const f = tl.stepFrame(pi, n.id);
      if (f >= 0 && f <= k) g = p.steps[tl.frames[f].step].upstream;
    });
    return g;
  }

  _edge(tl, id, k) {
    const e = tl.edges.get(id);
    if (!e) return [h("p", { class: "muted" }, t("details_hint"))];
    const src = tl.nodes.get(e.source);
    const dst = tl.nodes.get(e.target);
    const grad = tl.edgeGrad(id, k);
    return [
      h("h3", {}, t("edge_title", { src: nodeLabel(src), dst: nodeLabel(dst) })),
      h("dl", {}, h("dt", {}, t("shape")), h("dd", {}, shapeText(e.shape)),
        h("dt", {}, "requires_grad"), h("dd", {}, e.needs_grad ? "True" : "False")),
      h("p", { class: "lbl" }, t("edge_grad")),
      grad ? valueBox(valueText(grad), heatMap(grad)) : h("p", { class: "muted" }, t("edge_no_grad")),
    ];
  }
}

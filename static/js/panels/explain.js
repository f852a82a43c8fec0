/**
 * The step panel: explains the current frame in words and numbers.
 * Forward op: what it computes, from which line, inputs and output.
 * Backward step: upstream gradient (and the fan-out sum), each input's local rule with the saved
 * values, upstream × local = the gradient sent down; for a leaf, .grad before + contribution = after.
 */

import { h, valueBox } from "../dom.js";
import { flat, heatMap, nested, num, shapeText, valueText } from "../format.js";
import { t } from "../i18n.js";
import { sayMessage } from "../messages.js";
import { nodeLabel, sourceLine } from "../names.js";
import { foldedBody } from "./folded.js";

export class ExplainPanel {
  constructor(host) {
    this.host = host;
  }

  render(st) {
    const tl = st.timeline;
    const f = tl ? tl.frames[st.frame] : null;
    if (!f) {
      this.host.replaceChildren(h("p", { class: "muted" }, t("ex_nothing")));
      return;
    }
    if (f.hidden) { // inside a closed part: no values until it is opened
      this.host.replaceChildren(...foldedBody(st, f));
      return;
    }
    const body =
      f.kind === "op" ? this._op(st, f) :
      f.kind === "step" ? this._step(st, f) :
      f.kind === "optim" ? this._optim(st, f) :
      f.kind === "zero_grad" ? [h("p", {}, t("ex_zero"))] :
      f.kind === "pass_end" ? this._passEnd(st, f) :
      f.kind === "skipped" ? [h("p", { class: "note" }, t("ex_skipped", { from: f.from, to: f.to }))] :
      this._error(st);
    this.host.replaceChildren(...body);
  }

  _where(st, node) {
    if (!node || !node.line) return null;
    return h("p", { class: "where" }, t("ex_op_line", { line: node.line, code: "" }),
      h("code", {}, sourceLine(st.ranSource, node.line)));
  }

  _op(st, f) {
    const tl = st.timeline;
    const op = tl.nodes.get(f.node);
    const out = [h("h3", {}, t("ex_op", { name: op.name, desc: op.description || op.op || "" }))];
    const where = this._where(st, op);
    if (where) out.push(where);
    const inputs = op.inputs.map((eid) => tl.edges.get(eid)).filter(Boolean);
    if (inputs.length) {
      out.push(h("p", { class: "lbl" }, t("ex_op_inputs")));
      const ul = h("ul", { class: "flows" });
      for (const e of inputs) {
        const src = tl.nodes.get(e.source);
        ul.appendChild(h("li", {}, h("b", {}, nodeLabel(src)), " = ", h("code", {}, valueText(src && src.value, 200))));
      }
      out.push(ul);
    }
    const params = Object.entries(op.params || {});
    if (params.length) out.push(h("p", { class: "muted" }, params.map(([k, v]) => `${k} = ${paramText(v)}`).join(", ")));
    out.push(h("p", { class: "lbl" }, t("ex_op_out", { var: op.var ? `${op.var} · ` : "", shape: shapeText(op.shape) })));
    out.push(valueBox(valueText(op.value), heatMap(op.value)));
    return out;
  }

  _step(st, f) {
    const tl = st.timeline;
    const pass = tl.passes[f.pass];
    const step = pass.steps[f.step];
    const node = tl.nodes.get(step.node);
    if (step.kind === "hook") return this._hook(st, pass, f, step, node);
    const out = [h("h3", {}, t("ex_step_title", { pass: pass.index + 1, i: step.index + 1, n: tl.stepCount(f.pass), name: nodeLabel(node) }))];
    if (f.step === 0) {
      out.push(h("p", {}, t("ex_seed"), " ", h("code", {}, valueText(pass.seed))));
    } else if (step.received && step.received.length > 1) {
      out.push(h("p", {}, t("ex_fanout", { n: step.received.length })));
      const terms = step.received.map((fl) => {
        const e = tl.edges.get(fl.edge);
        const dst = e ? tl.nodes.get(e.target) : null;
        return `${valueText(fl.grad, 80)} (${dst ? dst.name : "?"})`;
      });
      out.push(h("p", { class: "math" }, `${terms.join(" + ")} = ${valueText(step.upstream, 120)}`));
    } else {
      out.push(h("p", {}, t("ex_upstream")));
      out.push(valueBox(valueText(step.upstream), heatMap(step.upstream)));
    }
    // Predict mode: the numbers the student is asked for stay hidden ("?") until revealed.
    const hidden = st.concealed && st.concealed.frame === st.frame ? st.concealed : null;
    if (node && node.kind === "op") out.push(...this._rules(tl, node, step, hidden));
    if (step.grad_after) out.push(...this._write(tl, node, step, hidden));
    return out;
  }

  /** A tensor hook of the program ran on the gradient reaching this node: what it saw, what it returned. */
  _hook(st, pass, f, step, node) {
    const out = [h("h3", {}, t("ex_hook_title", { pass: pass.index + 1, i: step.index + 1, n: st.timeline.stepCount(f.pass),
      hook: step.hook || "hook", name: nodeLabel(node) }))];
    if (step.hook_line) {
      out.push(h("p", { class: "where" }, t("ex_hook_where", { line: step.hook_line }), " ",
        h("code", {}, sourceLine(st.ranSource, step.hook_line))));
    }
    out.push(h("p", {}, t("ex_hook_in")));
    out.push(valueBox(valueText(step.grad_before), heatMap(step.grad_before)));
    if (step.grad_after) {
      out.push(h("p", { class: "lbl" }, t("ex_hook_changed")));
      out.push(h("p", { class: "math write" }, h("code", {}, `${valueText(step.grad_before, 120)} → `),
        h("code", { class: "after" }, valueText(step.grad_after, 120))));
    } else {
      out.push(h("p", { class: "muted" }, t("ex_hook_same")));
    }
    return out;
  }

  _passEnd(st, f) {
    const tl = st.timeline;
    const pass = tl.passes[f.pass];
    const out = [h("h3", {}, t("ex_pass_end", { n: pass.index + 1 }))];
    const writes = pass.steps.filter((s) => s.grad_after && s.kind !== "hook");
    if (writes.length) {
      out.push(h("p", {}, t("ex_pass_grads")));
      const ul = h("ul", { class: "flows" });
      for (const s of writes) {
        ul.appendChild(h("li", {}, h("b", {}, `${nodeLabel(tl.nodes.get(s.node))}.grad`), " = ",
          h("code", { class: "math" }, valueText(s.grad_after, 160))));
      }
      out.push(ul);
    }
    out.push(h("p", { class: pass.freed ? "note freed" : "note" }, pass.freed ? t("ex_freed") : t("ex_kept")));
    return out;
  }

  _rules(tl, node, step, hidden) {
    const out = [];
    const sent = new Map(step.sent.map((fl) => [fl.edge, fl.grad]));
    const saved = [
      ...node.saved.map((s) => `${s.name} = ${valueText(s.value, 60)}`),
      ...Object.entries(node.params || {}).map(([k, v]) => `${k} = ${paramText(v)}`),
    ].join(", ");
    node.inputs.forEach((eid, i) => {
      const e = tl.edges.get(eid);
      const src = e ? tl.nodes.get(e.source) : null;
      const srcName = nodeLabel(src);
      const grad = sent.get(eid);
      const box = h("div", { class: "rule" });
      if (!grad) {
        box.appendChild(h("p", { class: "muted" }, t("ex_no_grad", { i: i + 1, src: srcName })));
        out.push(box);
        return;
      }
      box.appendChild(h("p", {}, t("ex_rule", { i: i + 1, src: srcName }), " ", h("code", { class: "formula" }, node.formulas[i] || "")));
      if (saved) box.appendChild(h("p", { class: "muted" }, `${t("ex_with")}: `, h("code", {}, saved)));
      if (hidden && hidden.edges.has(eid)) {
        box.appendChild(h("p", {}, t("ex_send_short", { src: srcName }), " ", h("code", { class: "math concealed" }, "?")));
        out.push(box);
        return;
      }
      const product = productText(step.upstream, grad);
      if (product) {
        box.appendChild(h("p", {}, t("ex_send", { src: srcName }), " ", h("code", { class: "math" }, product)));
      } else {
        box.appendChild(h("p", {}, t("ex_send_short", { src: srcName })));
        box.appendChild(valueBox(valueText(grad), heatMap(grad)));
      }
      out.push(box);
    });
    return out;
  }

  _write(tl, node, step, hidden) {
    const title = step.retained ? t("ex_retained") : t("ex_leaf", { name: nodeLabel(node) });
    const before = step.grad_before ? valueText(step.grad_before, 120) : t("none");
    const contribution = valueText(step.upstream, 120);
    const after = hidden && hidden.nodes.has(node.id) ? "?" : valueText(step.grad_after, 120);
    return [
      h("p", {}, title),
      h("p", { class: "lbl" }, t("ex_leaf_write")),
      h("p", { class: "math write" }, h("code", {}, `${before} + ${contribution} = `), h("code", { class: "after" }, after)),
    ];
  }

  _optim(st, f) {
    const steps = st.response.optimizer_steps;
    const o = steps[f.index];
    if (!o) return [h("p", {}, "optimizer.step()")];
    const out = [h("h3", {}, t("ex_optim", { opt: o.optimizer, rule: o.rule }))];
    const where = this._where(st, o);
    if (where) out.push(where);
    const ul = h("ul", { class: "flows" });
    for (const p of o.params) {
      ul.appendChild(h("li", {}, h("b", {}, p.name || `#${p.node}`), ": ",
        h("code", {}, `${valueText(p.before, 60)} → ${valueText(p.after, 60)}`)));
    }
    out.push(ul);
    return out;
  }

  _error(st) {
    const e = st.response && st.response.error;
    if (!e) return [];
    const said = sayMessage(e.message);
    const out = [h("p", { class: "errtext" }, t("ex_error")), h("p", {}, h("b", {}, `${e.type}: `), said.text)];
    if (said.note) out.push(h("p", { class: "errtext" }, said.note));
    return out;
  }
}

/** "2 × 3 = 6" when upstream and sent are small and of one size, else null. */
export function productText(upstream, sent) {
  if (!upstream || !sent || upstream.data == null || sent.data == null) return null;
  const u = flat(upstream.data);
  const s = flat(sent.data);
  if (u.length !== s.length || u.length > 4 || u.some((x) => !x)) return null;
  const local = s.map((x, i) => x / u[i]);
  if (u.length === 1) return `${num(u[0])} × ${num(local[0])} = ${num(s[0])}`;
  return `${nested(upstream.data)} ⊙ ${nested(reshapeLike(upstream.data, local))} = ${nested(sent.data)}`;
}

/** An op's parameter: a number as num() writes it, a long list (class targets) clipped. */
function paramText(v) {
  if (typeof v === "number") return num(v);
  if (Array.isArray(v)) return valueText(v, 60);
  return JSON.stringify(v);
}

function reshapeLike(like, values) {
  let i = 0;
  const walk = (x) => (Array.isArray(x) ? x.map(walk) : values[i++]);
  return walk(like);
}

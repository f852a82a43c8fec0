/**
 * The step panel: explains the current frame in words and numbers, from the answer's explanation
 * model (app/worker/explain/: every rule, name and worked number is the server's; this only lays it out).
 * Forward op: which expression ran, the grad_fn it recorded, what it computes, inputs and output.
 * Backward step: the upstream gradient G (and the fan-out sum), each input's rule in the student's
 * names with the saved values and the worked arithmetic, the gradient sent down; for a leaf,
 * .grad before + contribution = after.
 */

import { h, valueBox } from "../dom.js";
import { heatMap, num, shapeText, valueText } from "../format.js";
import { pick, t } from "../i18n.js";
import { isConstant, nodeLabel, sourceLine, sourceSpan, tensorName } from "../names.js";
import { errorBody } from "../errors.js";
import { workBlock } from "./work.js";
import { foldedBody } from "./folded.js";
import { edgeTensor, outputsBody } from "./outputs.js";

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
      f.kind === "update" ? this._update(st, f) :
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
    const model = op.explain;
    const out = [h("h3", {}, t("ex_op_title", { name: nodeLabel(op) }))];
    const where = this._where(st, op);
    if (where) out.push(where);
    const ran = sourceSpan(st.ranSource, op.line, op.col, op.end_line, op.end_col);
    if (ran) out.push(h("p", { "data-testid": "ex-ran" }, t("ex_ran_a"), h("code", {}, ran), t("ex_ran_b", { name: op.label || op.name })));
    else out.push(h("p", { "data-testid": "ex-ran" }, t("ex_recorded", { name: op.label || op.name })));
    if (model) {
      out.push(h("p", {}, t("ex_computes"), " ", h("code", { class: "formula" }, `${tensorName(op)} = ${model.expr}`),
        h("span", { class: "muted" }, ` (${pick(model.about)})`)));
    } else if (op.description) {
      out.push(h("p", {}, t("ex_computes"), " ", op.description));
    }
    // A number the program wrote (4 in 4 * x) is part of the formula, not an input.
    const inputs = op.inputs.map((eid) => tl.edges.get(eid)).filter((e) => e && !isConstant(tl.nodes.get(e.source)));
    if (inputs.length) {
      out.push(h("p", { class: "lbl" }, t("ex_op_inputs")));
      const ul = h("ul", { class: "flows" });
      for (const e of inputs) {
        const { name, value } = edgeTensor(tl.nodes.get(e.source), e);
        ul.appendChild(h("li", {}, h("b", {}, name), " = ", h("code", {}, valueText(value, 200))));
      }
      out.push(ul);
    }
    const params = Object.entries(op.params || {});
    if (params.length) out.push(h("p", { class: "muted" }, params.map(([k, v]) => `${paramName(k)} = ${paramText(v)}`).join(", ")));
    out.push(h("p", { class: "lbl" }, t("ex_op_out", { var: `${tensorName(op)} · `, shape: shapeText(op.shape) })));
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
    if (node && node.kind === "op" && node.explain) {
      out.push(h("p", {}, t("ex_node_computed"), " ", h("code", { class: "formula" }, `${tensorName(node)} = ${node.explain.expr}`)));
      const defs = this._definitions(tl, node);
      if (defs) out.push(defs);
    }
    const rootNode = tl.nodes.get(pass.root);
    const root = step.explain ? step.explain.root : tensorName(rootNode); // the output's own name, never an invented L
    // A hook of the program that returned a new gradient for this tensor (the steps just before):
    // what arrived is ∂root/∂name, what flows on (G) is what the last such hook returned. After a
    // hook that changed the gradient of a tensor this one feeds, what arrives is not ∂root/∂name.
    const name = tensorName(node);
    const hooks = hooksBefore(pass, f.step, step.node);
    const changed = hooks.filter((s) => s.grad_after);
    const arrived = changed.length ? hooks[0].grad_before : step.upstream;
    const above = hookedAbove(tl, pass, f.step, step.node);
    const d = above.length ? null : `∂${root}/∂${name}`;
    if (above.length) {
      out.push(h("p", { class: "note", "data-testid": "ex-hooked-above" },
        t("ex_hooked_above", { names: above.join(", "), d: `∂${root}/∂${name}` })));
    }
    const pieces = f.step === 0 ? null : outputsBody(tl, node, step);
    if (f.step === 0) {
      out.push(h("p", {}, t("ex_seed", { root }), " ", h("code", {}, valueText(pass.seed))));
    } else if (pieces) {
      out.push(...pieces);
    } else if (step.received && step.received.length > 1) {
      out.push(h("p", {}, t("ex_fanout", { n: step.received.length, name })));
      const terms = step.received.map((fl) => {
        const e = tl.edges.get(fl.edge);
        const dst = e ? tl.nodes.get(e.target) : null;
        return `${valueText(fl.grad, 80)} ${t("ex_from", { label: dst ? dst.label || dst.name : "?", i: e ? e.index + 1 : "?" })}`;
      });
      const said = changed.length ? d : "G"; // G is what flows on: the hook's, when it changed it
      out.push(h("p", { class: "math" }, `${terms.join(" + ")} = ${said ? `${said} = ` : ""}${valueText(arrived, 120)}`));
    } else if (changed.length) {
      out.push(h("p", {}, d ? t("ex_hook_arrived", { d }) : t("ex_hook_arrived_plain")));
      out.push(valueBox(valueText(arrived), heatMap(arrived)));
    } else {
      out.push(h("p", {}, d ? t("ex_upstream_g", { root, name }) : t("ex_upstream_plain")));
      out.push(valueBox(valueText(step.upstream), heatMap(step.upstream)));
    }
    if (changed.length) {
      const hook = [...new Set(changed.map((s) => s.hook || "?"))].join(", ");
      out.push(h("p", { "data-testid": "ex-hooked" }, t("ex_hook_flows", { hook })));
      out.push(valueBox(valueText(step.upstream), heatMap(step.upstream)));
    }
    // Predict mode: the numbers the student is asked for stay hidden ("?") until revealed.
    const hidden = st.concealed && st.concealed.frame === st.frame ? st.concealed : null;
    if (node && node.kind === "op") out.push(...this._rules(tl, node, step, hidden));
    if (step.grad_after) out.push(...this._write(tl, node, step, hidden));
    return out;
  }

  /** "u = a + b": what the names the program never gave stand for (the rules use them). */
  _definitions(tl, node) {
    const defs = [];
    for (const eid of node.inputs) {
      const e = tl.edges.get(eid);
      const src = e ? tl.nodes.get(e.source) : null;
      if (src && src.kind === "op" && !src.var && src.explain && src.sym) defs.push(`${src.sym} = ${src.explain.expr}`);
    }
    const unique = [...new Set(defs)];
    return unique.length ? h("p", { class: "muted defs" }, t("ex_names"), " ", h("code", {}, unique.join(", "))) : null;
  }

  /** A tensor hook of the program ran on the gradient reaching this node: what it saw, what it returned. */
  _hook(st, pass, f, step, node) {
    const out = [h("h3", {}, t("ex_hook_title", { pass: pass.index + 1, i: step.index + 1, n: st.timeline.stepCount(f.pass),
      hook: step.hook || "", name: tensorName(node) }))];
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
        ul.appendChild(h("li", {}, h("b", {}, `${tensorName(tl.nodes.get(s.node))}.grad`), " = ",
          h("code", { class: "math" }, valueText(s.grad_after, 160))));
      }
      out.push(ul);
    }
    // autograd.grad(..., create_graph=True) keeps the graph without retain_graph=True written:
    // PyTorch's retain_graph defaults to create_graph.
    const kept = pass.create_graph ? "ex_kept_create" : "ex_kept";
    out.push(h("p", { class: pass.freed ? "note freed" : "note" }, pass.freed ? t("ex_freed") : t(kept)));
    return out;
  }

  _rules(tl, node, step, hidden) {
    const out = [];
    const sent = new Map(step.sent.map((fl) => [fl.edge, fl.grad]));
    const works = step.explain ? step.explain.inputs : [];
    // A CopySlices that wraps an in-place op sends along the base's edge and the op's other inputs'.
    if (step.explain && step.explain.says) out.push(h("p", { "data-testid": "ex-says" }, pick(step.explain.says)));
    (node.walked || node.inputs).forEach((eid, i) => {
      const e = tl.edges.get(eid);
      const src = e ? tl.nodes.get(e.source) : null;
      const srcName = src ? edgeTensor(src, e).name : "?"; // an output of unbind or split: its own name
      const grad = sent.get(eid);
      if (isConstant(src)) return; // a number of the formula: it has no gradient to speak of
      if (!grad) {
        out.push(h("div", { class: "rule" }, h("p", { class: "muted" }, t("ex_no_grad", { i: i + 1, src: srcName }))));
        return;
      }
      const isHidden = Boolean(hidden && hidden.edges.has(eid));
      const work = works[i];
      const rule = node.walked ? "" : (node.explain && pick(node.explain.rules[i])) || (node.formulas && node.formulas[i]) || "";
      const box = work
        ? workBlock(work, step.upstream, { index: i, srcName, hidden: isHidden })
        : h("div", { class: "rule" }, h("p", {}, t("ex_rule", { i: i + 1, src: srcName }), " ",
          rule ? h("code", { class: "formula" }, rule) : t("ex_rule_none", { name: nodeLabel(node) })));
      if (!isHidden) {
        const to = !src || src.kind !== "op" ? srcName : src.outputs > 1
          ? `${edgeTensor(src, e).name} (${t("ex_output_of", { k: e.output || 0, label: src.label || src.name })})`
          : `${srcName} (${src.label || src.name})`;
        box.append(h("p", { class: "sent" }, t("ex_send_short", { src: to })), valueBox(valueText(grad), heatMap(grad)));
      }
      out.push(box);
    });
    return out;
  }

  _write(tl, node, step, hidden) {
    const title = step.retained ? t("ex_retained", { name: tensorName(node) }) : t("ex_leaf", { name: tensorName(node) });
    const before = step.grad_before ? valueText(step.grad_before, 120) : t("none");
    const contribution = valueText(step.upstream, 120);
    const after = hidden && hidden.nodes.has(node.id) ? "?" : valueText(step.grad_after, 120);
    return [
      h("p", {}, title),
      h("p", { class: "lbl" }, t("ex_leaf_write", { name: tensorName(node) })),
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

  /** An in-place change no op records: the tensor's value (or its .grad) before and after. */
  _update(st, f) {
    const u = st.response.updates[f.index];
    const node = st.timeline.nodes.get(u.node);
    const name = u.name || (node ? tensorName(node) : `#${u.node}`);
    const out = [h("h3", {}, t(u.grad ? "ex_update_grad" : "ex_update", { name }))];
    const where = this._where(st, u);
    if (where) out.push(where);
    out.push(h("p", { class: "math write", "data-testid": "ex-update" },
      h("code", {}, `${u.grad ? `${name}.grad` : name}: ${valueText(u.before, 200)} → `),
      h("code", { class: "after" }, valueText(u.after, 200))));
    out.push(h("p", { class: "note" }, t(u.grad ? "ex_update_grad_note" : "ex_update_note")));
    return out;
  }

  _error(st) {
    const e = st.response && st.response.error;
    if (!e) return [];
    return [h("p", { class: "errtext" }, t("ex_error")), h("p", {}, h("b", {}, `${e.type}:`)), ...errorBody(e, { pre: false })];
  }
}

/** The hook steps of `pass` on node `nid` just before step `k`, in the order they ran. */
function hooksBefore(pass, k, nid) {
  const out = [];
  for (let j = k - 1; j >= 0 && pass.steps[j].kind === "hook" && pass.steps[j].node === nid; j--) out.unshift(pass.steps[j]);
  return out;
}

/** The names of the tensors whose hook changed the gradient earlier in `pass` (before step `k`)
 * and that node `nid` feeds: the gradient reaching it went through what the hook returned. */
function hookedAbove(tl, pass, k, nid) {
  const out = [];
  for (let j = 0; j < k; j++) {
    const s = pass.steps[j];
    if (s.kind !== "hook" || !s.grad_after || s.node === nid || out.includes(tensorName(tl.nodes.get(s.node)))) continue;
    const seen = new Set([s.node]);
    const todo = [s.node];
    while (todo.length && !seen.has(nid)) {
      const n = tl.nodes.get(todo.pop());
      for (const eid of (n && n.inputs) || []) {
        const e = tl.edges.get(eid);
        if (e && !seen.has(e.source)) {
          seen.add(e.source);
          todo.push(e.source);
        }
      }
    }
    if (seen.has(nid)) out.push(tensorName(tl.nodes.get(s.node)));
  }
  return out;
}

/** An op's argument name in the page's language (Python's own name in English). */
function paramName(k) {
  const said = t(`param_${k}`);
  return said === `param_${k}` ? k : said;
}

/** An op's parameter: a number as num() writes it, a long list (class targets) clipped. */
function paramText(v) {
  if (v === null || typeof v === "number" || typeof v === "boolean") return num(v); // None, True: as Python writes them
  if (Array.isArray(v)) return valueText(v, 60);
  return JSON.stringify(v);
}

"""The worked arithmetic of a CopySlices step that wraps an op (``v = h[1:3]; v.mul_(w)``), which
the walk runs as torch does, as one node (engine/autograd/copy_slices.py): the gradient G of the
base is picked at the written part, the wrapped op's own explanation (its entry in the op table)
runs on that part, and its gradient for the view is written back into G there; its gradients for
the op's other inputs go to those inputs. Every step is one of the algebra's words, so the page
shows it and a test recomputes it like any other step."""

from __future__ import annotations

import numpy as np

from engine.ops.keys import decode_key
from engine.ops.table import OPS
from engine.trace import OpNode, Trace

from .algebra import Term, Walk
from .model import _edge_sym, _matches, _sum_back, context, per_sent_edge
from .text import Text, key_text, wrap


class _PartWalk(Walk):
    """A walk of the wrapped op's rules whose upstream gradient is G at the written part."""

    part: Term | None = None

    def _G(self) -> Term:
        return self.part


def step_model(trace: Trace, node: OpNode, step, syms: dict, root: str, worked: bool) -> dict:
    """Per edge the step sent along (``node.walked``): the rule, the values read, the worked
    steps and whether they give what was sent; and the sentence that says where the op's rules ran."""
    fn = _wrapped(trace, node)
    key = list(node.params["key"])
    at = f"[{key_text(node.params, 'index')}]"
    base = _edge_sym(trace, trace.edges[node.inputs[0]], syms)
    inputs = per_sent_edge(
        step, node.walked,
        lambda i, eid, grad: _work(trace, node, fn, step, syms, root, i, key, at, grad if worked else None),
        lambda i, eid: base if i == 0 else _edge_sym(trace, trace.edges[eid], syms))
    says = Text(f"CopySlices: the in-place {fn.grad_fn} wrote {base}{at}. Outside that part, G goes on to "
                f"{base} as it came; at it, {fn.grad_fn}'s rules run on G{at}.",
                f"CopySlices：原地的 {fn.grad_fn} 写入了 {base}{at}。这部分以外，G 原样传给 {base}；"
                f"这部分上，对 G{at} 套用 {fn.grad_fn} 的规则。")
    return {"root": root, "inputs": inputs, "says": says.data()}


def _wrapped(trace: Trace, node: OpNode) -> OpNode:
    """The op node a CopySlices wraps: the source of its edges after the base's (``walked``)."""
    return trace.nodes[trace.edges[node.inputs[1]].source]


def _work(trace, node, fn, step, syms, root, i, key, at, grad) -> dict:
    """Input ``i`` of the step (0: the base; else the wrapped op's input ``i``)."""
    g = np.asarray(step.upstream, dtype=np.float64)
    ctx = context(trace, fn, syms, g[decode_key(tuple(key))], i)
    walk = _PartWalk(ctx)
    full = Term(g, Text.same("G"), 5, {"G": 1})
    walk.part = walk._record("pick", [full], Text.join("G", at), 5, {"key": key})
    result = _rule(walk, fn, i)
    edge = trace.edges[node.walked[i]]
    name = ctx.in_syms[i] if i else _edge_sym(trace, trace.edges[node.inputs[0]], syms)
    broadcast = None
    if i == 0:
        text = Text(f"G with {name}{at} replaced by {result.text.en}",
                    f"G，其中 {name}{at} 换成 {result.text.zh}")
        result = walk._record("write_at", [full, result], text, 0, {"key": key})
    elif np.shape(result.value) != tuple(edge.shape):
        broadcast, result = _sum_back(walk, result, name, tuple(edge.shape))
    rule = Text.join(f"∂{root}/∂{name} = ", result.text)
    work = {"edge": edge.id, "name": name, "rule": rule.data(), "broadcast": broadcast, "ok": None}
    if grad is not None:
        work.update(values=walk.values, steps=walk.worked, result=result.ref, ok=_matches(result.value, grad))
    return work


def _rule(walk: _PartWalk, fn: OpNode, i: int) -> Term:
    """The wrapped op's rule for its input ``i``, on G at the written part (``walk.part``)."""
    op = OPS[fn.op]
    term = walk.term(op.explain.rules()[0 if op.variadic else i])
    if not op.explain.elementwise:
        return term
    part = walk.part
    if term.const and term.value == 1:
        return part
    dot = "·" if term.const or np.ndim(term.value) == 0 else " ⊙ "
    inner = term.text if term.prec >= 2 and term.prec != 3 else Text.join("(", term.text, ")")
    return walk._record("mul", [part, term], Text.join(wrap(part, 2), dot, inner), 2)


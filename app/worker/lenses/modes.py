"""Forward mode beside reverse mode, for one backward pass of the run.

Reverse mode is the pass itself: one walk from the output gives the gradient of every input,
each op's backward rule applied once per input that needs a gradient. Forward mode is replayed
here from the same trace with the op table's forward-mode rules (``OpDef.jvps``, the rules
``torch.autograd.forward_ad`` runs): one pass per input element (a unit tangent on that element,
zero elsewhere), each pushing the tangent through the ops node by node; the output's tangent in
pass j is the j-th element of the gradient. Both counts are counted, never estimated.
"""

from __future__ import annotations

import math

import numpy as np

from engine.ops.table import NP, OPS, SAVED_INPUT, Saved
from engine.trace import ancestry

from .. import values

_SLOTS = tuple(SAVED_INPUT)

MAX_DIRECTIONS = 64  # input elements replayed in forward mode (beyond: only counted)
MAX_OPS = 600  # ops of the output's graph replayed (beyond: only counted)
MAX_WORK = 8000  # directions × ops replayed
SHOWN_DIRECTIONS = 8  # passes whose every step is sent to the page
SHOWN_OPS = 40  # ops of a pass sent step by step
LISTED_INPUTS = 64  # inputs listed with their reverse-mode gradient (the others only counted)


def _saved_for(trace, node) -> Saved:
    """What a forward-mode rule reads of ``node``: its inputs, output, extras and params, as the
    engine had them when the op ran."""
    extras = {s.name: s.value for s in node.saved if s.name != "out" and s.name not in SAVED_INPUT}
    s = Saved(NP, dict(node.params), extras)
    inputs = [trace.nodes[trace.edges[e].source].value for e in node.inputs]
    by_name = {x.name: x.value for x in node.saved}
    for i, key in enumerate(_SLOTS):
        if i < len(inputs):
            setattr(s, key, inputs[i])
        elif key in by_name:  # a data argument (``where``'s condition), saved by the op
            setattr(s, key, by_name[key])
    s.out = node.value
    return s


def forward_vs_reverse(trace, bp) -> dict | None:
    """The two modes for pass ``bp`` (None when its output is not a single number)."""
    root = trace.nodes[bp.root]
    if int(np.prod(root.shape)) != 1 or root.kind != "op":
        return None
    nodes = trace.nodes
    members = sorted(ancestry(trace, bp.root))
    ops = [n for n in members if nodes[n].kind == "op"]
    inputs = [n for n in members if nodes[n].kind == "leaf" and nodes[n].requires_grad]
    n_dirs = sum(math.prod(nodes[n].shape) for n in inputs)
    wanted = set(inputs)

    reverse_rules = reverse_steps = 0
    reverse_grads = {}
    for s in bp.steps:
        if s.kind == "op":
            reverse_steps += 1
            for f in s.sent:
                if f.grad is not None:
                    reverse_rules += 1
        elif s.kind == "leaf" and s.node in wanted:
            reverse_grads[s.node] = s.upstream
    out = {
        "pass_index": bp.index, "root": bp.root, "directions": n_dirs,
        "inputs": [{"node": n, "name": trace.nodes[n].name, "shape": list(trace.nodes[n].shape),
                    "grad": values.value(reverse_grads.get(n))} for n in inputs[:LISTED_INPUTS]],
        "unlisted": max(0, len(inputs) - LISTED_INPUTS),
        "reverse": {"passes": 1, "rules": reverse_rules,
                    "steps": reverse_steps},
        "forward": None, "unavailable": None,
    }
    if n_dirs == 0:
        out["unavailable"] = "no_inputs"
        return out
    if n_dirs > MAX_DIRECTIONS:
        out["unavailable"] = "too_many"
        return out
    if len(ops) > MAX_OPS or n_dirs * len(ops) > MAX_WORK:
        out["unavailable"] = "too_large"
        return out
    try:
        out["forward"] = _replay(trace, ops, inputs, bp.root)
    except Exception as exc:  # an op whose rule cannot be replayed from the trace: say which
        out["unavailable"] = "rule_failed"
        out["detail"] = f"{type(exc).__name__}"
    return out


def _replay(trace, ops: list[int], inputs: list[int], root: int) -> dict:
    saved = {nid: _saved_for(trace, trace.nodes[nid]) for nid in ops}
    passes = []
    total_rules = 0
    grads = {n: np.zeros(trace.nodes[n].shape, dtype=trace.nodes[n].value.dtype) for n in inputs}
    for leaf in inputs:
        shape = trace.nodes[leaf].shape
        for flat in range(int(np.prod(shape))):
            tangents: dict[int, np.ndarray] = {}
            seed = np.zeros(shape, dtype=trace.nodes[leaf].value.dtype)
            seed.reshape(-1)[flat] = 1
            tangents[leaf] = seed
            steps, rules = _push(trace, ops, saved, tangents, show=len(passes) < SHOWN_DIRECTIONS)
            total_rules += rules
            result = tangents.get(root)
            value = 0.0 if result is None else float(np.asarray(result).reshape(-1)[0])
            grads[leaf].reshape(-1)[flat] = value
            element = [int(i) for i in np.unravel_index(flat, shape)] if shape else []
            passes.append({"input": leaf, "element": element,
                           "rules": rules, "output_tangent": values.number(value),
                           "steps": steps[:SHOWN_OPS] if steps is not None else None})
    return {"passes": passes, "rules": total_rules, "count": len(passes),
            "grads": [{"node": n, "grad": values.value(grads[n])} for n in inputs]}


def _push(trace, ops, saved, tangents, show: bool):
    """One forward-mode pass: each op whose inputs carry a tangent applies its rule per such input
    and sums the shares (as ``engine.tangents.push`` does)."""
    steps = [] if show else None
    rules = 0
    for nid in ops:
        node = trace.nodes[nid]
        op = OPS[node.op]
        sources = [trace.edges[e].source for e in node.inputs]
        ins = [tangents.get(src) for src in sources]
        if all(t is None for t in ins) or node.value.dtype.kind != "f":
            continue
        s = saved[nid]
        total = None
        shares = []
        for i, t in enumerate(ins):
            if t is None:
                shares.append(None)
                continue
            rule = op.jvps[0] if op.variadic else op.jvps[i]
            s.i = i
            share = np.asarray(rule(t, s))
            if share.shape != node.value.shape:
                share = np.broadcast_to(share, node.value.shape)
            rules += 1
            shares.append(share)
            total = share.astype(node.value.dtype) if total is None else total + share
        tangents[nid] = np.array(total, dtype=node.value.dtype)
        if steps is not None:
            formulas = list(op.jvp_formulas) * (len(ins) if op.variadic else 1)
            steps.append({"node": nid, "op": node.op, "grad_fn": node.grad_fn, "inputs": sources,
                          "formulas": formulas[:len(ins)],
                          "tangents": [values.value(t) for t in ins],
                          "shares": [values.value(x) for x in shares],
                          "tangent": values.value(tangents[nid])})
    return steps, rules

"""Forward mode beside reverse mode, for one backward pass of the run.

Reverse mode is the pass itself: one walk from the output gives the gradient of every input,
each op's backward rule applied once per input that needs a gradient. Forward mode is replayed
here from the same trace (``engine.replay``) with the op table's forward-mode rules (``OpDef.jvps``,
the rules ``torch.autograd.forward_ad`` runs): one pass per input element (a unit tangent on that element,
zero elsewhere), each pushing the tangent through the ops node by node; the output's tangent in
pass j is the j-th element of the gradient. Both counts are counted, never estimated.
"""

from __future__ import annotations

import math

import numpy as np

from engine.ops.table import OPS
from engine.replay import Replay

from .. import values

MAX_DIRECTIONS = 64  # input elements replayed in forward mode (beyond: only counted)
MAX_OPS = 600  # ops of the output's graph replayed (beyond: only counted)
MAX_WORK = 8000  # directions × ops replayed
SHOWN_DIRECTIONS = 8  # passes whose every step is sent to the page
SHOWN_OPS = 40  # ops of a pass sent step by step
LISTED_INPUTS = 64  # inputs listed with their reverse-mode gradient (the others only counted)


def forward_vs_reverse(trace, bp) -> dict | None:
    """The two modes for pass ``bp`` (None when its output is not a single number)."""
    root = trace.nodes[bp.root]
    if int(np.prod(root.shape)) != 1 or root.kind != "op":
        return None
    nodes = trace.nodes
    replay = Replay(trace, bp.root)
    ops = replay.ops
    inputs = [n for n in replay.leaves if nodes[n].requires_grad]
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
        out["forward"] = _forward_passes(replay, inputs)
    except Exception as exc:  # an op whose rule cannot be replayed from the trace: say which
        out["unavailable"] = "rule_failed"
        out["detail"] = f"{type(exc).__name__}"
    return out


def _forward_passes(replay: Replay, inputs: list[int]) -> dict:
    """One forward-mode pass of the replay per input element, a unit tangent on it."""
    trace, root = replay.trace, replay.root
    passes = []
    total_rules = 0
    grads = {n: np.zeros(trace.nodes[n].shape, dtype=trace.nodes[n].value.dtype) for n in inputs}
    for leaf in inputs:
        shape = trace.nodes[leaf].shape
        for flat in range(int(np.prod(shape))):
            seed = np.zeros(shape, dtype=trace.nodes[leaf].value.dtype)
            seed.reshape(-1)[flat] = 1
            tangents = {leaf: seed}
            steps = [] if len(passes) < SHOWN_DIRECTIONS else None
            rules = replay.tangents(tangents, None if steps is None else _shown_step(trace, tangents, steps))
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


def _shown_step(trace, tangents: dict, steps: list):
    """What the page is sent of each op of a shown pass: its rules' formulas and the tangents."""
    def on_step(nid, sources, ins, shares):
        node = trace.nodes[nid]
        op = OPS[node.op]
        formulas = list(op.jvp_formulas) * (len(ins) if op.variadic else 1)
        steps.append({"node": nid, "op": node.op, "grad_fn": node.grad_fn, "inputs": sources,
                      "formulas": formulas[:len(ins)],
                      "tangents": [values.value(t) for t in ins],
                      "shares": [values.value(x) for x in shares],
                      "tangent": values.value(tangents[nid])})

    return on_step

"""Two forward passes side by side: what is the same object, what is new, what changed shape.

PyTorch builds a new graph every forward pass: even where the code is the same, every op makes a
new grad_fn object; only leaf tensors (parameters, inputs the program kept) are reused. Each kept
view with a backward pass is one forward pass here. For two of them this module says which
leaves are the same tensor object (``LeafNode.obj``), that every op node is new, and which ops
only one of them has (matched by op and source position, in order): a structural difference,
which only control flow (a loop, an if) can make.

A static graph would trace the first pass once and replay it: ``static_replay`` runs the first
pass's ops (``engine.replay``, the op table's forward functions) on the second pass's inputs and compares
its output with what the program really computed.
"""

from __future__ import annotations

import difflib

import numpy as np

from engine.replay import evaluate

from .. import values

MAX_PAIRS = 8
MAX_OPS = 5000  # ops per forward pass matched


def _forward_of(trace, view_nodes: set[int]) -> dict:
    ops = [n for n in sorted(view_nodes) if trace.nodes[n].kind == "op" and trace.nodes[n].made_by is None]
    leaves = [n for n in sorted(view_nodes) if trace.nodes[n].kind == "leaf"]
    return {"ops": ops, "leaves": leaves}


def _signature(node) -> tuple:
    return (node.op, node.line, node.col)


def _match(a: list, b: list) -> list[tuple[int, int]]:
    """The index pairs of a longest matching of two signature lists, in order (difflib's matching
    blocks: linear for the usual case of two equal or nearly equal forward passes)."""
    if a == b:
        return [(i, i) for i in range(len(a))]
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    return [(blk.a + k, blk.b + k) for blk in blocks for k in range(blk.size)]


def compare_forwards(trace, views: list) -> dict | None:
    """``views``: the kept views (app.folding.views.View). None when fewer than two have a backward pass."""
    forwards = [(v, _forward_of(trace, v.nodes)) for v in views
                if v.passes and trace.nodes[trace.passes[v.passes[0]].root].made_by is None]
    if len(forwards) < 2:
        return None
    pairs = []
    for (va, fa), (vb, fb) in list(zip(forwards, forwards[1:]))[:MAX_PAIRS]:
        pairs.append(_pair(trace, va, fa, vb, fb))
    summaries = [{"view": v.index, "pass_index": v.passes[0], "ops": len(f["ops"]),
                  "leaves": len(f["leaves"])} for v, f in forwards]
    return {"forwards": summaries, "pairs": pairs}


def _pair(trace, va, fa, vb, fb) -> dict:
    nodes = trace.nodes
    objs_b: dict[int, int] = {nodes[n].obj: n for n in fb["leaves"]}
    leaves = []
    for n in fa["leaves"]:
        other = objs_b.get(nodes[n].obj)
        leaves.append({"first": n, "second": other, "obj": nodes[n].obj, "name": nodes[n].name,
                       "same_object": other is not None, "same_node": other == n,
                       "constant": _is_literal(nodes[n])})
    shared = {nodes[n].obj for n in fa["leaves"]}
    new_leaves = [n for n in fb["leaves"] if nodes[n].obj not in shared]
    a_ops, b_ops = fa["ops"][:MAX_OPS], fb["ops"][:MAX_OPS]
    pairs = _match([_signature(nodes[n]) for n in a_ops], [_signature(nodes[n]) for n in b_ops])
    ma = {a_ops[i] for i, _ in pairs}
    mb = {b_ops[j] for _, j in pairs}
    return {
        "first": va.index, "second": vb.index,
        "leaves": leaves, "new_leaves": new_leaves,
        "matched_ops": [[a_ops[i], b_ops[j]] for i, j in pairs],
        "only_first": [n for n in a_ops if n not in ma], "only_second": [n for n in b_ops if n not in mb],
        "same_structure": len(ma) == len(a_ops) and len(mb) == len(b_ops),
        "static": static_replay(trace, va, fa, vb, fb),
    }


def static_replay(trace, va, fa, vb, fb) -> dict | None:
    """The first pass's graph run again on the second pass's inputs (what a graph traced once
    would compute), beside the second pass's real output."""
    nodes = trace.nodes
    root_a = trace.passes[va.passes[0]].root
    root_b = trace.passes[vb.passes[0]].root
    inputs_a = [n for n in fa["leaves"] if not _is_literal(nodes[n])]
    inputs_b = [n for n in fb["leaves"] if not _is_literal(nodes[n])]
    by_obj = {nodes[n].obj: n for n in inputs_b}
    fresh_b = [n for n in inputs_b if nodes[n].obj not in {nodes[m].obj for m in inputs_a}]
    given: dict[int, np.ndarray] = {}
    for n in inputs_a:
        other = by_obj.get(nodes[n].obj)
        if other is None:  # a new input tensor: the next new one of the same shape
            other = next((m for m in fresh_b if nodes[m].shape == nodes[n].shape), None)
            if other is None:
                return None
            fresh_b.remove(other)
        given[n] = nodes[other].value
    try:
        value = evaluate(trace, fa["ops"], dict(given), float64=False)[root_a]
    except Exception:  # an op that cannot run again from the trace alone: no replay shown
        return None
    real = nodes[root_b].value
    same = value.shape == real.shape and bool(np.allclose(value, real, rtol=1e-5, atol=1e-6,
                                                          equal_nan=True))
    return {"static": values.value(value), "dynamic": values.value(real), "agree": same,
            "inputs": [[n, int(m)] for n, m in ((n, _key_of(given[n], nodes, inputs_b)) for n in inputs_a)]}


def _key_of(arr, nodes, candidates) -> int:
    for m in candidates:
        if nodes[m].value is arr:
            return m
    return -1


def _is_literal(leaf) -> bool:
    """A Python number the engine wrapped into a tensor (its name is the literal, ``2``)."""
    name = leaf.name
    return not leaf.requires_grad and leaf.shape == () and name is not None and not name.isidentifier()

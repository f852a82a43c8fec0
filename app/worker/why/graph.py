"""The parts of a trace a diagnosis walks: a tensor's nodes, what was computed from it, the
gradient of a backward pass on each edge, and a path between two nodes."""

from __future__ import annotations

from collections import deque

import numpy as np

from engine.trace import ancestry


def same_tensor(trace, node: int | None) -> set[int]:
    """The nodes of the tensor of ``node``: a leaf's nodes of its tensor object (a parameter gets a
    node after each optimizer step), else the node itself."""
    if node is None:
        return set()
    n = trace.nodes[node]
    if n.kind != "leaf":
        return {node}
    return {m.id for m in trace.nodes if m.kind == "leaf" and m.obj == n.obj}


def users(trace) -> dict[int, list[int]]:
    """node -> the edges that read its tensor."""
    out: dict[int, list[int]] = {}
    for e in trace.edges:
        out.setdefault(e.source, []).append(e.id)
    return out


def descendants(trace, starts: set[int]) -> set[int]:
    """``starts`` and every node computed from them."""
    use = users(trace)
    seen, todo = set(starts), list(starts)
    while todo:
        for e in use.get(todo.pop(), ()):
            t = trace.edges[e].target
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def reached(trace) -> set[int]:
    """The nodes some backward pass's root was computed from."""
    out: set[int] = set()
    for bp in trace.passes:
        if bp.root not in out:
            out |= ancestry(trace, bp.root)
    return out


def path(trace, starts: set[int], goal: int) -> tuple[list[int], list[int]]:
    """The nodes and edges of a shortest forward path from one of ``starts`` to ``goal`` (just
    ``goal`` when there is none)."""
    use = users(trace)
    came: dict[int, int | None] = {s: None for s in starts}
    todo = deque(starts)
    while todo:
        n = todo.popleft()
        if n == goal:
            break
        for e in use.get(n, ()):
            t = trace.edges[e].target
            if t not in came:
                came[t] = e
                todo.append(t)
    if goal not in came:
        return [goal], []
    nodes, edges, n = [goal], [], goal
    while came[n] is not None:
        e = came[n]
        edges.append(e)
        n = trace.edges[e].source
        nodes.append(n)
    return nodes[::-1], edges[::-1]


def sent_by_edge(bp) -> dict[int, np.ndarray]:
    """edge -> the gradient pass ``bp`` sent along it."""
    return {f.edge: f.grad for s in bp.steps if s.kind == "op" for f in s.sent if f.grad is not None}


def mean_abs(arr) -> float:
    """The mean absolute value of an array (0 for an empty one)."""
    a = np.asarray(arr)
    if a.size == 1:  # the same number without NumPy's reduction (a long chain asks once per op)
        return abs(float(a.reshape(-1)[0]))
    a = np.abs(a.astype(np.float64, copy=False))
    return float(a.mean()) if a.size else 0.0


def zero_share(arr) -> float:
    """The share of elements that are exactly 0."""
    a = np.asarray(arr)
    return float((a == 0).mean()) if a.size else 0.0


def finite(arr) -> bool:
    return bool(np.isfinite(np.asarray(arr, dtype=np.float64)).all())

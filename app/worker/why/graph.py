"""The parts of a trace a diagnosis walks: what was computed from a tensor, the nodes some pass's
loss was computed from, and a path between two nodes (``w``: the run's ``Walks``)."""

from __future__ import annotations

from collections import deque

import numpy as np


def descendants(w, starts: set[int]) -> set[int]:
    """``starts`` and every node computed from them."""
    use, edges = w.users(), w.trace.edges
    seen, todo = set(starts), list(starts)
    while todo:
        for e in use.get(todo.pop(), ()):
            t = edges[e].target
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def reached(w) -> set[int]:
    """The nodes some backward pass's root was computed from."""
    out: set[int] = set()
    for bp in w.trace.passes:
        if bp.root not in out:
            out |= w.ancestry(bp.root)
    return out


def path(w, starts: set[int], goal: int) -> tuple[list[int], list[int]]:
    """The nodes and edges of a shortest forward path from one of ``starts`` to ``goal`` (just
    ``goal`` when there is none)."""
    use, edges = w.users(), w.trace.edges
    came: dict[int, int | None] = {s: None for s in starts}
    todo = deque(starts)
    while todo:
        n = todo.popleft()
        if n == goal:
            break
        for e in use.get(n, ()):
            t = edges[e].target
            if t not in came:
                came[t] = e
                todo.append(t)
    if goal not in came:
        return [goal], []
    nodes, taken, n = [goal], [], goal
    while came[n] is not None:
        e = came[n]
        taken.append(e)
        n = edges[e].source
        nodes.append(n)
    return nodes[::-1], taken[::-1]


def finite(arr) -> bool:
    return bool(np.isfinite(np.asarray(arr, dtype=np.float64)).all())

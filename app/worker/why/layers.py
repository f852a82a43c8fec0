"""Layer by layer along a path: the dead units of each ReLU, and how the gradient's size changed
at each op from the loss to a tensor (the local factor, and a sigmoid's or tanh's derivative)."""

from __future__ import annotations

import numpy as np

from .graph import mean_abs, users


def relu_layers(trace, inside: set[int]) -> list[dict]:
    """Each ReLU node of ``inside``: how many of its inputs were ≤ 0 and, for a batch of rows, how
    many units (columns) were ≤ 0 on every row (dead)."""
    out = []
    for nid in sorted(inside):
        n = trace.nodes[nid]
        if n.kind != "op" or n.op != "relu":
            continue
        x = np.asarray(trace.nodes[trace.edges[n.inputs[0]].source].value)
        low = x <= 0
        layer = {"node": nid, "module": n.module, "line": n.line, "le0": int(low.sum()), "size": int(x.size)}
        if x.ndim >= 2:
            dead = low.reshape(-1, x.shape[-1]).all(axis=0)
            layer.update(dead=int(dead.sum()), units=int(x.shape[-1]))
        out.append(layer)
    return out


def scale_chain(trace, bp, ids: set[int], sent: dict) -> list[dict]:
    """From the loss to the tensor (``ids``), the chain of edges that carried the largest gradient:
    one link per op, with the mean |gradient| it received (``before``) and sent on (``after``)."""
    start = next((s.node for s in reversed(bp.steps) if s.node in ids and s.kind in ("leaf", "op")), None)
    if start is None:
        return []
    upstream = {s.node: s.upstream for s in bp.steps if s.kind == "op" and s.upstream is not None}
    use = users(trace)
    links, cur, seen = [], start, {start}
    while cur != bp.root:
        best = None
        for e in use.get(cur, ()):
            t = trace.edges[e].target
            if e in sent and t in upstream and t not in seen:
                size = mean_abs(sent[e])
                if best is None or size > best[0]:
                    best = (size, e, t)
        if best is None:
            break
        size, e, t = best
        seen.add(t)
        links.append(_link(trace, t, e, upstream[t], sent[e], size))
        cur = t
    return links[::-1]


def _link(trace, nid: int, edge: int, up, down, after: float) -> dict:
    """The link of op ``nid``: ``up`` the gradient it received, ``down`` the one it sent along
    ``edge`` (``after``: its mean size)."""
    n = trace.nodes[nid]
    before = mean_abs(up)
    link = {"node": nid, "edge": edge, "op": n.op, "module": n.module, "line": n.line,
            "before": before, "after": after, "factor": after / before if before else None}
    if n.op not in ("sigmoid", "tanh"):
        return link
    if np.size(up) == 1 and np.size(down) == 1 and np.shape(up) == np.shape(down):
        u, d = float(np.asarray(up).reshape(-1)[0]), float(np.asarray(down).reshape(-1)[0])
        link["derivative"] = d / u if u != 0 else None  # a scalar's, without NumPy's masking
        return link
    up, down = np.asarray(up, dtype=np.float64), np.asarray(down, dtype=np.float64)
    if up.shape == down.shape:
        ok = up != 0
        link["derivative"] = float((down[ok] / up[ok]).mean()) if ok.any() else None
    return link

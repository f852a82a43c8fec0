"""Layer by layer along a path: the dead units of each ReLU, and how the gradient's size changed
at each op from the loss to a tensor (the local factor, and a sigmoid's or tanh's derivative)."""

from __future__ import annotations

import numpy as np

from . import trim
from .walks import mean_abs


def relu_layers(trace, inside: set[int]) -> list[dict]:
    """Each ReLU node of ``inside`` (a deep model's first and last ones: ``trim``): how many of its
    inputs were ≤ 0 and, for a batch of rows, how many units (columns) were ≤ 0 on every row (dead)."""
    relus = [nid for nid in sorted(inside)
             if trace.nodes[nid].kind == "op" and trace.nodes[nid].op == "relu"]
    kept = trim.ends(len(relus))
    return trim.gapped({i: _relu(trace, relus[i]) for i in kept}, kept)


def _relu(trace, nid: int) -> dict:
    n = trace.nodes[nid]
    x = np.asarray(trace.nodes[trace.edges[n.inputs[0]].source].value)
    low = x <= 0
    layer = {"node": nid, "module": n.module, "line": n.line, "le0": int(low.sum()), "size": int(x.size)}
    if x.ndim >= 2:
        dead = low.reshape(-1, x.shape[-1]).all(axis=0)
        layer.update(dead=int(dead.sum()), units=int(x.shape[-1]))
    return layer


def scale_chain(w, bp, ids: set[int]) -> list[dict]:
    """From the loss to the tensor (``ids``), the chain of edges that carried the largest gradient:
    one link per op, with the mean |gradient| it received (``before``) and sent on (``after``).
    The links are shared by the run's diagnoses (``w``): do not change them."""
    start = next((s.node for s in reversed(bp.steps) if s.node in ids and s.kind in ("leaf", "op")), None)
    if start is None:
        return []
    links, cur, seen = [], start, {start}
    while cur != bp.root:
        hop = _hop(w, bp, cur)
        if hop is None or hop[1] in seen:
            break
        e, t = hop
        seen.add(t)
        key = (bp.index, e)
        if key not in w.links:
            w.links[key] = _link(w.trace, t, e, w.upstream(bp)[t], w.sent(bp)[e], w.sent_size(bp, e))
        links.append(w.links[key])
        cur = t
    return links[::-1]


def _hop(w, bp, cur: int) -> tuple[int, int] | None:
    """The edge from ``cur`` that carried the largest gradient of pass ``bp`` to an op that
    received one, and that op."""
    key = (bp.index, cur)
    if key not in w.hops:
        sent, upstream, edges = w.sent(bp), w.upstream(bp), w.trace.edges
        best = None
        for e in w.users().get(cur, ()):
            t = edges[e].target
            if e in sent and t in upstream:
                size = w.sent_size(bp, e)
                if best is None or size > best[0]:
                    best = (size, e, t)
        w.hops[key] = None if best is None else best[1:]
    return w.hops[key]


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

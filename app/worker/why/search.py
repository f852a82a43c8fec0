"""The cause of a suspicious gradient, found on the recorded backward pass: walked from the loss
toward the tensor, the first op whose own step made the gradient zero, non-finite, tiny or huge,
among the ops that declare that cause (engine/ops/causes.py); or, for a tensor the pass never
reached, the cut (``trace.cuts``) between it and the loss. ``w``: the run's ``Walks``."""

from __future__ import annotations

import numpy as np

from engine.ops.causes import can_cause

from . import trim
from .graph import descendants, finite, path, reached
from .layers import relu_layers, scale_chain


def finding(cause: str, op: str, at: int | None, nodes: list[int], edges: list[int], **facts) -> dict:
    return {"cause": cause, "op": op, "at": at, "path": nodes, "edges": edges, "facts": facts}


def on_path(w, bp, ids: set[int]) -> set[int]:
    """The nodes between the tensor (``ids``) and the pass's root: what carried its gradient."""
    return descendants(w, ids) & w.ancestry(bp.root) | ids


def unreached(w, ids: set[int], name: str) -> dict:
    """A tensor that requires grad, which no pass reached: the cut between it and the loss."""
    trace = w.trace
    below = descendants(w, ids)
    loss = reached(w)
    leaf_of = {n.obj: n.id for n in trace.nodes if n.kind == "leaf"}
    best = None
    for c in trace.cuts:
        if not (c.source in below or (c.source is None and c.source_name == name)):
            continue
        made = leaf_of.get(c.result) if c.result is not None else None
        rank = 0 if made is not None and made in loss else 1 if c.how == "item" else 2
        if best is None or rank < best[0]:
            best = (rank, c, made)
    if best is None:
        return finding("cut", "unused", None, sorted(ids), [])
    _, c, made = best
    nodes, edges = path(w, ids, c.source) if c.source is not None else (sorted(ids), [])
    nodes, edges = trim.path(trace, nodes, edges, (c.source,))
    if made is not None:
        nodes = nodes + [made]
    return finding("cut", c.how, c.source, nodes, edges, cut=c.index, made=made, ran=c.op, line=c.line,
                   src=c.source_name)


def created(trace, node: int | None) -> dict:
    """A tensor that does not require grad: the cut that made it, or its creation."""
    if node is not None and trace.nodes[node].kind == "leaf":
        obj = trace.nodes[node].obj
        for c in trace.cuts:
            if c.result == obj:
                nodes = [c.source, node] if c.source is not None else [node]
                return finding("cut", c.how, c.source, nodes, [], cut=c.index, made=node, ran=c.op,
                               line=c.line, src=c.source_name, subject_made=True)
    return finding("cut", "requires_grad", None, [node] if node is not None else [], [])


def reset(w, ids: set[int], bp) -> dict | None:
    """A ``zero_grad`` (or a change of ``.grad`` in place) after pass ``bp`` wrote the gradient."""
    trace, after = w.trace, False
    for kind, i in w.grad_events():
        if kind == "backward" and i == bp.index:
            after = True
        elif after and kind == "backward" and any(s.node in ids for s in trace.passes[i].steps):
            after = False
        elif after and kind == "zero_grad" and any(n in ids for n, _ in trace.zero_grads[i]):
            return finding("zeroed", "zero_grad", None, sorted(ids), [], event=i,
                           line=trace.zero_grad_lines[i] if i < len(trace.zero_grad_lines) else None)
        elif after and kind == "update" and trace.updates[i].grad and trace.updates[i].node in ids:
            u = trace.updates[i]
            return finding("zeroed", "zero_grad", None, sorted(ids), [], update=i, ran=u.op, line=u.line)
    return None


def zeroed(w, bp, ids: set[int]) -> dict | None:
    """The step that sent more zeros toward the tensor than it received: a hook, an op whose
    derivative is 0 everywhere, a mask (ReLU, clamp, where), else a factor (then the mask that
    made that factor zero, if one did); the first of its kind from the loss."""
    trace = w.trace
    inside = on_path(w, bp, ids)
    found: dict[int, tuple] = {}
    for rank, s, f in _zeroing(w, bp):
        if s.node in inside and (f is None or trace.edges[f.edge].source in inside):
            found.setdefault(rank, (s, f))
    if not found:
        return None
    rank = min(found)
    s, f = found[rank]
    nodes, edges = path(w, ids, s.node)
    if rank == 0:
        nodes, edges = trim.path(trace, nodes, edges, (s.node,))
        return finding("zeroed", "hook", s.node, nodes, edges, hook=s.hook, line=s.hook_line)
    g = np.asarray(f.grad)
    at = _zero_source(w, s.node) if rank == 3 else s.node
    if at in nodes:  # the mask lies on the tensor's own path: the path ends there
        k = nodes.index(at)
        nodes, edges = nodes[:k + 1], edges[:k]
    elif at != s.node:  # the mask made a factor of an op on the path: its path to that op too
        more, links = path(w, {at}, s.node)
        nodes = list(dict.fromkeys(nodes + more))
        edges = list(dict.fromkeys(edges + links))
    if at != s.node:  # the zeros came from the mask's output: count them there
        g = np.asarray(trace.nodes[at].value)
    layers = relu_layers(trace, inside | set(nodes))
    nodes, edges = trim.path(trace, nodes, edges, (at, s.node))
    return finding("cut" if rank == 1 else "zeroed", trace.nodes[at].op, at, nodes, edges,
                   zeros=int((g == 0).sum()), size=int(g.size), layers=layers)


def _zeroing(w, bp) -> list[tuple[int, object, object]]:
    """The steps of pass ``bp`` that sent more zeros than they received, in the pass's order, each
    with its rank (0 a hook, 1 an op that cut, 2 a mask, 3 a factor) and the gradient it sent (None
    for a hook); the same for every tensor the pass reached, so found once."""
    if bp.index in w.zeroing:
        return w.zeroing[bp.index]
    trace, zero_share, out = w.trace, w.zero_share, []
    for s in bp.steps:
        if s.kind == "hook" and s.grad_after is not None and s.grad_before is not None:
            if zero_share(s.grad_after) > zero_share(s.grad_before):
                out.append((0, s, None))
        if s.kind != "op" or s.upstream is None:
            continue
        op = trace.nodes[s.node].op
        for f in s.sent:
            if f.grad is None or not zero_share(f.grad) > zero_share(s.upstream):
                continue
            if can_cause(op, "cut") and not np.asarray(f.grad).any():
                out.append((1, s, f))
            elif can_cause(op, "zeroed"):
                out.append((2 if _mask(op) else 3, s, f))
    w.zeroing[bp.index] = out
    return out


def _mask(op: str) -> bool:
    """An op that zeroes elements by itself (a ReLU, clamp, where, an index), not as a factor."""
    return can_cause(op, "zeroed") and not can_cause(op, "explode") and not can_cause(op, "vanish")


def _zero_source(w, nid: int) -> int:
    """Op ``nid`` sent zeros as a factor (``h @ w`` with h zero): the nearest mask op whose output
    held zeros among what made its inputs, else ``nid`` itself."""
    trace = w.trace
    n = trace.nodes[nid]
    for e in n.inputs:
        src = trace.edges[e].source
        if w.zero_share(trace.nodes[src].value) == 0:
            continue
        for a in sorted(w.ancestry(src), reverse=True):
            m = trace.nodes[a]
            if m.kind == "op" and _mask(m.op) and w.zero_share(m.value) > 0:
                return a
    return nid


def nonfinite(w, bp, ids: set[int]) -> dict | None:
    """The first op whose output (forward) or whose sent gradient (backward) became inf or NaN from
    finite inputs."""
    trace = w.trace
    for nid in sorted(w.ancestry(bp.root)):
        n = trace.nodes[nid]
        if n.kind != "op" or finite(n.value) or not can_cause(n.op, "nonfinite"):
            continue
        ins = [trace.nodes[trace.edges[e].source].value for e in n.inputs]
        if all(finite(v) for v in ins):
            return _blame(w, ids, bp, nid, n.value, ins, "forward")
    inside = on_path(w, bp, ids)
    for s in bp.steps:
        if s.kind != "op" or s.node not in inside or s.upstream is None or not finite(s.upstream):
            continue
        n = trace.nodes[s.node]
        for f in s.sent:
            if f.grad is not None and not finite(f.grad) and can_cause(n.op, "nonfinite"):
                ins = [trace.nodes[trace.edges[e].source].value for e in n.inputs]
                return _blame(w, ids, bp, s.node, f.grad, ins, "backward")
    return None


def _blame(w, ids, bp, nid, bad, ins, where: str) -> dict:
    """A non-finite finding at node ``nid``: the input values where ``bad`` is not finite."""
    trace = w.trace
    nodes, edges = path(w, ids, nid)
    if len(nodes) == 1 and nid not in ids:  # another branch of the loss: from it to the loss
        nodes, edges = path(w, {nid}, bp.root)
    nodes, edges = trim.path(trace, nodes, edges, (nid,))
    bad = np.asarray(bad)
    where_bad = ~np.isfinite(bad.astype(np.float64))
    shown = []
    for v in ins:
        v = np.asarray(v)
        picked = v[where_bad] if v.shape == bad.shape else v.reshape(-1)
        shown.append([float(x) for x in picked.reshape(-1)[:3]])
    return finding("nonfinite", trace.nodes[nid].op, nid, nodes, edges, where=where, inputs=shown,
                   count=int(where_bad.sum()))


def scaled(w, bp, ids: set[int], symptom: str, limit: float, mean: float) -> dict | None:
    """Tiny or huge (``mean``: the tensor's mean |grad|): along the chain that carried most of the
    gradient from the loss to the tensor, the op where the gradient's mean size crossed ``limit``."""
    trace = w.trace
    cause = "vanish" if symptom == "tiny" else "explode"
    chain = scale_chain(w, bp, ids)
    if not chain:
        return None
    crossed = None
    for k, link in enumerate(chain):
        over = link["after"] < limit if cause == "vanish" else link["after"] > limit
        if over:
            crossed = k
            break
    if crossed is None:
        crossed = len(chain) - 1
    pick = None
    for k in range(crossed, -1, -1):
        if can_cause(trace.nodes[chain[k]["node"]].op, cause):
            pick = k
            break
    if pick is None:
        return None
    nid = chain[pick]["node"]
    kept = trim.ends(len(chain), range(pick - trim.AROUND, crossed + trim.AROUND + 1))
    crossed = kept.index(crossed)
    chain = trim.gapped(chain, kept)
    nodes = [link["node"] for link in chain][::-1]
    edges = [link["edge"] for link in chain][::-1]
    src = trace.edges[edges[0]].source if edges else None
    return finding(cause, trace.nodes[nid].op, nid, ([src] if src is not None else []) + nodes, edges,
                   chain=chain, limit=limit, crossed=crossed, mean=mean)

"""The bytes a run's graphs hold for backward, over the run's timeline.

A grad_fn keeps the tensors its rules need (``OpNode.kept``). One tensor kept by several
grad_fns (``x`` in ``x * x``, a layer's input read by two ops) is one buffer: it is counted once,
while any grad_fn still keeps it. The bytes change at three kinds of moments:
- an op is recorded: its grad_fn starts keeping its tensors;
- a backward pass without ``retain_graph`` runs a grad_fn's rule: the grad_fn releases them
  (PyTorch frees each node's saved tensors right after its rule, so the count falls step by step);
- the program lets go of a graph (nothing refers to its grad_fns any more, e.g. ``loss`` is bound
  to the next iteration's loss): they are freed with it (``Trace.frees``).
Under ``torch.no_grad()`` no grad_fn is made, so nothing is kept.
"""

from __future__ import annotations

import numpy as np

from engine.ops.table import SAVED_INPUT

MAX_POINTS = 400  # a long loop's curve is thinned to this many points (the peaks are kept)


def buffers(node) -> list[tuple[int | tuple, int]]:
    """The buffers op ``node``'s grad_fn keeps: (identity, bytes). A kept input or output is the
    tensor of the graph node that made it (its identity: that node's id); an extra (a mask,
    indices) belongs to the op alone (its identity: ``(op node id, saved name)``)."""
    out = []
    saved = node.saved
    for key in node.kept:
        for s in reversed(saved):  # the last saved of that name, as a dict by name would give
            if s.name == key:
                out.append((s.node if s.node is not None else (node.id, key), s.value.nbytes))
                break
    for s in saved:
        if s.name != "out" and s.name not in SAVED_INPUT:
            out.append(((node.id, s.name), s.value.nbytes))
    return out


class _Points:
    """The curve's points in program order (kind, node, pass, step), and the point at which each
    grad_fn starts keeping its tensors and the first point after it let them go."""

    def __init__(self):
        self.kind: list[str] = []
        self.node: list[int | None] = []
        self.bpass: list[int | None] = []
        self.step: list[int | None] = []
        self.kept_at: dict[int, int] = {}
        self.released_at: dict[int, int] = {}

    def add(self, kind: str, node: int | None = None, bpass: int | None = None, step: int | None = None):
        self.kind.append(kind)
        self.node.append(node)
        self.bpass.append(bpass)
        self.step.append(step)

    def keep(self, nids: list[int]) -> None:
        """Ops recorded one after the other: their grad_fns start keeping their tensors."""
        if not nids:
            return
        first = len(self.kind)
        self.kept_at.update(zip(nids, range(first, first + len(nids))))
        self.kind.extend(["op"] * len(nids))
        self.node.extend(nids)
        self.bpass.extend([None] * len(nids))
        self.step.extend([None] * len(nids))

    def release(self, nid: int) -> bool:
        """Let node ``nid``'s tensors go before the next point (False: it keeps none)."""
        if nid not in self.kept_at or nid in self.released_at:
            return False
        self.released_at[nid] = len(self.kind)
        return True

    def steps(self, bp, frees: bool) -> None:
        """The points of backward pass ``bp`` that makes no op (``frees``: each op step lets its
        node's tensors go), added in one go."""
        first = len(self.kind)
        steps = bp.steps
        self.kind.extend(["step"] * len(steps))
        self.node.extend([s.node for s in steps])
        self.bpass.extend([bp.index] * len(steps))
        self.step.extend([s.index for s in steps])
        if frees:
            kept_at, released_at = self.kept_at, self.released_at
            for at, s in enumerate(steps, first):
                nid = s.node
                if s.kind == "op" and nid in kept_at and nid not in released_at:
                    released_at[nid] = at


def _walk(trace) -> _Points:
    """Walk the run's events: ops recorded, backward steps (which free their node's tensors unless
    the pass keeps the graph), graphs the program let go of."""
    pts = _Points()
    nodes = trace.nodes
    made_at: dict[tuple[int, int], list[int]] = {}
    passes_making: set[int] = set()
    for n in nodes:
        if n.kind == "op" and n.made_by is not None:
            made_at.setdefault(tuple(n.made_by), []).append(n.id)
            passes_making.add(n.made_by[0])
    frees = sorted(trace.frees)
    fi = 0

    def free_until(position):
        nonlocal fi
        while fi < len(frees) and frees[fi][0] <= position:
            nid = frees[fi][1]
            fi += 1
            if pts.release(nid):
                pts.add("free", nid)

    pts.add("start")
    recorded: list[int] = []  # ops recorded since the last other event, not yet added
    for position, (kind, index) in enumerate(trace.events):
        if fi < len(frees) and frees[fi][0] <= position:
            pts.keep(recorded)
            recorded = []
            free_until(position)
        if kind == "op":
            if nodes[index].made_by is None:
                recorded.append(index)
            continue
        pts.keep(recorded)
        recorded = []
        if kind == "backward":
            bp = trace.passes[index]
            if bp.index not in passes_making:
                pts.steps(bp, not bp.retain_graph)
                continue
            for s in bp.steps:
                pts.keep(made_at.get((bp.index, s.index), []))
                if s.kind == "op" and not bp.retain_graph:
                    pts.release(s.node)
                pts.add("step", s.node, bp.index, s.index)
            pts.keep(made_at.get((bp.index, len(bp.steps)), []))
    pts.keep(recorded)
    free_until(len(trace.events))
    pts.add("end")
    return pts


def _bytes_held(trace, pts: _Points) -> np.ndarray:
    """The bytes kept at each point: a buffer counts from the first grad_fn that keeps it until
    the last one keeping it lets go (its count of keepers goes 0 → 1 and back to 0)."""
    own: dict[tuple, int] = {}  # an op's own buffers get codes below 0, beside the node ids
    buf, kept, gone, size = [], [], [], []  # per buffer a grad_fn keeps: where from and until
    released_at = pts.released_at
    for nid, at in pts.kept_at.items():
        until = released_at.get(nid, -1)
        for ident, nbytes in buffers(trace.nodes[nid]):
            buf.append(ident if type(ident) is int else own.setdefault(ident, -1 - len(own)))
            kept.append(at)
            gone.append(until)
            size.append(nbytes)
    change = np.zeros(len(pts.kind), dtype=np.int64)
    if buf:
        buf_a, gone_a, size_a = np.array(buf), np.array(gone), np.array(size, dtype=np.int64)
        let_go = gone_a >= 0
        buf_a = np.concatenate([buf_a, buf_a[let_go]])
        pos = np.concatenate([np.array(kept), gone_a[let_go]])
        delta = np.concatenate([np.ones(len(buf), dtype=np.int64), np.full(int(let_go.sum()), -1)])
        size_a = np.concatenate([size_a, size_a[let_go]])
        order = np.lexsort((pos, buf_a))  # by buffer, then in program order (keeps before lets go)
        buf_a, pos, delta, size_a = buf_a[order], pos[order], delta[order], size_a[order]
        total = np.cumsum(delta)
        first = np.flatnonzero(np.r_[True, buf_a[1:] != buf_a[:-1]])
        group = np.repeat(np.arange(len(first)), np.diff(np.r_[first, len(buf_a)]))
        after = total - (total - delta)[first][group]  # the buffer's keepers after this change
        up = (delta > 0) & (after == 1)
        down = (delta < 0) & (after == 0)
        n = len(change)
        moved = np.bincount(pos[up], size_a[up], n) - np.bincount(pos[down], size_a[down], n)
        change += moved.astype(np.int64)  # (whole numbers of bytes: exact in float64)
    return np.cumsum(change)


def memory_timeline(trace) -> dict:
    """The points of the curve, in program order: each ``{kind, bytes, node, pass, step}`` where
    ``kind`` is "op" (an op recorded), "step" (a backward step; it frees its node's tensors unless
    the pass keeps the graph), "free" (the program let go of a graph) or "end" (the last point)."""
    pts = _walk(trace)
    held = _bytes_held(trace, pts)
    shown = [{"kind": pts.kind[i], "bytes": int(held[i]), "node": pts.node[i], "pass_index": pts.bpass[i],
              "step": pts.step[i]} for i in _thin(held)]
    return {"points": shown, "peak": int(held.max()), "end": int(held[-1]), "total_points": len(held)}


def _thin(held: np.ndarray) -> list[int]:
    """The indices of at most MAX_POINTS points: in each bucket its highest and lowest point (the
    first of equals), in order, and the last point."""
    n = len(held)
    if n <= MAX_POINTS:
        return list(range(n))
    size = -(-n // (MAX_POINTS // 2))
    whole = n - n % size
    starts = np.arange(0, n, size)
    buckets = held[:whole].reshape(-1, size)
    hi, lo = list(buckets.argmax(axis=1)), list(buckets.argmin(axis=1))
    if whole < n:
        hi.append(held[whole:].argmax())
        lo.append(held[whole:].argmin())
    out = []
    for start, h, low in zip(starts.tolist(), hi, lo):
        out.extend(start + j for j in sorted({int(h), int(low)}))
    if out[-1] != n - 1:
        out.append(n - 1)
    return out

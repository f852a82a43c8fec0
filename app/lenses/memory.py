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

from ..package import from_engine

(SAVED_INPUT,) = from_engine("ops.table", "SAVED_INPUT")

MAX_POINTS = 400  # a long loop's curve is thinned to this many points (the peaks are kept)


def buffers(node) -> list[tuple[tuple, int]]:
    """The buffers op ``node``'s grad_fn keeps: (identity, bytes). A kept input or output is the
    tensor of the graph node that made it; an extra (a mask, indices) belongs to the op alone."""
    out = []
    by_name = {s.name: s for s in node.saved}
    for key in node.kept:
        s = by_name.get(key)
        if s is None:
            continue
        ident = ("node", s.node) if s.node is not None else ("own", node.id, key)
        out.append((ident, int(s.value.nbytes)))
    for s in node.saved:
        if s.name != "out" and s.name not in SAVED_INPUT:
            out.append((("own", node.id, s.name), int(s.value.nbytes)))
    return out


class _Held:
    """How many grad_fns keep each buffer, and the bytes of those kept at least once."""

    def __init__(self):
        self.count: dict[tuple, int] = {}
        self.bytes = 0
        self.holding: dict[int, list] = {}  # node id -> its buffers, while it keeps them

    def keep(self, node) -> None:
        bufs = buffers(node)
        self.holding[node.id] = bufs
        for ident, nbytes in bufs:
            c = self.count.get(ident, 0)
            if c == 0:
                self.bytes += nbytes
            self.count[ident] = c + 1

    def release(self, nid: int) -> bool:
        bufs = self.holding.pop(nid, None)
        if bufs is None:
            return False
        for ident, nbytes in bufs:
            c = self.count[ident] - 1
            if c == 0:
                self.bytes -= nbytes
                del self.count[ident]
            else:
                self.count[ident] = c
        return True


def memory_timeline(trace) -> dict:
    """The points of the curve, in program order: each ``{kind, bytes, node, pass, step}`` where
    ``kind`` is "op" (an op recorded), "step" (a backward step; it frees its node's tensors unless
    the pass keeps the graph), "free" (the program let go of a graph) or "end" (the last point)."""
    held = _Held()
    points: list[tuple] = []  # (kind, bytes, node, pass, step): made dicts once thinned
    nodes = trace.nodes
    made_at: dict[tuple[int, int], list[int]] = {}
    for n in nodes:
        if n.kind == "op" and n.made_by is not None:
            made_at.setdefault(tuple(n.made_by), []).append(n.id)
    frees = sorted(trace.frees)
    fi = 0

    def point(kind, node=None, bpass=None, step=None):
        points.append((kind, held.bytes, node, bpass, step))

    def op(nid):
        held.keep(nodes[nid])
        point("op", node=nid)

    def free_until(position):
        nonlocal fi
        while fi < len(frees) and frees[fi][0] <= position:
            nid = frees[fi][1]
            fi += 1
            if held.release(nid):
                point("free", node=nid)

    point("start")
    for position, (kind, index) in enumerate(trace.events):
        free_until(position)
        if kind == "op":
            if nodes[index].made_by is None:
                op(index)
        elif kind == "backward":
            bp = trace.passes[index]
            for s in bp.steps:
                for nid in made_at.get((bp.index, s.index), ()):
                    op(nid)
                if s.kind == "op" and not bp.retain_graph:
                    held.release(s.node)
                point("step", node=s.node, bpass=bp.index, step=s.index)
            for nid in made_at.get((bp.index, len(bp.steps)), ()):
                op(nid)
    free_until(len(trace.events))
    point("end")
    peak = max(p[1] for p in points)
    shown = [{"kind": k, "bytes": b, "node": n, "pass_index": bp, "step": st}
             for k, b, n, bp, st in _thin(points)]
    return {"points": shown, "peak": peak, "end": held.bytes, "total_points": len(points)}


def _thin(points: list[tuple]) -> list[tuple]:
    """At most MAX_POINTS points: in each bucket its highest and lowest point, in order."""
    if len(points) <= MAX_POINTS:
        return points
    size = -(-len(points) // (MAX_POINTS // 2))
    out = []
    for i in range(0, len(points), size):
        chunk = points[i:i + size]
        hi = max(range(len(chunk)), key=lambda j: chunk[j][1])
        lo = min(range(len(chunk)), key=lambda j: chunk[j][1])
        out.extend(chunk[j] for j in sorted({hi, lo}))
    if out[-1] is not points[-1]:
        out.append(points[-1])
    return out

"""The pieces a drawing is laid out in: the view itself and each open loop (or chunk of a loop's
iterations, or segment), each one ``dot`` graph of its own, cached by its structure.

Inside a unit: the nodes shown in it (an open module call is drawn in the unit around it), the
closed parts as boxes, and the open loops inside it as frames, sized to hold their own drawing.
An edge that enters a frame ends at a ghost (a dashed copy of its source, beside its use), one
that leaves it starts at a small port; a leaf used by more than ``GHOST_FAN`` things in a unit is
drawn once with a ghost beside each use, so no long edges cross the drawing (``dot`` spends most
of its time routing those). Edges on the unit's longest path pull harder than the others, so a
chain stays straight with its ghosts and inputs beside it (app/drawing/unit_dot.py writes each unit's DOT
text). A drawn edge that stands for several edges of the graph (into a box, across a frame) is an
element ``s<k>``; ``segments`` lists the edges of each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..folding.level import GHOST_FAN

UNIT_KINDS = ("loop", "chunk", "segment")
FRAME_PAD = 8  # points around a frame's drawing
FRAME_HEAD = 22  # points for the frame's title


@dataclass
class Segment:
    """One drawn edge of a unit: element keys ``n<id>`` (node), ``p<k>`` (box or frame),
    ``g<k>`` (ghost), ``o<k>`` (port)."""

    src: str
    dst: str
    edges: list[int]
    targets: list[int]  # each edge's target node
    shape: list[int]
    needs_grad: bool
    direct: bool = False  # an edge between two nodes of this unit, drawn as it is
    output: int | None = None  # the output of a source of several its edges carry (None: one output)

    def element_id(self, counter: list[int], segments: dict) -> str:
        """``e<id>`` for the piece of one edge that ends at its own target, else a new ``s<k>``
        (recorded in ``segments`` with the edges it stands for)."""
        if len(self.edges) == 1 and self.dst == f"n{self.targets[0]}":
            return f"e{self.edges[0]}"
        sid = f"s{counter[0]}"
        counter[0] += 1
        segments[sid] = list(self.edges)
        return sid


@dataclass
class Unit:
    """One laid-out piece: the view (``part`` None) or an open loop, chunk or segment."""

    part: str | None
    parent: Unit | None = None
    nodes: list[int] = field(default_factory=list)
    boxes: list[str] = field(default_factory=list)
    frames: list[Unit] = field(default_factory=list)
    ghosts: list[str] = field(default_factory=list)  # ghost k copies this ref
    ports: int = 0
    segments: list[Segment] = field(default_factory=list)
    height: int = 0  # 0: no frames inside
    port_of: dict[str, str] = field(default_factory=dict)  # source key -> its port's key
    dropped: set[str] = field(default_factory=set)  # ports no edge leaves by any more (see _spread)
    segment_at: dict[tuple, int] = field(default_factory=dict)  # (src, dst) -> index in segments
    # filled when the DOT text is written (placeholders p/r/t/u/q<k> -> element ids)
    dot: str = ""
    node_ids: list[int] = field(default_factory=list)
    part_ids: list[str] = field(default_factory=list)
    ghost_ids: list[str] = field(default_factory=list)
    ghost_keys: list[str] = field(default_factory=list)  # placeholder t<k> -> its ghost's key g<j>
    edge_ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    # element placeholder (p/r/t<k>) -> its label lines as written in the DOT text and as shown
    relabel: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


def plan_units(nodes: dict, edges: dict, parts: dict, lv) -> list[Unit]:
    """The units of a view at level ``lv`` (folding.Level), innermost first (a frame's drawing is
    laid out before the unit that holds it)."""
    units: dict[str | None, Unit] = {None: Unit(None)}

    def unit_of(pid: str | None) -> str | None:
        while pid is not None:
            if pid in units:
                return pid
            pid = parts[pid].get("parent")
        return None

    for pid in sorted(lv.open, key=_num):
        if parts[pid].get("kind") in UNIT_KINDS:
            units[pid] = Unit(pid)
    for pid, u in units.items():
        if pid is not None:
            u.parent = units[unit_of(parts[pid].get("parent"))]
            u.parent.frames.append(u)
    for nid in lv.nodes:
        units[unit_of(nodes[nid].get("part"))].nodes.append(nid)
    for pid in lv.boxes:
        units[unit_of(parts[pid].get("parent"))].boxes.append(pid)

    def home(ref: str) -> Unit:  # the unit a node or a closed part's box is drawn in
        if ref[0] == "n":
            return units[unit_of(nodes[int(ref[1:])].get("part"))]
        return units[unit_of(parts[ref].get("parent"))]

    crossings: dict[int, list] = {}  # id(unit) -> [(source ref, destination key, segment fields)]
    for eid in lv.edges:
        e = edges[eid]
        _connect(units, home, crossings, f"n{e['source']}", f"n{e['target']}", [eid], [e["target"]],
                 e["shape"], e["needs_grad"], True)
    for ln in lv.links:
        _connect(units, home, crossings, ln.source, ln.target, ln.edges, ln.targets, ln.shape, ln.needs_grad,
                 False)
    for u in units.values():
        _spread(u, units, edges)
    ordered = sorted(units.values(), key=lambda u: -_depth(u))
    for u in ordered:
        _ghosts(u, nodes, crossings.get(id(u), []))
        u.height = 1 + max((f.height for f in u.frames), default=-1)
        for s in u.segments:  # the output its edges carry, when they all carry the same one (a link over
            outputs = {edges[e].get("output") if e in edges else None for e in s.edges}  # a box: not drawn)
            s.output = outputs.pop() if len(outputs) == 1 else None
    return sorted(units.values(), key=lambda u: u.height)


def _num(pid: str) -> int:
    return int(pid[1:])


def _depth(u: Unit) -> int:
    d = 0
    while u.parent is not None:
        u, d = u.parent, d + 1
    return d


def _chain(u: Unit) -> list[Unit]:
    out = [u]
    while u.parent is not None:
        u = u.parent
        out.append(u)
    return out


def _connect(units, home, crossings, a: str, b: str, members, targets, shape, needs_grad, direct) -> None:
    """Draw the edges ``members`` from ``a`` to ``b``: a port in each frame it leaves, a segment
    in the innermost unit holding both, and a ghost of ``a`` in each frame it enters."""
    up = _chain(home(a))
    down = _chain(home(b))
    shared = {id(u) for u in up} & {id(u) for u in down}
    cur = a
    for x in up:
        if id(x) in shared:
            top = x
            break
        port = _port(x, cur)
        _add(x, Segment(cur, port, list(members), list(targets), shape, needs_grad))
        cur = x.part
    path = []
    for y in down:
        if y is top:
            break
        path.append(y)
    path.reverse()
    dst = path[0].part if path else b
    plain = direct and not path and cur == a
    _add(top, Segment(cur, dst, list(members), list(targets), shape, needs_grad, plain))
    for i, y in enumerate(path):
        into = path[i + 1].part if i + 1 < len(path) else b
        crossings.setdefault(id(y), []).append((a, into, list(members), list(targets), shape, needs_grad))


def _port(u: Unit, src: str) -> str:
    """The port of ``u`` that ``src``'s edges leave by (one per source)."""
    key = u.port_of.get(src)
    if key is None:
        key = u.port_of[src] = f"o{u.ports}"
        u.ports += 1
    return key


def _add(u: Unit, seg: Segment) -> None:
    """Add a segment, joined with one between the same two elements unless it is a plain edge."""
    if not seg.direct:
        index = u.segment_at
        k = index.get((seg.src, seg.dst))
        if k is not None:
            old = u.segments[k]
            old.edges.extend(seg.edges)
            old.targets.extend(seg.targets)
            old.needs_grad = old.needs_grad or seg.needs_grad
            if old.shape != seg.shape:
                old.shape = []
            return
        index[(seg.src, seg.dst)] = len(u.segments)
    u.segments.append(seg)


def _spread(u: Unit, units: dict, edges: dict) -> None:
    """A frame or a closed box whose edges go to many nodes of ``u`` (a loop's results summed
    after it, one by one) would have ``dot`` route each of them across the ranks between, as a
    shared leaf's do: each such edge starts instead at a ghost beside its use, of the node inside
    the frame it comes from (that node's own edge to the frame's border goes) or of the box."""
    targets: dict[str, set] = {}
    for seg in u.segments:
        if seg.src[0] == "p" and seg.dst[0] == "n":
            targets.setdefault(seg.src, set()).add(seg.dst)
    for src, dsts in targets.items():
        if len(dsts) <= GHOST_FAN:
            continue
        inner = units.get(src)  # the frame's own drawing; None: a closed box
        for seg in u.segments:
            if seg.src != src or seg.dst[0] != "n":
                continue
            copy = src
            if inner is not None:
                sources = {f"n{edges[e]['source']}" for e in seg.edges}
                if len(sources) != 1 or not _drop_port(inner, next(iter(sources))):
                    continue
                (copy,) = sources
            seg.src = f"g{len(u.ghosts)}"
            u.ghosts.append(copy)
            seg.direct = False


def _drop_port(inner: Unit, src: str) -> bool:
    """Take away the piece of ``src``'s edges from ``src`` to its port in the frame ``inner`` (the
    edges leave from a ghost outside instead); False when ``src`` is not drawn in ``inner`` itself."""
    port = inner.port_of.get(src)
    if port is None or int(src[1:]) not in inner.nodes:
        return False
    inner.segments = [seg for seg in inner.segments if not (seg.src == src and seg.dst == port)]
    inner.segment_at = {(seg.src, seg.dst): k for k, seg in enumerate(inner.segments) if not seg.direct}
    inner.dropped.add(port)
    return True


def _ghosts(u: Unit, nodes: dict, incoming: list) -> None:
    """Ghosts for what enters ``u`` from outside, and for its own leaves with many uses."""
    by_source: dict[str, list] = {}
    for a, into, members, targets, shape, needs_grad in incoming:
        by_source.setdefault(a, []).append((into, members, targets, shape, needs_grad))
    for a, uses in by_source.items():
        into_all = {into for into, *_ in uses}
        # a ghost beside each use when there are many, or when one of them is a big frame or a box
        # (an edge from one shared ghost would have to go round it)
        many = len(into_all) > GHOST_FAN or (len(into_all) > 1 and any(d[0] == "p" for d in into_all))
        ghost_at: dict[str, str] = {}  # destination -> its ghost (one for all of them when few)
        for into, members, targets, shape, needs_grad in uses:
            key = into if many else ""
            g = ghost_at.get(key)
            if g is None:
                g = ghost_at[key] = f"g{len(u.ghosts)}"
                u.ghosts.append(a)
            _add(u, Segment(g, into, members, targets, shape, needs_grad))
    leaves = {f"n{n}" for n in u.nodes if nodes[n].get("kind") == "leaf"}
    uses: dict[str, set] = {}
    for s in u.segments:
        if s.src in leaves:
            uses.setdefault(s.src, set()).add(s.dst)
    for leaf, dsts in uses.items():
        if len(dsts) <= GHOST_FAN:
            continue
        for s in u.segments:
            if s.src == leaf:
                s.src = f"g{len(u.ghosts)}"
                u.ghosts.append(leaf)
                s.direct = False

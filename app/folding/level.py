"""What a view shows when some of its parts are open: the level of a drawing.

Works on plain data shaped like the layout input (``schemas.LayoutInput``): nodes by id (each
with the innermost ``part`` it belongs to), edges by id, parts by id (each with its ``parent``),
and links (edges that join something inside a part whose contents are not known here). The worker
runs it on the whole trace; the server on what the page sent back.

- A part is drawn open when it and every part around it is in the open set; a closed part whose
  surroundings are open is drawn as a box; everything inside a closed part is hidden.
- An edge between two shown nodes is drawn as it is; an edge with an end hidden in a box is drawn
  between the box and the other end, one link for all the edges between the same two things.
- ``choose_open`` picks the open set for a budget of shown nodes and boxes: parts that show the
  same structure (the same layer, called many times) open together or not at all.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

AUTO_BUDGET = 300  # nodes and boxes shown when a run is first drawn ("auto")
ALL_BUDGET = 10_000  # the most shown for "every op" (or when the user opens parts)
GHOST_FAN = 3  # a source with more uses than this in a unit gets a ghost beside each


@dataclass
class Link:
    """Edges between two drawn things, at least one of them a box: ``source`` and ``target`` are
    refs, ``"n<id>"`` for a node, ``"p<k>"`` for a part."""

    source: str
    target: str
    shape: list[int]
    needs_grad: bool
    edges: list[int] = field(default_factory=list)
    targets: list[int] = field(default_factory=list)  # each member edge's target node

    def data(self) -> dict:
        return {"source": self.source, "target": self.target, "shape": self.shape,
                "needs_grad": self.needs_grad, "edges": self.edges, "targets": self.targets}


@dataclass
class Level:
    """What one view shows at one open set."""

    nodes: list[int]  # nodes shown
    boxes: list[str]  # closed parts shown as boxes
    open: list[str]  # parts shown open (with all their surroundings open)
    edges: list[int]  # edges between two nodes shown
    links: list[Link]  # edges with an end in a box


def ancestors(parts: dict, pid: str | None):
    """``pid`` and the parts around it, innermost first."""
    while pid is not None:
        yield pid
        pid = parts[pid].get("parent")


def level(nodes: dict, edges, parts: dict, node_ids, edge_ids, open_set, links: list[dict] = ()) -> Level:
    """What the view of ``node_ids`` and ``edge_ids`` shows with the parts ``open_set`` open.
    ``edges``: edge dicts by id, or a function of an edge id giving (source, target, shape,
    needs_grad). ``links``: edges of hidden nodes, as refs to what holds them (kept, and joined
    into the links)."""
    open_set = set(open_set)
    box_of: dict[str | None, str | None] = {None: None}  # part -> the closed part that hides it

    def hiding(pid: str | None) -> str | None:
        """The outermost closed part around ``pid`` (or ``pid`` itself), None if all are open."""
        if pid in box_of:
            return box_of[pid]
        chain = list(ancestors(parts, pid))
        box = None
        for p in reversed(chain):  # outermost first
            if p in box_of:
                box = box_of[p]
            elif box is None and p not in open_set:
                box = p
            box_of[p] = box
        return box

    shown, boxes, opened = [], {}, {}
    node_box: dict[int, str | None] = {}
    for nid in node_ids:
        part = nodes[nid].get("part")
        box = node_box[nid] = box_of[part] if part in box_of else hiding(part)
        if box is None:
            shown.append(nid)
    for pid in parts:
        box = hiding(pid)
        if box == pid:
            boxes[pid] = None
        elif box is None:
            opened[pid] = None

    def fields(eid: int) -> tuple:
        e = edges[eid]
        return e["source"], e["target"], e["shape"], e["needs_grad"]

    if callable(edges):
        fields = edges  # noqa: F811 - the caller reads its own edges
    plain, joined = [], {}
    for eid in edge_ids:
        source, target, shape, needs_grad = fields(eid)
        sb, tb = node_box.get(source), node_box.get(target)
        if sb is None and tb is None:
            plain.append(eid)
            continue
        s = f"n{source}" if sb is None else sb
        t = f"n{target}" if tb is None else tb
        if s != t:
            _join(joined, s, t, shape, needs_grad, [eid], [target])
    for ln in links:
        s, t = _rehide(ln["source"], nodes, parts, hiding), _rehide(ln["target"], nodes, parts, hiding)
        if s != t:
            _join(joined, s, t, ln["shape"], ln["needs_grad"], ln["edges"], ln["targets"])
    return Level(nodes=shown, boxes=list(boxes), open=list(opened), edges=plain, links=list(joined.values()))


def _rehide(ref: str, nodes: dict, parts: dict, hiding) -> str:
    if ref[0] == "n":
        nid = int(ref[1:])
        box = hiding(nodes[nid].get("part")) if nid in nodes else None
        return ref if box is None else box
    box = hiding(ref) if ref in parts else None
    return box or ref


def _join(joined: dict, s: str, t: str, shape, needs_grad: bool, members, targets) -> None:
    ln = joined.get((s, t))
    if ln is None:
        ln = joined[(s, t)] = Link(s, t, list(shape), needs_grad)
    elif list(shape) != ln.shape:
        ln.shape = []  # tensors of several shapes: no single shape to write
    ln.needs_grad = ln.needs_grad or needs_grad
    ln.edges.extend(members)
    ln.targets.extend(targets)


def is_repeat(p: dict) -> bool:
    """Is part ``p`` a run of identical module calls (a loop whose ``type_name`` names the classes
    repeated; app/folding/parts.py), not a loop of the program?"""
    return p.get("kind") == "loop" and bool(p.get("type_name"))


def choose_open(parts: dict, top: list[str], shown: int, budget: int, chunks: bool = False) -> set[str]:
    """The parts to open so that about ``budget`` nodes and boxes are shown, starting from the
    view's own ``shown`` members and ``top`` parts: outer parts before inner ones, small before
    large, and parts with the same structure (``key``) under the same parent all together. A loop
    with so many iterations that they are grouped in chunks, and a run of identical layers
    (``is_repeat``: one box says what it repeats), stay closed (the user opens them) unless
    ``chunks``."""
    children: dict[str | None, list[str]] = {}
    for pid, p in parts.items():
        children.setdefault(p.get("parent"), []).append(pid)
    chunked = set() if chunks else {p.get("parent") for p in parts.values() if p.get("kind") == "chunk"}
    if not chunks:
        chunked.update(pid for pid, p in parts.items() if is_repeat(p))
    opened: set[str] = set()
    heap: list = []
    tick = 0

    def offer(pids: list[str], depth: int) -> None:
        nonlocal tick
        groups: dict[str, list[str]] = {}
        for pid in pids:
            kind = parts[pid].get("kind")
            if pid not in chunked and (chunks or kind != "chunk"):
                # chunks of one loop open one by one: all of a long loop would be too much at once
                key = pid if kind == "chunk" else parts[pid].get("key") or pid
                groups.setdefault(key, []).append(pid)
        for group in groups.values():
            cost = sum(parts[p].get("size", 1) - 1 for p in group)
            heapq.heappush(heap, (depth, cost, tick, group))
            tick += 1

    offer(top, 0)
    while heap:
        depth, cost, _, group = heapq.heappop(heap)
        if shown + cost > budget:
            continue
        shown += cost
        opened.update(group)
        offer([c for p in group for c in children.get(p, ())], depth + 1)
    return opened


def module_level(parts: dict) -> set[str]:
    """The "module" level: each module call that holds other module calls is open, so every
    innermost call (a layer, an activation, a loss) is one box; loops stay closed (a run of
    identical layers too: one box)."""
    children: dict[str | None, list[str]] = {}
    for pid, p in parts.items():
        children.setdefault(p.get("parent"), []).append(pid)
    opened: set[str] = set()
    stack = list(children.get(None, ()))
    while stack:
        pid = stack.pop()
        inner = children.get(pid, ())
        holds = any(parts[c].get("kind") == "module" or is_repeat(parts[c]) for c in inner)
        if parts[pid].get("kind") == "module" and holds:
            opened.add(pid)
            stack.extend(inner)
    return opened


def module_parts(nodes: dict, edges: dict, node_ids, edge_ids) -> tuple[dict, dict]:
    """Parts for a layout input that names none (an older page, another tool): each stretch of
    consecutive ops recorded in the same nn.Module path is one part, with the parameters only it
    reads. Returns (parts by id, each node's part)."""
    parts: dict[str, dict] = {}
    node_part: dict[int, str | None] = {}
    current = None
    for nid in sorted(node_ids):
        n = nodes[nid]
        if n["kind"] != "op":
            continue
        module = n.get("module")
        if module is None:
            current = None
            continue
        if current is None or parts[current]["label"] != module:
            current = f"p{len(parts)}"
            parts[current] = {"kind": "module", "label": module, "parent": None, "first": nid, "size": 0}
        node_part[nid] = current
    readers: dict[int, set] = {}
    for eid in edge_ids:
        e = edges[eid]
        readers.setdefault(e["source"], set()).add(node_part.get(e["target"]))
    for nid in node_ids:
        n = nodes[nid]
        if n["kind"] == "leaf" and (n.get("is_param") or n["requires_grad"]):
            where = readers.get(nid, {None})
            if len(where) == 1 and None not in where:
                node_part[nid] = next(iter(where))
    counts: dict[str, list] = {}
    for nid, pid in node_part.items():
        if pid is not None:
            counts.setdefault(pid, []).append(nodes[nid]["name"])
    for pid, p in parts.items():
        names = counts.get(pid, [])
        p["size"] = len(names)
        p["key"] = f"{p['label']}:{'/'.join(sorted(names))}"
    return parts, node_part

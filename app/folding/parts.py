"""The parts of a view that a drawing can fold, found from the trace's scopes (worker side).

A part is an ``nn.Module`` call, a loop (two or more of its iterations in the view), a chunk of a
loop's consecutive iterations, or a segment of consecutive nodes. A run of identical sibling module
calls (the same classes in the same order, on the same shapes: the layers of a deep
``nn.Sequential``) is a loop too, each repetition one of its iterations; its ``type_name`` names the
classes repeated ("Linear → ReLU"), where a loop of the program has none. Parts nest; every node of the
view is a direct member of exactly one part, or of the view itself. Opened, a part shows its
direct members and its child parts (as boxes): at most about ``OPEN_MAX`` of them, so a loop with
more groups its iterations into chunks, and any other part groups its members into segments. A
chunk's iterations count with the ghosts drawn beside their reads of a shared leaf (a weight used
by every iteration), so an opened chunk draws at most about ``OPEN_MAX`` nodes.

A leaf (an input, a parameter, a constant) belongs to the innermost part holding every op that
reads it; a leaf that needs no grad never goes into a module call (a layer's input stays in view).
The view's outputs (where its backward passes start) belong to no part: they are always drawn.

Its parts: the tree being built (``Item``) in app/folding/tree.py, the runs of identical module
calls folded in repeats.py, the chunks and segments in grouping.py; here, where each node goes and
the finished ``Part``s.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field

from engine.trace import Trace

from .grouping import group
from .level import GHOST_FAN
from .repeats import fold_repeats
from .tree import Item, all_nodes, walk

OPEN_MAX = 600  # the most nodes and boxes an opened part shows


@dataclass
class Part:
    """One foldable part of a view (``schemas.PartOut`` without the view-independent fields)."""

    id: str
    kind: str  # "module" | "loop" | "chunk" | "segment"
    label: str
    parent: str | None  # None: the view itself
    view: int
    nodes: list[int] = field(default_factory=list)  # direct members, ascending
    children: list[str] = field(default_factory=list)
    line: int | None = None
    col: int | None = None
    type_name: str | None = None  # a module call's class
    ops: int = 0  # op nodes inside, at any depth
    size: int = 0  # what it shows opened: direct members + child boxes
    iterations: int | None = None  # a loop's or a chunk's iterations
    first_iteration: int | None = None  # a chunk's first iteration (from 0)
    iters: list[list[int]] | None = None  # a loop: [first node id, iteration number] per iteration
    key: str = ""  # parts with the same key show the same structure when opened
    span: tuple[int, int] = (0, -1)  # smallest and largest node id inside, at any depth
    outside: list[int] = field(default_factory=list)  # view nodes within span that are not inside


@dataclass
class ViewParts:
    """The parts of one view: by id, the view's own direct members and top-level parts."""

    parts: dict[str, Part]
    nodes: list[int]  # direct members of the view
    children: list[str]  # top-level parts, in order
    node_part: dict[int, str | None]  # each node's innermost part (None: the view itself)

    def size(self) -> int:
        return len(self.nodes) + len(self.children)


def view_parts(trace: Trace, view: int, node_ids, edge_ids, first_id: int = 0,
               open_max: int = OPEN_MAX, outputs=()) -> ViewParts:
    """The parts of the view holding ``node_ids`` (ids ``p<first_id>``, ``p<first_id + 1>``, ...);
    ``outputs`` (and nodes other views draw too) stay outside every part."""
    outputs = set(outputs)
    nodes = trace.nodes
    ordered = sorted(node_ids)
    tree = _Tree(trace, ordered)
    root = tree.root
    op_path: dict[int, tuple] = {}
    scope_item: dict[int | None, Item] = {}  # the item of each scope an op ran in
    leaves: list[int] = []
    for nid in ordered:
        n = nodes[nid]
        if n.kind == "leaf":
            leaves.append(nid)
        elif n.kind == "op":
            scope = n.scope
            op_path[nid] = tree.chain(scope)
            if nid in outputs:
                root.nodes.append(nid)
                continue
            it = scope_item.get(scope)
            if it is None:
                it = scope_item[scope] = tree.item_at(op_path[nid])
            it.nodes.append(nid)
    _place_leaves(trace, tree, leaves, edge_ids, op_path, outputs)
    for it in walk(root):
        it.nodes.sort()
        if len(it.children) > 1:
            it.children.sort(key=Item.first)

    fold_repeats(root, nodes)
    group(root, open_max)
    return _finish(root, view, ordered, first_id, nodes)


class _Tree:
    """The items of a view's tree while it is built: the root, and an item for each scope path."""

    def __init__(self, trace: Trace, ordered: list[int]):
        self.trace = trace
        self.root = Item("root")
        self.items = _scope_items(trace, ordered)
        self._chain_of: dict[int | None, tuple] = {None: ()}

    def chain(self, scope: int | None) -> tuple:
        """The keys of the items from the view down to ``scope`` (the scopes that are parts)."""
        hit = self._chain_of.get(scope)
        if hit is None:
            s = self.trace.scopes[scope]
            hit = self.chain(s.parent)
            key = ("s", scope) if s.kind != "iteration" else ("i", scope)
            if key in self.items:
                hit = hit + (key,)
            self._chain_of[scope] = hit
        return hit

    def item_at(self, path: tuple) -> Item:
        """The item at the end of ``path``, linking the items along it into the tree."""
        it = self.root
        for key in path:
            child = self.items[key]
            if child.parent is None:
                child.parent = it
                it.children.append(child)
            it = child
        return it


def _place_leaves(trace: Trace, tree: _Tree, leaves: list[int], edge_ids, op_path: dict,
                  outputs: set) -> None:
    """Put each leaf in the item ``_leaf_path`` chooses, and count the ghosts of a leaf read many
    times in the iterations that read it."""
    readers: dict[int, list[int]] = {nid: [] for nid in leaves}  # the ops reading each leaf
    for e in edge_ids:
        edge = trace.edges[e]
        if edge.source in readers:
            readers[edge.source].append(edge.target)
    for nid in leaves:
        n = trace.nodes[nid]
        paths = [op_path[t] for t in readers[nid] if t in op_path]
        path = () if nid in outputs else _leaf_path(trace, n, paths, tree.chain(n.scope))
        tree.item_at(path).nodes.append(nid)
        if len(paths) > GHOST_FAN:  # a ghost beside each use: count them in the iterations they are in
            for p in paths:
                for key in p[len(path):]:
                    if key[0] == "i":
                        tree.items[key].reads += 1


def _scope_items(trace: Trace, ordered: list[int]) -> dict[tuple, Item]:
    """Tree items for the module calls and loops the view's ops ran in, and the iterations of the
    loops with at least two of them in the view (a loop with one is not a part of this view)."""
    scopes = trace.scopes
    iterations: dict[int, set[int]] = {}
    used: set[int] = set()
    nodes = trace.nodes
    for s in {nodes[nid].scope for nid in ordered if nodes[nid].kind == "op"}:
        while s is not None and s not in used:
            used.add(s)
            sc = scopes[s]
            if sc.kind == "iteration" and sc.parent is not None:
                iterations.setdefault(sc.parent, set()).add(s)
            s = sc.parent
    items: dict[tuple, Item] = {}
    for s in sorted(used):
        sc = scopes[s]
        if sc.kind == "module":
            items[("s", s)] = Item("module", s, sc.label, sc.line, sc.col, sc.type_name)
        elif sc.kind == "loop" and len(iterations.get(s, ())) >= 2:
            items[("s", s)] = Item("loop", s, sc.label, sc.line, sc.col)
            for i in iterations[s]:
                items[("i", i)] = Item("iteration", i, index=scopes[i].index)
    return items


def _leaf_path(trace: Trace, leaf, readers: list[tuple], made: tuple) -> tuple:
    """Where a leaf goes: the longest path shared by every op that reads it in the view, but not
    into a loop whose iterations share it, nor deeper than where the program made it (``made``)."""
    common = _common(readers) if readers else made
    while common and common[-1][0] == "s" and trace.scopes[common[-1][1]].kind == "loop":
        common = common[:-1]  # read by several iterations: it stays outside the loop
    common = _common([common, made])
    if not leaf.requires_grad:  # inputs and constants stay outside module calls
        for k, (kind, s) in enumerate(common):
            if kind == "s" and trace.scopes[s].kind == "module":
                return common[:k]
    return common


def _common(paths: list[tuple]) -> tuple:
    common = paths[0]
    for p in paths[1:]:
        k = 0
        while k < len(common) and k < len(p) and common[k] == p[k]:
            k += 1
        common = common[:k]
        if not common:
            break
    return common


# ---- finishing: ids, counts, spans ----------------------------------------------------------------
def _finish(root: Item, view: int, ordered: list[int], first_id: int, nodes) -> ViewParts:
    parts: dict[str, Part] = {}
    node_part: dict[int, str | None] = {n: None for n in root.nodes}
    pid: dict[int, str] = {}
    counter = first_id
    order = []
    stack = list(reversed(root.children))
    while stack:  # pre-order: parents get smaller ids than their children
        it = stack.pop()
        pid[id(it)] = f"p{counter}"
        counter += 1
        order.append(it)
        stack.extend(reversed(it.children))
    for it in order:
        p = Part(id=pid[id(it)], kind=it.kind, label=_label(it, nodes), parent=pid.get(id(it.parent)),
                 view=view, nodes=list(it.nodes), children=[pid[id(c)] for c in it.children],
                 line=it.line, col=it.col, type_name=it.type_name, size=it.size())
        if it.kind == "loop":
            iters = sorted(it.iterations)
            p.iters = [[first, index] for first, index in iters]
            p.iterations = len(iters)
            p.first_iteration = 0
        elif it.kind == "chunk":
            p.iterations = it.count
            p.first_iteration = it.index
        if it.kind == "segment":
            lines = [nodes[n].line for n in all_nodes(it) if nodes[n].line is not None]
            p.line = min(lines) if lines else None
        for n in it.nodes:
            node_part[n] = p.id
        parts[p.id] = p
    count: dict[str, int] = {}  # nodes inside each part, at any depth
    for it in reversed(order):  # children first: ops, spans and keys build on theirs
        p = parts[pid[id(it)]]
        p.ops = sum(1 for n in it.nodes if nodes[n].kind == "op") + sum(parts[c].ops for c in p.children)
        count[p.id] = len(it.nodes) + sum(count[c] for c in p.children)
        ends = [parts[c].span for c in p.children if count[c]]
        if it.nodes:
            ends.append((min(it.nodes), max(it.nodes)))
        p.span = (min(a for a, _ in ends), max(b for _, b in ends)) if ends else (0, -1)
        lo = bisect.bisect_left(ordered, p.span[0])
        hi = bisect.bisect_right(ordered, p.span[1])
        if hi - lo != count[p.id]:
            members = set(all_nodes(it))
            p.outside = [n for n in ordered[lo:hi] if n not in members]
        p.key = _key(p, it, parts, nodes)
    return ViewParts(parts=parts, nodes=list(root.nodes), children=[pid[id(c)] for c in root.children],
                     node_part=node_part)


def _label(it: Item, nodes) -> str:
    if it.kind == "segment":
        lines = [nodes[n].line for n in all_nodes(it) if nodes[n].line is not None]
        return f"L{min(lines)}–L{max(lines)}" if lines else "…"
    return it.label or it.type_name or it.kind  # a scope a recorder left unnamed still has a title


def _key(p: Part, it: Item, parts: dict[str, Part], nodes) -> str:
    """A digest of what the part shows opened: its kind, its members' kinds and names, its
    children's keys (not ids or values)."""
    text = [p.kind, p.type_name or "", str(p.iterations or 0)]
    for n in it.nodes:
        node = nodes[n]
        text.append(node.op if node.kind == "op" else f"leaf:{node.requires_grad}")
    text.extend(parts[c].key for c in p.children)
    return hashlib.sha1("|".join(text).encode()).hexdigest()[:12]

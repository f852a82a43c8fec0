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
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field

from engine.trace import Trace

from .level import GHOST_FAN

OPEN_MAX = 600  # the most nodes and boxes an opened part shows
# a run of identical module calls folds when they repeat this many times or more: fewer read well as
# boxes side by side (a five-layer net shows, layer by layer, its gradient vanishing)
REPEAT_MIN = 8
REPEAT_PERIOD = 8  # the most calls one repetition holds


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


class _Item:
    """A node of the tree while it is being built: a scope, an iteration, a chunk or a segment."""

    __slots__ = ("kind", "scope", "label", "line", "col", "type_name", "index", "nodes", "children",
                 "parent", "iterations", "count", "reads")

    def __init__(self, kind, scope=None, label="", line=None, col=None, type_name=None, index=None):
        self.kind, self.scope, self.label, self.line, self.col = kind, scope, label, line, col
        self.type_name, self.index = type_name, index
        self.nodes: list[int] = []
        self.children: list[_Item] = []
        self.parent: _Item | None = None
        self.iterations: list[tuple[int, int]] = []  # a loop: (first node id, number) per iteration
        self.count = 0  # a chunk: its iterations
        self.reads = 0  # an iteration: its reads of shared leaves from outside (a ghost beside each)

    def size(self) -> int:
        return len(self.nodes) + len(self.children)

    def first(self) -> int:
        """The smallest node id inside (for ordering)."""
        best = self.nodes[0] if self.nodes else None
        for c in self.children:
            f = c.first()
            if best is None or f < best:
                best = f
        return best if best is not None else -1


def view_parts(trace: Trace, view: int, node_ids, edge_ids, first_id: int = 0,
               open_max: int = OPEN_MAX, outputs=()) -> ViewParts:
    """The parts of the view holding ``node_ids`` (ids ``p<first_id>``, ``p<first_id + 1>``, ...);
    ``outputs`` (and nodes other views draw too) stay outside every part."""
    outputs = set(outputs)
    nodes = trace.nodes
    ordered = sorted(node_ids)
    root = _Item("root")
    items = _scope_items(trace, ordered)
    chain_of: dict[int | None, tuple] = {None: ()}

    def chain(scope: int | None) -> tuple:
        hit = chain_of.get(scope)
        if hit is None:
            s = trace.scopes[scope]
            hit = chain(s.parent)
            key = ("s", scope) if s.kind != "iteration" else ("i", scope)
            if key in items:
                hit = hit + (key,)
            chain_of[scope] = hit
        return hit

    def item_at(path: tuple) -> _Item:
        it = root
        for key in path:
            child = items[key]
            if child.parent is None:
                child.parent = it
                it.children.append(child)
            it = child
        return it

    op_path: dict[int, tuple] = {}
    scope_item: dict[int | None, _Item] = {}  # the item of each scope an op ran in
    leaves: list[int] = []
    for nid in ordered:
        n = nodes[nid]
        if n.kind == "leaf":
            leaves.append(nid)
        elif n.kind == "op":
            scope = n.scope
            op_path[nid] = chain_of[scope] if scope in chain_of else chain(scope)
            if nid in outputs:
                root.nodes.append(nid)
                continue
            it = scope_item.get(scope)
            if it is None:
                it = scope_item[scope] = item_at(op_path[nid])
            it.nodes.append(nid)
    readers: dict[int, list[int]] = {nid: [] for nid in leaves}  # the ops reading each leaf
    for e in edge_ids:
        edge = trace.edges[e]
        if edge.source in readers:
            readers[edge.source].append(edge.target)
    for nid in leaves:
        n = nodes[nid]
        paths = [op_path[t] for t in readers[nid] if t in op_path]
        path = () if nid in outputs else _leaf_path(trace, n, paths, chain(n.scope))
        item_at(path).nodes.append(nid)
        if len(paths) > GHOST_FAN:  # a ghost beside each use: count them in the iterations they are in
            for p in paths:
                for key in p[len(path):]:
                    if key[0] == "i":
                        items[key].reads += 1
    for it in _walk(root):
        it.nodes.sort()
        if len(it.children) > 1:
            it.children.sort(key=_Item.first)

    _fold_repeats(root, nodes)
    _group(root, open_max)
    return _finish(root, view, ordered, first_id, nodes)


def _scope_items(trace: Trace, ordered: list[int]) -> dict[tuple, _Item]:
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
    items: dict[tuple, _Item] = {}
    for s in sorted(used):
        sc = scopes[s]
        if sc.kind == "module":
            items[("s", s)] = _Item("module", s, sc.label, sc.line, sc.col, sc.type_name)
        elif sc.kind == "loop" and len(iterations.get(s, ())) >= 2:
            items[("s", s)] = _Item("loop", s, sc.label, sc.line, sc.col)
            for i in iterations[s]:
                items[("i", i)] = _Item("iteration", i, index=scopes[i].index)
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


def _walk(it: _Item):
    stack = [it]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(x.children)


# ---- runs of identical module calls: loops of their repetitions ---------------------------------
def _fold_repeats(root: _Item, nodes) -> None:
    """Turn each run of identical sibling module calls into a loop of its repetitions (an
    ``iteration`` item per repetition), so that it folds, chunks and opens the way a loop does."""
    prints: dict[int, str] = {}
    for it in list(_post_order(root)):
        if it.kind == "module":
            prints[id(it)] = _print(it, nodes, prints)
    for it in list(_walk(root)):
        if len(it.children) >= REPEAT_MIN:
            _repeat_runs(it, nodes, prints)


def _print(it: _Item, nodes, prints: dict) -> str:
    """What a module call computes, without ids or values: its class, its members' ops and
    shapes, its inner calls' prints (two layers of the same size, called on the same shapes,
    print the same)."""
    text = [it.kind, it.type_name or ""]
    for n in it.nodes:
        node = nodes[n]
        head = node.op if node.kind == "op" else f"leaf:{node.requires_grad}"
        text.append(f"{head}{tuple(node.shape)}")
    text.extend(prints.get(id(c)) or f"{c.kind}:{len(c.children)}:{len(c.nodes)}" for c in it.children)
    return hashlib.sha1("|".join(text).encode()).hexdigest()


def _repeat_runs(parent: _Item, nodes, prints: dict) -> None:
    """Fold the runs of ``parent``'s module calls, in the order they ran, that repeat one block
    of calls at least ``REPEAT_MIN`` times with nothing of ``parent``'s own ran between them."""
    ran = {id(c): _op_range(c, nodes) for c in parent.children}
    own_ops = [n for n in parent.nodes if nodes[n].kind == "op"]
    stretches: list[list[_Item]] = [[]]
    last = None
    for c in sorted(parent.children, key=lambda c: ran[id(c)]):
        start, end = ran[id(c)]
        between = last is not None and bisect.bisect_left(own_ops, start) != bisect.bisect_left(own_ops, last)
        if c.kind != "module" or between:
            stretches.append([])
        if c.kind == "module":
            stretches[-1].append(c)
        last = end
    loops = []
    for calls in stretches:
        i = 0
        while i < len(calls):
            period, times = _longest_run([prints[id(c)] for c in calls[i:]])
            if times >= REPEAT_MIN:
                loops.append(_repeat_loop(parent, calls[i:i + period * times], period))
                i += period * times
            else:
                i += 1
    if loops:
        parent.children.sort(key=_Item.first)


def _op_range(it: _Item, nodes) -> tuple[int, int]:
    """The smallest and largest op node id inside (when it ran: its parameters may be older)."""
    ops = [n for x in _walk(it) for n in x.nodes if nodes[n].kind == "op"]
    return (min(ops), max(ops)) if ops else (-1, -1)


def _longest_run(prints: list[str]) -> tuple[int, int]:
    """The block of the first ``period`` prints that repeats at least ``REPEAT_MIN`` times and
    covers the most calls from the start, and how many times (the shortest block of those covering
    as many); (1, 1) when none does."""
    best = (1, 1)
    for period in range(1, min(REPEAT_PERIOD, len(prints) // REPEAT_MIN) + 1):
        block = prints[:period]
        times = 1
        while prints[times * period:(times + 1) * period] == block:
            times += 1
        if times >= REPEAT_MIN and period * times > best[0] * best[1]:
            best = (period, times)
    return best


def _repeat_loop(parent: _Item, calls: list[_Item], period: int) -> _Item:
    """A loop item in ``parent`` standing for ``calls``: ``period`` calls per iteration."""
    names = " → ".join(c.type_name or c.label for c in calls[:period])
    loop = _Item("loop", label=names, line=calls[0].line, col=calls[0].col, type_name=names)
    loop.parent = parent
    for k in range(0, len(calls), period):
        one = _Item("iteration", index=k // period)
        one.parent = loop
        one.children = sorted(calls[k:k + period], key=_Item.first)
        for c in one.children:
            c.parent = one
        loop.children.append(one)
    gone = {id(c) for c in calls}
    parent.children = [c for c in parent.children if id(c) not in gone] + [loop]
    return loop


# ---- grouping: chunks of iterations, segments of members ----------------------------------------
def _group(root: _Item, open_max: int) -> None:
    """Dissolve iterations into their loop (or into chunks of a loop with too much to show at
    once), and split whatever still shows more than ``open_max`` into segments."""
    for it in list(_post_order(root)):
        if it.kind == "loop":
            _chunk_loop(it, open_max)
    for it in list(_post_order(root)):
        if it.kind != "iteration" and it.size() > open_max:
            _segment(it, open_max)


def _post_order(it: _Item):
    out, stack = [], [it]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(x.children)
    return reversed(out)


def _chunk_loop(loop: _Item, open_max: int) -> None:
    iterations = [c for c in loop.children if c.kind == "iteration"]
    firsts = [c.first() for c in iterations]
    loop.iterations = [(f, c.index) for f, c in zip(firsts, iterations) if f >= 0]
    sizes = [c.size() for c in iterations]
    total = loop.size() - len(iterations) + sum(sizes)
    # a chunk's size counts the ghosts its iterations' reads of shared leaves are drawn with (a
    # shared weight: one beside each use): what an opened chunk draws, not only what it holds
    drawn = [size + c.reads for c, size in zip(iterations, sizes)]
    if total <= open_max:
        _dissolve(loop, iterations)
        return
    groups: list[list[_Item]] = [[]]
    size = 0
    for c, c_size in zip(iterations, drawn):
        if groups[-1] and size + c_size > open_max:
            groups.append([])
            size = 0
        groups[-1].append(c)
        size += c_size
    chunks = []
    for g in groups:
        chunk = _Item("chunk", index=g[0].index)
        chunk.label = _iteration_range(g)
        chunk.count = len(g)
        chunk.parent = loop
        for c in g:
            c.parent = chunk
        chunk.children = list(g)
        _dissolve(chunk, g)
        chunks.append(chunk)
    others = [c for c in loop.children if c.kind != "iteration"]
    loop.children = sorted(others + chunks, key=_Item.first)
    while len(loop.children) + len(loop.nodes) > open_max and len(chunks) > 1:
        chunks = _chunk_chunks(loop, chunks, open_max)


def _chunk_chunks(loop: _Item, chunks: list[_Item], open_max: int) -> list[_Item]:
    """Group chunks into chunks of chunks (a loop of very many iterations)."""
    per = max(2, open_max // 2)
    out = []
    for i in range(0, len(chunks), per):
        g = chunks[i:i + per]
        outer = _Item("chunk", index=g[0].index)
        outer.label = f"{g[0].label.split('–')[0]}–{g[-1].label.split('–')[-1]}"
        outer.count = sum(c.count for c in g)
        outer.parent = loop
        for c in g:
            c.parent = outer
        outer.children = list(g)
        out.append(outer)
    grouped = {id(c) for c in chunks}
    others = [c for c in loop.children if id(c) not in grouped]
    loop.children = sorted(others + out, key=_Item.first)
    return out


def _iteration_range(group: list[_Item]) -> str:
    a, b = group[0].index + 1, group[-1].index + 1
    return f"#{a}" if a == b else f"#{a}–#{b}"


def _dissolve(into: _Item, iterations: list[_Item]) -> None:
    """Move the iterations' members and child parts into ``into`` (they are not parts)."""
    gone = {id(c) for c in iterations}
    keep = [c for c in into.children if id(c) not in gone]
    for c in iterations:
        into.nodes.extend(c.nodes)
        for g in c.children:
            g.parent = into
            keep.append(g)
    into.nodes.sort()
    into.children = sorted(keep, key=_Item.first)


def _segment(it: _Item, open_max: int) -> None:
    """Group ``it``'s direct members and child parts, in program order, into segments of about
    equal size, at most ``open_max`` each (segments of segments when there are very many)."""
    entries = [(n, None) for n in it.nodes] + [(c.first(), c) for c in it.children]
    entries.sort(key=lambda e: e[0])
    count = -(-len(entries) // open_max)
    size = -(-len(entries) // count)
    segments = []
    for i in range(0, len(entries), size):
        seg = _Item("segment")
        seg.parent = it
        for nid, child in entries[i:i + size]:
            if child is None:
                seg.nodes.append(nid)
            else:
                child.parent = seg
                seg.children.append(child)
        segments.append(seg)
    it.nodes = []
    it.children = segments
    if len(segments) > open_max:
        _segment(it, open_max)


# ---- finishing: ids, counts, spans ----------------------------------------------------------------
def _finish(root: _Item, view: int, ordered: list[int], first_id: int, nodes) -> ViewParts:
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
            lines = [nodes[n].line for n in _all_nodes(it) if nodes[n].line is not None]
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
            members = set(_all_nodes(it))
            p.outside = [n for n in ordered[lo:hi] if n not in members]
        p.key = _key(p, it, parts, nodes)
    return ViewParts(parts=parts, nodes=list(root.nodes), children=[pid[id(c)] for c in root.children],
                     node_part=node_part)


def _all_nodes(it: _Item) -> list[int]:
    out = []
    for x in _walk(it):
        out.extend(x.nodes)
    return out


def _label(it: _Item, nodes) -> str:
    if it.kind == "segment":
        lines = [nodes[n].line for n in _all_nodes(it) if nodes[n].line is not None]
        return f"L{min(lines)}–L{max(lines)}" if lines else "…"
    return it.label or it.type_name or it.kind  # a scope a recorder left unnamed still has a title


def _key(p: Part, it: _Item, parts: dict[str, Part], nodes) -> str:
    """A digest of what the part shows opened: its kind, its members' kinds and names, its
    children's keys (not ids or values)."""
    text = [p.kind, p.type_name or "", str(p.iterations or 0)]
    for n in it.nodes:
        node = nodes[n]
        text.append(node.op if node.kind == "op" else f"leaf:{node.requires_grad}")
    text.extend(parts[c].key for c in p.children)
    return hashlib.sha1("|".join(text).encode()).hexdigest()[:12]

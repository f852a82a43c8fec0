"""Grouping what an opened part would show past its budget (a part of app/folding/parts.py): a loop's
iterations dissolved into it, or into chunks of consecutive iterations (chunks of chunks for very
many), and any other part's members into segments."""

from __future__ import annotations

from .tree import Item, post_order


def group(root: Item, open_max: int) -> None:
    """Dissolve iterations into their loop (or into chunks of a loop with too much to show at
    once), and split whatever still shows more than ``open_max`` into segments."""
    for it in list(post_order(root)):
        if it.kind == "loop":
            _chunk_loop(it, open_max)
    for it in list(post_order(root)):
        if it.kind != "iteration" and it.size() > open_max:
            _segment(it, open_max)


def _chunk_loop(loop: Item, open_max: int) -> None:
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
    groups: list[list[Item]] = [[]]
    size = 0
    for c, c_size in zip(iterations, drawn):
        if groups[-1] and size + c_size > open_max:
            groups.append([])
            size = 0
        groups[-1].append(c)
        size += c_size
    chunks = []
    for g in groups:
        chunk = Item("chunk", index=g[0].index)
        chunk.label = _iteration_range(g)
        chunk.count = len(g)
        chunk.parent = loop
        for c in g:
            c.parent = chunk
        chunk.children = list(g)
        _dissolve(chunk, g)
        chunks.append(chunk)
    others = [c for c in loop.children if c.kind != "iteration"]
    loop.children = sorted(others + chunks, key=Item.first)
    while len(loop.children) + len(loop.nodes) > open_max and len(chunks) > 1:
        chunks = _chunk_chunks(loop, chunks, open_max)


def _chunk_chunks(loop: Item, chunks: list[Item], open_max: int) -> list[Item]:
    """Group chunks into chunks of chunks (a loop of very many iterations)."""
    per = max(2, open_max // 2)
    out = []
    for i in range(0, len(chunks), per):
        g = chunks[i:i + per]
        outer = Item("chunk", index=g[0].index)
        outer.label = f"{g[0].label.split('–')[0]}–{g[-1].label.split('–')[-1]}"
        outer.count = sum(c.count for c in g)
        outer.parent = loop
        for c in g:
            c.parent = outer
        outer.children = list(g)
        out.append(outer)
    grouped = {id(c) for c in chunks}
    others = [c for c in loop.children if id(c) not in grouped]
    loop.children = sorted(others + out, key=Item.first)
    return out


def _iteration_range(group: list[Item]) -> str:
    a, b = group[0].index + 1, group[-1].index + 1
    return f"#{a}" if a == b else f"#{a}–#{b}"


def _dissolve(into: Item, iterations: list[Item]) -> None:
    """Move the iterations' members and child parts into ``into`` (they are not parts)."""
    gone = {id(c) for c in iterations}
    keep = [c for c in into.children if id(c) not in gone]
    for c in iterations:
        into.nodes.extend(c.nodes)
        for g in c.children:
            g.parent = into
            keep.append(g)
    into.nodes.sort()
    into.children = sorted(keep, key=Item.first)


def _segment(it: Item, open_max: int) -> None:
    """Group ``it``'s direct members and child parts, in program order, into segments of about
    equal size, at most ``open_max`` each (segments of segments when there are very many)."""
    entries = [(n, None) for n in it.nodes] + [(c.first(), c) for c in it.children]
    entries.sort(key=lambda e: e[0])
    count = -(-len(entries) // open_max)
    size = -(-len(entries) // count)
    segments = []
    for i in range(0, len(entries), size):
        seg = Item("segment")
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

"""The DOT text of one unit (app/drawing/units.py): its elements in an order that depends on its structure
only, with placeholder ids, and no values; the text is the layout cache's key, so two pieces of the
same structure (the chunks of a loop, the same loop in another run) are laid out once."""

from __future__ import annotations

from .dot_text import (
    COLORS,
    GRAPH_ATTRS,
    OUTPUT_WORD,
    SCALAR,
    DotWriter,
    LeftText,
    clip,
    constant_text,
    node_attrs,
    shape_text,
)
from .units import FRAME_HEAD, FRAME_PAD, Segment, Unit


def write_dot(u: Unit, nodes: dict, parts: dict, sizes: dict[str, tuple[float, float]], legend: bool,
              max_lr_depth: int, nslimit_from: int, neutral: bool = True) -> None:
    """The unit's DOT text with placeholders (``sizes``: each frame's drawing, in points). With
    ``neutral``, the digits of its labels are written as zeros (every digit is as wide as 0) and
    ``u.relabel`` keeps the real lines: the text depends on the structure only, so the chunks of a
    loop, ``MulBackward0 #301`` to ``#600`` and ``#601`` to ``#900``, are one layout."""
    order = _element_order(u, nodes, parts)
    g = DotWriter()
    u.node_ids, u.part_ids, u.ghost_ids, u.ghost_keys, u.edge_ids, u.texts = [], [], [], [], [], []
    u.relabel = {}
    name = _write_elements(u, g, order, nodes, parts, sizes, neutral)
    longest = _write_edges(u, g, order, name)
    # Short graphs read left to right; deep chains top to bottom (a 300-op chain is 40,000 px wide),
    # and so do the frames of a loop's chunks, one after the other.
    lr = longest <= max_lr_depth and not u.frames
    graph_attrs = dict(GRAPH_ATTRS, rankdir="LR" if lr else "TB")
    if len(order) >= nslimit_from:
        graph_attrs.update(nslimit="0.01", nslimit1="0.01")
    u.dot = g.source(graph_attrs, legend=legend)


def _write_elements(u: Unit, g: DotWriter, order: list, nodes: dict, parts: dict, sizes: dict,
                    neutral: bool) -> dict[str, str]:
    """Write the unit's nodes, boxes, frames, ghosts and ports in ``order``; their DOT names by key."""
    name: dict[str, str] = {}
    frames = {f.part for f in u.frames}

    def element(node_name: str, ident: str, attrs: dict) -> None:
        if neutral:
            _neutral_label(u, ident, attrs)
        g.node(node_name, id=ident, **attrs)

    for key in order:
        kind = key[0]
        if kind == "n":
            nid = int(key[1:])
            k = len(u.node_ids)
            u.node_ids.append(nid)
            name[key] = f"v{k}"
            attrs = node_attrs(nodes[nid])
            if nodes[nid].get("is_constant"):
                attrs["label"] = [f"@{len(u.texts):03d}@"]  # same width as most literals, same key for all
                u.texts.append(constant_text(nodes[nid]["name"]))
                g.node(f"v{k}", id=f"p{k}", **attrs)
            else:
                element(f"v{k}", f"p{k}", attrs)
        elif kind == "p":
            k = len(u.part_ids)
            u.part_ids.append(key)
            name[key] = f"b{k}"
            if key in frames:
                element(f"b{k}", f"r{k}", frame_attrs(parts[key], sizes[key]))
            else:
                element(f"b{k}", f"r{k}", box_attrs(parts[key]))
        elif kind == "g":
            k = len(u.ghost_ids)
            src = u.ghosts[int(key[1:])]
            u.ghost_ids.append(src)
            u.ghost_keys.append(key)
            name[key] = f"h{k}"
            element(f"h{k}", f"t{k}", ghost_attrs(src, nodes, parts))
        else:  # a port
            name[key] = f"w{key[1:]}"
            g.node(f"w{key[1:]}", shape="point", width="0.06", color=COLORS["frame"][1])
    return name


def _write_edges(u: Unit, g: DotWriter, order: list, name: dict[str, str]) -> int:
    """Write the unit's edges in an order of their ends; the length of the longest path."""
    rank = {key: i for i, key in enumerate(order)}
    segments = sorted(u.segments, key=lambda s: (rank[s.dst], rank[s.src]))
    pairs = [(name[s.src], name[s.dst]) for s in segments]
    longest, critical = longest_paths(pairs)
    for k, s in enumerate(segments):
        u.edge_ids.append(s)
        extra = {} if s.needs_grad else {"style": "dashed", "color": "#9ca3af"}
        label = _edge_label(s)
        if label:
            extra["xlabel"] = [label]
        if s.dst[0] == "o":
            extra["arrowhead"] = "none"
        elif k in critical:
            # the longest path pulls harder than the branches beside it: a chain with a ghost (or an
            # input) beside each step stays straight instead of drifting sideways at every step
            extra["weight"] = "4"
        g.edge(*pairs[k], id=f"q{k}", **extra)
    return longest


_ZEROS = str.maketrans("0123456789₀₁₂₃₄₅₆₇₈₉", "0000000000₀₀₀₀₀₀₀₀₀₀")


def _neutral_label(u: Unit, ident: str, attrs: dict) -> None:
    """Write the label of element ``ident`` with its digits as zeros, keeping the lines it shows."""
    label = attrs["label"]
    lines = [label] if isinstance(label, LeftText) else label
    written = [type(line)(line.translate(_ZEROS)) for line in lines]
    if written != lines:
        u.relabel[ident] = [(w, line) for w, line in zip(written, lines) if w != line]
        attrs["label"] = written[0] if isinstance(label, LeftText) else written


def _edge_label(s: Segment) -> str:
    if s.dst[0] == "o":
        return ""
    count = len(s.edges)
    text = shape_text(s.shape) if s.shape or count == 1 else ""
    if count > 1:
        text = f"×{count}" if text in ("", SCALAR) else f"{text} ×{count}"
    if s.output is not None:  # ("scalar" says nothing the value does not: clean_svg drops it on its own)
        text = f"{OUTPUT_WORD} {s.output}" + (f" · {text}" if text and text != SCALAR else "")
    return text


def _element_order(u: Unit, nodes: dict, parts: dict) -> list[str]:
    """The unit's elements in an order that depends on its structure only: nodes by id (each leaf
    just before the first thing that reads it), boxes and frames by their first node, ghosts just
    before what they feed, ports just after what feeds them."""
    anchor: dict[str, float] = {}
    for nid in u.nodes:
        anchor[f"n{nid}"] = nid
    for pid in u.boxes + [f.part for f in u.frames]:
        anchor[pid] = parts[pid].get("first", 0)
    readers: dict[str, float] = {}
    for s in u.segments:
        if s.dst in anchor:
            readers[s.src] = min(readers.get(s.src, anchor[s.dst]), anchor[s.dst])
    for nid in u.nodes:
        key = f"n{nid}"
        if nodes[nid].get("kind") == "leaf" and key in readers:
            anchor[key] = readers[key] - 0.5
    feeds: dict[str, float] = {}
    for s in u.segments:
        if s.src[0] == "g" and s.dst in anchor:
            feeds[s.src] = min(feeds.get(s.src, anchor[s.dst]), anchor[s.dst])
        if s.dst[0] == "o" and s.src in anchor:
            feeds[s.dst] = max(feeds.get(s.dst, anchor[s.src]), anchor[s.src])
    for k in range(len(u.ghosts)):
        anchor[f"g{k}"] = feeds.get(f"g{k}", 0) - 0.25
    for k in range(u.ports):
        if f"o{k}" not in u.dropped:
            anchor[f"o{k}"] = feeds.get(f"o{k}", 0) + 0.25
    return sorted(anchor, key=lambda key: (anchor[key], key[0], int(key[1:])))


def longest_paths(pairs: list[tuple[str, str]]) -> tuple[int, set[int]]:
    """The number of edges on the longest path of a DAG given as (source, target) pairs, and the
    positions of the pairs that lie on a longest path (Kahn's order, forwards and backwards)."""
    succ: dict[str, list[str]] = {}
    indeg: dict[str, int] = {}
    for s, t in pairs:
        succ.setdefault(s, []).append(t)
        indeg[t] = indeg.get(t, 0) + 1
        indeg.setdefault(s, 0)
    depth = {n: 0 for n in indeg}
    order = []
    ready = [n for n, d in indeg.items() if d == 0]
    while ready:
        n = ready.pop()
        order.append(n)
        for t in succ.get(n, ()):
            depth[t] = max(depth[t], depth[n] + 1)
            indeg[t] -= 1
            if indeg[t] == 0:
                ready.append(t)
    height = {n: 0 for n in depth}
    for n in reversed(order):
        for t in succ.get(n, ()):
            height[n] = max(height[n], height[t] + 1)
    longest = max(depth.values(), default=0)
    critical = {k for k, (s, t) in enumerate(pairs) if depth[s] + 1 + height[t] == longest}
    return longest, critical


def box_label(p: dict) -> list[str]:
    """A closed part's label lines: what it is, and how many times a loop ran."""
    kind = p.get("kind")
    first = clip(p.get("label") or p.get("type_name") or "", 32)
    if kind == "module":
        t = p.get("type_name")
        return [first, clip(t, 32)] if t and t != p.get("label") else [first]
    if kind in ("loop", "chunk") and p.get("iterations"):
        return [first, f"×{p['iterations']}"]
    return [first]


def box_attrs(p: dict) -> dict:
    fill, border = COLORS["module" if p.get("kind") == "module" else "loop"]
    return {"shape": "box3d", "label": box_label(p), "fillcolor": fill, "color": border}


def frame_attrs(p: dict, size: tuple[float, float]) -> dict:
    """An open loop's frame: a box the size of its drawing, its title at the top."""
    fill, border = COLORS["frame"]
    w, h = size
    title = " ".join(box_label(p))
    return {"shape": "box", "style": "dashed,filled", "fixedsize": "true",
            "width": f"{(w + 2 * FRAME_PAD) / 72:.3f}", "height": f"{(h + FRAME_PAD + FRAME_HEAD) / 72:.3f}",
            "label": LeftText(title), "labelloc": "t", "fillcolor": fill, "color": border,
            "fontcolor": border}


def ghost_attrs(ref: str, nodes: dict, parts: dict) -> dict:
    """A dashed copy of a node (or of a closed part) beside one of its uses."""
    fill, border = COLORS["ghost"]
    if ref[0] == "n":
        n = nodes[int(ref[1:])]
        if n.get("is_constant"):
            text = constant_text(n["name"])
        elif n["kind"] == "leaf":
            text = clip(n["name"])
        else:
            text = clip(n.get("var") or n["name"])
        shape = "ellipse" if n["kind"] == "leaf" else "box"
    else:
        text = clip(parts[ref].get("label") or "", 20)
        shape = "box3d"
    return {"shape": shape, "label": [text], "style": "dashed,filled", "fillcolor": fill, "color": border,
            "fontcolor": "#475569", "fontsize": "9", "height": "0.25"}

"""Lay out a view's units (app/drawing/units.py) and nest them into one SVG.

Units are laid out innermost first, so each frame knows the size of the drawing it holds; the
units of one height go to ``dot`` together (one process for several graphs: starting ``dot`` costs
more than laying out a small graph). Each unit's SVG is cached by its DOT text, which has no ids
and no values: identical loop chunks, or the same loop in another run, are laid out once. The ids
are written into a copy of the cached SVG, and each frame's drawing is placed inside its frame.
"""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
import time
from dataclasses import dataclass, field

from ..package import code_digest
from .unit_dot import write_dot
from .units import FRAME_HEAD, FRAME_PAD, Unit

FAILED = "!failed"  # cached for a structure dot could not lay out in time: not tried again soon
FAILED_TTL_S = 600.0


@dataclass
class Composed:
    svg: str
    segments: dict[str, list[int]] = field(default_factory=dict)
    undrawn: str | None = None


class LayoutFailed(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason  # "time_budget" | "graphviz_failed"


def lay_out(units: list[Unit], nodes: dict, parts: dict, run_dot, cache, settings, deadline: float,
            clean) -> Composed:
    """The composed SVG of ``units`` (innermost first; the last is the view). ``run_dot(text,
    deadline)`` lays out DOT text (several graphs at once); ``clean`` tidies one SVG."""
    sizes: dict[str, tuple[float, float]] = {}
    templates: dict[int, str] = {}
    heights = sorted({u.height for u in units})
    for h in heights:
        batch = [u for u in units if u.height == h]
        keys = {}
        for u in batch:
            write_dot(u, nodes, parts, sizes, legend=u.part is None, max_lr_depth=settings.max_lr_depth,
                      nslimit_from=settings.nslimit_from)
            # (the code too: how an SVG is tidied and read may change while its DOT text does not)
            keys[id(u)] = hashlib.sha1((code_digest() + u.dot).encode()).hexdigest()
        missing: dict[str, Unit] = {}
        for u in batch:
            key = keys[id(u)]
            got = cache.get(key)
            if got == FAILED:
                raise LayoutFailed("time_budget")
            if got is None:
                missing.setdefault(key, u)
            else:
                templates[id(u)] = got
        if missing:
            rendered = _render(list(missing.items()), run_dot, cache, deadline, clean)
            for key, svg in rendered.items():
                cache.put(key, svg)
            for u in batch:
                templates.setdefault(id(u), rendered.get(keys[id(u)], ""))
        for u in batch:
            if u.part is not None:
                sizes[u.part] = svg_size(templates[id(u)])
    counters = {"ghost": {}, "segment": [0]}
    segments: dict[str, list[int]] = {}
    root = units[-1]
    return Composed(_compose(root, templates, counters, segments), segments)


def _render(items: list[tuple[str, Unit]], run_dot, cache, deadline: float, clean) -> dict[str, str]:
    """Lay out the DOT texts of ``items`` in one ``dot`` run; their SVGs by key."""
    for _ in items:
        cache.count_render()
    text = "".join(u.dot for _, u in items)
    started = time.monotonic()
    try:
        out = run_dot(text, deadline)
    except subprocess.TimeoutExpired as exc:
        # dot itself ran out of time on one graph (not a wait for a free slot): remember it a while,
        # so the next request draws that part closed at once instead of trying again
        if len(items) == 1 and type(exc) is subprocess.TimeoutExpired and time.monotonic() - started > 1.0:
            cache.put(items[0][0], FAILED, ttl_s=FAILED_TTL_S)
        raise LayoutFailed("time_budget") from None
    if out is None:
        raise LayoutFailed("graphviz_failed")
    svgs = [s for s in out.split("</svg>") if "<svg" in s]
    if len(svgs) != len(items):
        raise LayoutFailed("graphviz_failed")
    return {key: clean(svg + "</svg>\n") for (key, _), svg in zip(items, svgs)}


_SIZE = re.compile(r'<svg[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"')


def svg_size(svg: str) -> tuple[float, float]:
    """Width and height of an SVG drawn by dot, in points."""
    m = _SIZE.search(svg)
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


_ID = re.compile(r'id="([pqrt])(\d+)"')
_TEXT = re.compile(r"@(\d{3,})@")
_ELEMENT = re.compile(r'(<g id="([prt]\d+)" class="node">)(.*?)(</g>)', re.S)
_LINE = re.compile(r"(<text[^>]*>)([^<]*)(</text>)")


def _relabel(m: re.Match, relabel: dict) -> str:
    """An element of a cached SVG with the label lines it shows instead of those its layout was
    written with (the same but for their digits: see unit_dot.write_dot)."""
    pairs = relabel.get(m.group(2))
    if not pairs:
        return m.group(0)
    todo = list(pairs)

    def line(t: re.Match) -> str:
        if todo and html.unescape(t.group(2)) == todo[0][0]:
            return t.group(1) + xml_escape(todo.pop(0)[1]) + t.group(3)
        return t.group(0)

    return m.group(1) + _LINE.sub(line, m.group(3)) + m.group(4)


def _compose(u: Unit, templates: dict, counters: dict, segments: dict) -> str:
    svg = _substitute(templates[id(u)], u, counters, segments)
    if not u.frames:
        return svg
    return _nest(svg, {f.part: _compose(f, templates, counters, segments) for f in u.frames})


def _substitute(template: str, u: Unit, counters: dict, segments: dict) -> str:
    """Write the real element ids (and the constants' texts) into a copy of a cached SVG. A ghost
    also names the edge elements it feeds (``data-feeds``): the page shows it with them."""
    ghosts = counters["ghost"]
    # the edges' ids first, in the order they are drawn (an s<k> is numbered where it comes)
    edge_el = {}
    for m in _ID.finditer(template):
        if m.group(1) == "q":
            k = int(m.group(2))
            edge_el[k] = u.edge_ids[k].element_id(counters["segment"], segments)
    feeds: dict[str, list[str]] = {}
    for k, el in edge_el.items():
        src = u.edge_ids[k].src
        if src[0] == "g":
            feeds.setdefault(src, []).append(el)

    def real(m: re.Match) -> str:
        kind, k = m.group(1), int(m.group(2))
        if kind == "p":
            return f'id="n{u.node_ids[k]}"'
        if kind == "r":
            return f'id="{u.part_ids[k]}"'
        if kind == "t":
            ref = u.ghost_ids[k]
            j = ghosts.get(ref, 0)
            ghosts[ref] = j + 1
            fed = " ".join(feeds.get(u.ghost_keys[k], ()))
            return f'id="{ref}-g{j}" data-feeds="{fed}"'
        return f'id="{edge_el[k]}"'

    if u.relabel:
        template = _ELEMENT.sub(lambda m: _relabel(m, u.relabel), template)
    svg = _ID.sub(real, template)
    if u.texts:
        svg = _TEXT.sub(lambda m: xml_escape(u.texts[int(m.group(1))]), svg)
    return svg


def xml_escape(text: str) -> str:
    """Text as it goes between an SVG element's tags."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_GRAPH = re.compile(r'<g id="[^"]*graph0" class="graph" transform="[^"]*">')
_POINTS = re.compile(r'points="([^"]+)"')


def _nest(svg: str, inners: dict[str, str]) -> str:
    """Put each drawing of ``inners`` inside its frame (by part id) of ``svg``, in one pass (a loop's
    drawing of many chunks is megabytes: copying it once per chunk took most of the time)."""
    cuts = []
    for pid, inner in inners.items():
        at = svg.find(f'<g id="{pid}" class="node">')
        if at < 0:
            continue
        end = svg.find("</g>", at) + 4
        group = _framed(svg[at:end], pid, inner)
        if group:
            cuts.append((end, group))
    cuts.sort()
    out, pos = [], 0
    for end, group in cuts:
        out += [svg[pos:end], "\n", group]
        pos = end
    out.append(svg[pos:])
    return "".join(out)


def _framed(frame: str, pid: str, inner: str) -> str | None:
    """The group that places the drawing ``inner`` inside the frame element ``frame`` (its SVG)."""
    m = _POINTS.search(frame)
    if not m:
        return None
    xs, ys = [], []
    for pair in m.group(1).split():
        x, y = pair.split(",")
        xs.append(float(x))
        ys.append(float(y))
    w, h = svg_size(inner)
    body_start = _GRAPH.search(inner)
    if not body_start:
        return None
    body_end = inner.rfind("</svg>")
    body = inner[body_start.end():body_end]
    body = body[:body.rfind("</g>")]
    tx = min(xs) + FRAME_PAD + 4
    ty = min(ys) + FRAME_HEAD + h - 4
    return f'<g class="graph unit" data-part="{pid}" transform="translate({tx:.2f} {ty:.2f})">{body}</g>\n'

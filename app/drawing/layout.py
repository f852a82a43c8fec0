"""The drawing: graphviz DOT from the layout input (same ids), laid out once per structure.

The DOT text is written here and in app/drawing/unit_dot.py (``DotWriter``; the graphviz package's
quoting was too slow) and laid out by the graphviz package's runner of the ``dot`` binary, with a timeout.

- A view is drawn at a level (app/folding/level.py): its closed parts (nn.Module calls, loops, chunks of
  iterations) are boxes, its open loops frames that hold their own drawing. Each piece is laid out
  on its own (app/drawing/units.py, app/drawing/compose.py), so no single ``dot`` run grows with the
  whole graph.
- Node elements carry ``id="n<ID>"`` (a ghost copy ``n<ID>-g<k>``), edge elements ``id="e<ID>"``
  (a drawn edge that stands for several, ``s<k>``: see ``Drawing.segments``), a part's box or
  frame its part id ``p<k>``, so the page can light them up and write gradients on them.
- Layout is slow (``dot`` grows ~N^2.9), so it is cached by structure: the DOT text is built with
  positional placeholders and no values, so two graphs that differ only in values or ids (another
  training iteration, a re-run with other inputs, the next chunk of a loop) give the same text,
  hence the same cache key; the real ids are substituted into the cached SVG, and so are the
  labels, whose digits the text writes as zeros (``MulBackward0 #301`` and ``#601`` alike).
- Edge shapes are ``xlabel``s, not ``label``s (an edge label becomes an extra node and rank: 6–9x
  slower); large pieces get ``nslimit``. A structure ``dot`` could not lay out in time is cached as
  such, and the view is drawn with its parts closed instead.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

import graphviz
from graphviz.backend import dot_command as graphviz_command
from graphviz.backend import execute as graphviz_execute

from ..folding.level import ALL_BUDGET, AUTO_BUDGET, ancestors, choose_open, level, module_level, module_parts
from ..schemas.layout import layout_input
from .cache import LayoutCache, cache_from_env
from .compose import LayoutFailed, lay_out, xml_escape
from .dot_text import escape as dot_escape
from .drawn import Drawing, drawing_text, drawings_key, kept_drawing
from .unit_dot import write_dot
from .units import UNIT_KINDS, plan_units


@dataclass
class LayoutSettings:
    """Knobs of the drawing. Defaults from measurements of dot 2.43: with a ghost beside each use
    of a shared leaf and long loops laid out in chunks, pieces of 1,200-1,800 elements take
    0.2-0.3 s with or without -Gnslimit; cut short, network simplex misplaces the rows of a loop
    whose iterations do not depend on each other (each iteration's nodes drift away from its
    inputs), while uncut it took up to 2.5x longer on 1,600 such elements."""

    budget: int = AUTO_BUDGET  # nodes and boxes shown at the "auto" level
    nslimit_from: int = 1000  # elements of a piece from which network-simplex iterations are cut
    max_lr_depth: int = 24  # deeper pieces are drawn top to bottom
    max_nodes: int = 2500  # a piece with more elements is not laid out (a note instead of a drawing)
    timeout_s: float = 30.0  # a dot run that takes longer is abandoned
    cache_size: int = 512  # entries: the pieces and, beside them, whole views (app/drawing/drawn.py)



def direction_settings(layout: LayoutSettings, direction: str) -> LayoutSettings:
    """The layout settings for a drawing direction ("down": every piece top to bottom, for a phone)."""
    if direction == "down":
        return replace(layout, max_lr_depth=-1)  # no graph is short enough to lie on its side
    return layout




class SlotWait(subprocess.TimeoutExpired):
    """The deadline came while waiting for a ``dot`` slot: nothing was laid out."""


class DotSlots:
    """The server's own share of the CPU for drawings, fair among clients.

    A drawing (``draw_views``: its Python work and its ``dot`` runs) holds one of ``n`` places
    (set to the number of workers), admitted as the workers are (app/sandbox/admission.py): one
    drawing per client at a time, one place kept for clients with a record of light use, lightest
    first. Within a drawing, at most ``n`` ``dot`` processes run at once, each within the
    request's own deadline."""

    def __init__(self, n: int = 2):
        self.resize(n)

    def resize(self, n: int) -> None:
        self.size = max(1, n)
        self._sem = threading.BoundedSemaphore(self.size)
        self._places = None  # made on first use (the notebook draws without a server)

    @property
    def places(self):
        """The admission of drawings (``Admission``)."""
        if self._places is None:
            from ..sandbox.admission import Admission, AdmissionSettings

            self._places = Admission(AdmissionSettings(
                general=max(1, self.size - 1), reserved=1, per_client=1, per_client_queue=2,
                # heavy after about one dense drawing: a student drawing a small graph a second
                # stays under it, a client whose last drawing took a second does not
                newcomer_queue=4, queue_limit=12, heavy_after_s=0.5))
        return self._places

    @contextmanager
    def drawing(self, wait_s: float):
        """Hold a place for the current request's drawing (``PoolBusy`` when none comes within
        ``wait_s``); nothing more when this context already holds one."""
        if _DRAWING.get():
            yield
            return
        from ..sandbox.admission import current_client

        ticket = self.places.acquire(current_client(), max(0.0, wait_s))
        held = _DRAWING.set(True)
        try:
            yield
        finally:
            _DRAWING.reset(held)
            self.places.release(ticket)

    def run(self, dot: str, deadline: float) -> str:
        """``render`` once a slot is free; ``subprocess.TimeoutExpired`` when the deadline comes first."""
        sem = self._sem
        if not sem.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise SlotWait("dot", 0)
        try:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SlotWait("dot", 0)
            return render(dot, left)
        finally:
            sem.release()


_DRAWING = ContextVar("gradviz_drawing", default=False)  # this context holds a drawing place
DOT_SLOTS = DotSlots()


CACHE = cache_from_env(LayoutSettings.cache_size)


# ---- public entry points -------------------------------------------------------------------------------
def draw_response(response: dict, settings: LayoutSettings | None = None, cache: LayoutCache = CACHE) -> None:
    """Fill ``svg``, ``folded``, ``folds`` and ``segments`` of every view of a serialized run, and
    the top ``svg``."""
    from ..schemas.layout import LayoutInput

    drawings = draw_views(layout_data(LayoutInput.model_validate(layout_input(response))), settings, cache)
    for view, d in zip(response["views"], drawings):
        view["svg"], view["folded"], view["folds"], view["undrawn"] = d.svg, d.folded, d.folds, d.undrawn
        view["segments"] = d.segments
    response["svg"] = response["views"][0]["svg"] if response["views"] else ""


def layout_data(inp) -> dict:
    """A checked ``schemas.LayoutInput`` in the form ``draw_views`` reads: nodes, edges, parts by id."""
    return {"nodes": {n.id: n.model_dump(exclude={"id"}) for n in inp.nodes},
            "edges": {e.id: e.model_dump(exclude={"id"}) for e in inp.edges},
            "parts": {p.id: p.model_dump(exclude={"id"}) for p in inp.parts},
            "views": [{"nodes": v.nodes, "edges": v.edges, "open": v.open, "index": v.index,
                       "links": [ln.model_dump() for ln in v.links]} for v in inp.views]}


def draw_views(data: dict, settings: LayoutSettings | None = None, cache: LayoutCache = CACHE,
               deadline: float | None = None, fold: str = "auto") -> list[Drawing]:
    """One drawing per view of a ``layout_data``, all within ``deadline`` (``time.monotonic()``;
    default: ``settings.timeout_s`` from now). A view without an open set is drawn at the level
    ``fold`` ("auto", "module" or "op"). A view whose layout the deadline cuts short is drawn with
    its parts closed when there is time left, else gets a note and ``undrawn="time_budget"``."""
    settings = settings or LayoutSettings()
    if deadline is None:
        deadline = time.monotonic() + settings.timeout_s
    from ..sandbox.admission import PoolBusy

    key = drawings_key(data, settings, fold)
    n = len(data["views"])
    kept = [kept_drawing(cache.get(f"{key}-{i}")) for i in range(n)] if key else [None] * n
    if all(d is not None for d in kept):  # (no dot slot needed)
        return kept
    try:
        with DOT_SLOTS.drawing(deadline - time.monotonic()):
            return [d if d is not None
                    else draw_view(data, i, settings, cache, deadline, fold, key and f"{key}-{i}")
                    for i, d in enumerate(kept)]
    except PoolBusy:
        text = "not drawn: the layout did not finish within this request's time budget"
        return [Drawing(note_svg(text), undrawn="time_budget") for _ in data["views"]]


def draw_view(data: dict, index: int, settings: LayoutSettings, cache: LayoutCache = CACHE,
              deadline: float | None = None, fold: str = "auto", keep: str | None = None) -> Drawing:
    """The SVG of view ``index`` of a ``layout_data`` (each piece from the cache when a piece of the
    same structure was drawn); kept whole in the cache under ``keep`` when drawn in full."""
    if deadline is None:
        deadline = time.monotonic() + settings.timeout_s
    view = data["views"][index]
    nodes, edges, parts, opened = view_parts(data, index, settings, fold)
    tries = [opened, []] if opened else [opened]  # a view too big to lay out in time: closed
    for k, open_now in enumerate(tries):
        last = k == len(tries) - 1
        lv = level(nodes, edges, parts, view["nodes"], view["edges"], open_now, view.get("links", ()))
        units = plan_units(nodes, edges, parts, lv)
        biggest = max(len(u.nodes) + len(u.boxes) + len(u.frames) + len(u.ghosts) for u in units)
        if biggest > settings.max_nodes:
            if not last:
                continue
            return Drawing(note_svg(f"{biggest} nodes: too many to draw (at most {settings.max_nodes})"),
                           bool(lv.boxes), undrawn="too_many_nodes", open=lv.open)
        try:
            done = lay_out(units, nodes, parts, DOT_SLOTS.run, cache, settings, deadline, clean_svg)
        except LayoutFailed as exc:
            if not last and time.monotonic() < deadline:
                continue
            text = ("not drawn: the layout did not finish within this request's time budget"
                    if exc.reason == "time_budget" else "graphviz could not draw this graph")
            return Drawing(note_svg(text), bool(lv.boxes), undrawn=exc.reason, open=lv.open)
        drawing = Drawing(done.svg, bool(lv.boxes), open=lv.open, segments=done.segments)
        if keep is not None and k == 0:  # (a view drawn closed because time ran out is not kept)
            cache.put(keep, drawing_text(drawing))
        return drawing
    raise AssertionError("unreachable")


def view_parts(data: dict, index: int, settings: LayoutSettings, fold: str = "auto") -> tuple:
    """``(nodes, edges, parts, open)`` of view ``index`` of a ``layout_data``: the parts it can
    fold (its nn.Module calls when the input names none) and its open set (the input's, else the
    level ``fold``'s)."""
    view = data["views"][index]
    nodes, edges = data["nodes"], data["edges"]
    own = view.get("index")
    own = index if own is None else own  # an answer of one view holds it at position 0
    parts = {pid: p for pid, p in data["parts"].items() if p.get("view", own) == own}
    if not parts and view.get("open") is None:  # an input without parts: its nn.Module calls
        parts, node_part = module_parts(nodes, edges, view["nodes"], view["edges"])
        nodes = {nid: dict(n, part=node_part.get(nid)) for nid, n in nodes.items()}
    elif any(nodes[n].get("part") not in parts for n in view["nodes"] if nodes[n].get("part")):
        # a part of another view: not drawn as one here
        nodes = {nid: n if n.get("part") in parts else dict(n, part=None) for nid, n in nodes.items()}
    known = {p.get("parent") for p in parts.values()} | {nodes[n].get("part") for n in view["nodes"]}
    opened = view.get("open")
    if opened is None:
        opened = preset(parts, nodes, view["nodes"], fold, settings.budget)
    opened = [pid for pid in opened if pid in parts and pid in known]  # only what the input holds
    return nodes, edges, parts, opened


def view_dot(data: dict, index: int, settings: LayoutSettings | None = None) -> str | None:
    """View ``index`` of a ``layout_data`` as one DOT text with its labels written in, to draw it in
    another format (a PNG): open loops are drawn closed, as boxes (open, each is a drawing of its
    own nested into the SVG). None when it has too many nodes to lay out."""
    settings = settings or LayoutSettings()
    view = data["views"][index]
    nodes, edges, parts, opened = view_parts(data, index, settings)
    flat = [pid for pid in opened
            if not any(parts[q].get("kind") in UNIT_KINDS for q in ancestors(parts, pid))]
    lv = level(nodes, edges, parts, view["nodes"], view["edges"], flat, view.get("links", ()))
    (unit,) = plan_units(nodes, edges, parts, lv)
    if len(unit.nodes) + len(unit.boxes) + len(unit.ghosts) > settings.max_nodes:
        return None
    write_dot(unit, nodes, parts, {}, legend=True, max_lr_depth=settings.max_lr_depth,
              nslimit_from=settings.nslimit_from, neutral=False)
    return _PLACEHOLDER.sub(lambda m: dot_escape(unit.texts[int(m.group(1))]), unit.dot)


_PLACEHOLDER = re.compile(r"@(\d{3,})@")


def preset(parts: dict, nodes: dict, node_ids, fold: str, budget: int) -> list[str]:
    """The open set of a level: "module" each innermost module call and each loop closed, "op" as
    much open as can be drawn, "auto" open within ``budget`` nodes and boxes."""
    if not parts:
        return []
    if fold == "module":
        return sorted(module_level(parts))
    top = [pid for pid, p in parts.items() if p.get("parent") is None]
    shown = sum(1 for n in node_ids if nodes[n].get("part") is None) + len(top)
    if fold == "op":
        return sorted(choose_open(parts, top, shown, ALL_BUDGET, chunks=True))
    return sorted(choose_open(parts, top, shown, budget))


# ---- rendering -------------------------------------------------------------------------------------------
def render(dot: str, timeout_s: float) -> str | None:
    """Run ``dot -Tsvg`` on the DOT text (the only layout call: tests count it via the cache);
    None when graphviz fails. The graphviz package runs it (its ``pipe`` has no timeout, its runner
    passes one through and kills ``dot`` when it runs out)."""
    try:
        proc = graphviz_execute.run_check(graphviz_command.command("dot", "svg"), input=dot.encode(),
                                          capture_output=True, timeout=timeout_s, quiet=True)
    except (graphviz.CalledProcessError, graphviz.ExecutableNotFound):
        return None
    return proc.stdout.decode()


_TITLE = re.compile(r"<title>[^<]*</title>\n?")
# An edge's shape label "scalar" (after the edge's own shapes): it says nothing the value does not.
_SCALAR_EDGE_LABEL = re.compile(r'(<g id="[^"]*" class="edge">\n(?:<(?:path|polygon|polyline)\b[^>]*>\n)*)'
                                r"<text\b[^>]*>scalar</text>\n")


def clean_svg(svg: str) -> str:
    """Drop the XML prolog, comments and titles (placeholder names) so the SVG inlines cleanly, and
    the edges' "scalar" labels: dot still leaves their room, where the page writes the gradient
    an edge carries (a tenth of a large drawing's elements, which the page would parse, then hide)."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    # One font for the whole drawing, inherited, instead of an attribute on every text element.
    svg = svg.replace(' font-family="Helvetica,sans-Serif"', "")
    svg = svg.replace("<svg ", '<svg font-family="Helvetica,sans-Serif" ', 1)
    return _SCALAR_EDGE_LABEL.sub(r"\1", _TITLE.sub("", svg))


def note_svg(text: str) -> str:
    """A small SVG that says why there is no drawing."""
    safe = xml_escape(text)
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="40" viewBox="0 0 480 40">'
            f'<text x="8" y="24" font-family="Helvetica" font-size="13">{safe}</text></svg>')


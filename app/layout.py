"""The drawing: graphviz DOT from the serialized graph (same ids), rendered once per structure.

The DOT text is written here (``DotWriter``; the graphviz package's quoting was too slow) and laid
out by the graphviz package's runner of the ``dot`` binary, with a timeout.

- Node elements carry ``id="n<ID>"``, edge elements ``id="e<ID>"``, folded module boxes
  ``id="m<first op ID>"``, so the page can light them up and write gradients on them.
- Layout is slow (``dot`` grows ~N^2.9), so it is cached by structure: the DOT text is built with
  positional placeholders (``p<k>``, ``q<k>``, ``r<k>``) and no values, so two graphs that differ
  only in values or ids (another training iteration, a re-run with other inputs) give the same
  text, hence the same cache key; the real ids are substituted into the cached SVG.
- Edge shapes are ``xlabel``s, not ``label``s (an edge label becomes an extra node and rank: 6–9x
  slower); large graphs get ``nslimit``; views over ``fold_threshold`` nodes draw each nn.Module
  call as one box.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field

import graphviz
from graphviz.backend import dot_command as graphviz_command
from graphviz.backend import execute as graphviz_execute

from .layout_cache import LayoutCache, cache_from_env

# Colours of the legend (and of the drawing).
COLORS = {
    "input": ("#dbeafe", "#2563eb"),  # leaf that needs no grad (fill, border)
    "param": ("#dcfce7", "#16a34a"),  # leaf with requires_grad (a parameter)
    "op": ("#f3f4f6", "#4b5563"),  # op node (grad_fn)
    "output": ("#fef3c7", "#d97706"),  # the output (a backward root)
    "saved": ("#ffffff", "#ea580c"),  # border of a tensor saved for backward
    "constant": ("#ffffff", "#9ca3af"),  # a wrapped Python number
    "module": ("#ede9fe", "#7c3aed"),  # a folded nn.Module call
}
LEGEND = [("input", "input leaf"), ("param", "parameter leaf (requires_grad)"), ("op", "op (grad_fn)"),
          ("output", "output"), ("saved", "saved for backward")]


@dataclass
class LayoutSettings:
    """Knobs of the drawing. Defaults from measurements of dot 2.43: positioning grows about as
    N^2.9 past 500 op nodes (0.6 s at 500, 3.5 s at 1,000, 34 s at 2,000), and -Gnslimit cuts
    large layouts 3-5x."""

    fold_threshold: int = 300  # more nodes than this: fold nn.Module calls
    nslimit_from: int = 400  # drawn nodes from which network-simplex iterations are cut
    max_lr_depth: int = 24  # deeper graphs are drawn top to bottom
    max_nodes: int = 2500  # beyond this, no layout (a note instead of a drawing)
    timeout_s: float = 30.0  # a dot run that takes longer is abandoned
    cache_size: int = 256


@dataclass
class Drawing:
    """One view's drawing and what it folded; ``undrawn`` says why there is only a note instead."""

    svg: str
    folded: bool = False
    folds: list[dict] = field(default_factory=list)
    undrawn: str | None = None  # "too_many_nodes" | "time_budget" | "graphviz_failed"


class DotSlots:
    """At most ``n`` ``dot`` processes at once in this server (set to the number of workers), each
    waited for and run within the request's own deadline."""

    def __init__(self, n: int = 2):
        self._sem = threading.BoundedSemaphore(n)
        self.size = n

    def resize(self, n: int) -> None:
        self._sem = threading.BoundedSemaphore(max(1, n))
        self.size = max(1, n)

    def run(self, dot: str, deadline: float) -> str:
        """``render`` once a slot is free; ``subprocess.TimeoutExpired`` when the deadline comes first."""
        sem = self._sem
        if not sem.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise subprocess.TimeoutExpired("dot", 0)
        try:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired("dot", 0)
            return render(dot, left)
        finally:
            sem.release()


DOT_SLOTS = DotSlots()


CACHE = cache_from_env(LayoutSettings.cache_size)


# ---- public entry points -------------------------------------------------------------------------------
def draw_response(response: dict, settings: LayoutSettings | None = None, cache: LayoutCache = CACHE) -> None:
    """Fill ``svg``, ``folded`` and ``folds`` of every view of a serialized run, and the top ``svg``."""
    from .schemas import LayoutInput

    drawings = draw_views(layout_data(LayoutInput.model_validate(layout_input(response))), settings, cache)
    for view, d in zip(response["views"], drawings):
        view["svg"], view["folded"], view["folds"], view["undrawn"] = d.svg, d.folded, d.folds, d.undrawn
    response["svg"] = response["views"][0]["svg"] if response["views"] else ""


# What the drawing reads of a node and of an edge (the rest of the response is not needed here).
NODE_FIELDS = ("kind", "name", "shape", "requires_grad", "is_param", "is_output", "is_saved", "is_constant",
               "var", "module", "label", "sym")
EDGE_FIELDS = ("source", "target", "shape", "needs_grad")


def layout_input(response: dict) -> dict:
    """The part of a serialized run the layout needs (``schemas.LayoutInput``): small to send from
    the worker, and what the page sends back to draw another level."""
    return {
        "nodes": [{"id": n["id"], **{k: n[k] for k in NODE_FIELDS if n.get(k) is not None}}
                  for n in response["graph"]["nodes"]],
        "edges": [{"id": e["id"], **{k: e[k] for k in EDGE_FIELDS}} for e in response["graph"]["edges"]],
        "views": [{"nodes": v["nodes"], "edges": v["edges"]} for v in response["views"]],
    }


def layout_data(inp) -> dict:
    """A checked ``schemas.LayoutInput`` in the form ``draw_views`` reads: nodes and edges by id."""
    return {"nodes": {n.id: n.model_dump(exclude={"id"}) for n in inp.nodes},
            "edges": {e.id: e.model_dump(exclude={"id"}) for e in inp.edges},
            "views": [(v.nodes, v.edges) for v in inp.views]}


def draw_views(data: dict, settings: LayoutSettings | None = None,
               cache: LayoutCache = CACHE, deadline: float | None = None) -> list[Drawing]:
    """One drawing per view of a ``layout_input``, all within ``deadline`` (``time.monotonic()``;
    default: ``settings.timeout_s`` from now). A view whose layout the deadline cuts short gets a
    note instead, and ``undrawn="time_budget"``."""
    settings = settings or LayoutSettings()
    if deadline is None:
        deadline = time.monotonic() + settings.timeout_s
    return [draw_view(data["nodes"], data["edges"], nodes, edges, settings, cache, deadline)
            for nodes, edges in data["views"]]


def draw_view(nodes: dict, edges: dict, node_ids: list[int], edge_ids: list[int],
              settings: LayoutSettings, cache: LayoutCache = CACHE, deadline: float | None = None) -> Drawing:
    """The SVG of one view (from the cache when a graph of the same structure was drawn)."""
    plan = plan_view(nodes, edges, node_ids, edge_ids, settings)
    if plan.drawn > settings.max_nodes:
        return Drawing(note_svg(f"{plan.drawn} nodes: too many to draw (at most {settings.max_nodes})"),
                       plan.folded, plan.folds, "too_many_nodes")
    key = hashlib.sha1(plan.dot.encode()).hexdigest()
    template = cache.get(key)
    if template is None:
        cache.count_render()
        if deadline is None:
            deadline = time.monotonic() + settings.timeout_s
        try:
            svg = DOT_SLOTS.run(plan.dot, min(deadline, time.monotonic() + settings.timeout_s))
        except subprocess.TimeoutExpired:
            return Drawing(note_svg("not drawn: the layout did not finish within this request's time budget"),
                           plan.folded, plan.folds, "time_budget")
        if svg is None:
            return Drawing(note_svg("graphviz could not draw this graph"), plan.folded, plan.folds,
                           "graphviz_failed")
        template = clean_svg(svg)
        cache.put(key, template)
    return Drawing(substitute(template, plan), plan.folded, plan.folds)


# ---- planning: what is drawn, as DOT with placeholders ------------------------------------------------
@dataclass
class Plan:
    dot: str
    node_ids: list[int]  # placeholder p<k> → node id
    edge_ids: list[int]  # q<k> → edge id
    fold_ids: list[str]  # r<k> → element id of a folded box
    texts: list[str]  # @<k>@ → label text that varies without changing the structure (constants)
    folds: list[dict]
    folded: bool
    drawn: int


def plan_view(nodes: dict, edges: dict, node_ids: list[int], edge_ids: list[int],
              settings: LayoutSettings) -> Plan:
    """Decide folding and write the DOT text (placeholders only, so it is a structure key)."""
    order = canonical_order(nodes, edges, node_ids, edge_ids)
    groups, member = ([], {})
    if len(order) > settings.fold_threshold:
        groups, member = fold_groups(nodes, edges, order, edge_ids)
    drawn_nodes = [nid for nid in order if nid not in member]
    drawn = len(drawn_nodes) + len(groups)
    folds = [{"id": f"m{min(m for m in members if nodes[m]['kind'] == 'op')}", "module": module,
              "nodes": members} for module, members in groups]
    if drawn > settings.max_nodes:  # not drawn: skip writing the DOT text
        return Plan("", drawn_nodes, [], [], [], folds, bool(groups), drawn)

    g = DotWriter()
    local, texts = {}, []
    for k, nid in enumerate(drawn_nodes):
        local[nid] = f"v{k}"
        attrs = node_attrs(nodes[nid])
        if nodes[nid].get("is_constant"):
            attrs["label"] = [f"@{len(texts):03d}@"]  # same width as most literals, same key for all
            texts.append(constant_text(nodes[nid]["name"]))
        g.node(f"v{k}", id=f"p{k}", **attrs)
    fold_ids = [f["id"] for f in folds]
    for k, (module, members) in enumerate(groups):
        ops = [m for m in members if nodes[m]["kind"] == "op"]
        for m in members:
            local[m] = f"f{k}"
        fill, border = COLORS["module"]
        g.node(f"f{k}", id=f"r{k}", label=[clip(module), f"{len(ops)} ops"], shape="box3d",
               fillcolor=fill, color=border)

    drawn_edges, pairs = [], []
    for eid in edge_ids:
        e = edges[eid]
        s, t = local[e["source"]], local[e["target"]]
        if s == t:
            continue
        k = len(drawn_edges)
        drawn_edges.append(eid)
        pairs.append((s, t))
        extra = {} if e["needs_grad"] else {"style": "dashed", "color": "#9ca3af"}
        g.edge(s, t, id=f"q{k}", xlabel=[shape_text(e["shape"])], **extra)
    # Short graphs read left to right; deep chains top to bottom (a 300-op chain is 40,000 px wide).
    graph_attrs = dict(GRAPH_ATTRS, rankdir="LR" if longest_path(pairs) <= settings.max_lr_depth else "TB")
    if drawn >= settings.nslimit_from:
        graph_attrs.update(nslimit="0.01", nslimit1="0.01")
    return Plan(g.source(graph_attrs), drawn_nodes, drawn_edges, fold_ids, texts, folds, bool(groups), drawn)


def longest_path(pairs: list[tuple[str, str]]) -> int:
    """Edges on the longest path of a DAG given as (source, target) pairs (Kahn's order)."""
    succ: dict[str, list[str]] = {}
    indeg: dict[str, int] = {}
    for s, t in pairs:
        succ.setdefault(s, []).append(t)
        indeg[t] = indeg.get(t, 0) + 1
        indeg.setdefault(s, 0)
    depth = {n: 0 for n in indeg}
    ready = [n for n, d in indeg.items() if d == 0]
    while ready:
        n = ready.pop()
        for t in succ.get(n, ()):
            depth[t] = max(depth[t], depth[n] + 1)
            indeg[t] -= 1
            if indeg[t] == 0:
                ready.append(t)
    return max(depth.values(), default=0)


def canonical_order(nodes: dict, edges: dict, node_ids: list[int], edge_ids: list[int]) -> list[int]:
    """Nodes in an order that depends on structure only: ops in recording order, each leaf just
    before the first op that reads it. Ids differ between training iterations (leaves like the
    data are created once, parameters anew each step); this order, and so the DOT text, does not."""
    inputs: dict[int, list[int]] = {}
    for eid in edge_ids:  # edge ids follow (target op, argument index)
        e = edges[eid]
        inputs.setdefault(e["target"], []).append(e["source"])
    placed: dict[int, None] = {}
    for nid in sorted(node_ids):
        if nodes[nid]["kind"] != "op":
            continue
        for src in inputs.get(nid, ()):
            if nodes[src]["kind"] == "leaf":
                placed.setdefault(src)
        placed.setdefault(nid)
    for nid in sorted(node_ids):
        placed.setdefault(nid)
    return list(placed)


def fold_groups(nodes: dict, edges: dict, order: list[int], edge_ids: list[int]):
    """Module calls: maximal runs of consecutive ops (in recording order) with the same module.

    Ops are recorded in topological order and leaves have no inputs, so contracting such a run
    cannot create a cycle. A leaf joins a group when every op it feeds in the view is in it
    (a layer's weight and bias; inputs stay visible).
    """
    groups: list[tuple[str, list[int]]] = []
    member: dict[int, int] = {}
    current = None
    for nid in sorted(order):
        n = nodes[nid]
        if n["kind"] != "op":
            continue
        module = n.get("module")
        if module is None:
            current = None
            continue
        if current is None or groups[current][0] != module:
            groups.append((module, []))
            current = len(groups) - 1
        groups[current][1].append(nid)
        member[nid] = current
    consumers: dict[int, set] = {}
    for eid in edge_ids:
        e = edges[eid]
        consumers.setdefault(e["source"], set()).add(member.get(e["target"], -1))
    for nid in order:
        n = nodes[nid]
        if n["kind"] == "leaf" and (n.get("is_param") or n["requires_grad"]):
            where = consumers.get(nid, {-1})
            if len(where) == 1 and -1 not in where:
                g = next(iter(where))
                member[nid] = g
                groups[g][1].append(nid)
    for _, members in groups:
        members.sort()
    return groups, member


# ---- node appearance ----------------------------------------------------------------------------------
def node_attrs(n: dict) -> dict:
    """Shape, colours and label lines of one node (no values: the text is part of the cache key)."""
    if n["kind"] == "leaf":
        if n.get("is_constant"):
            fill, border = COLORS["constant"]
            attrs = {"shape": "ellipse", "label": [clip(n["name"])], "style": "filled,dashed"}
        else:
            fill, border = COLORS["param" if n["requires_grad"] or n.get("is_param") else "input"]
            attrs = {"shape": "ellipse", "label": [clip(n.get("label") or n["name"]), shape_text(n["shape"])]}
    else:
        fill, border = COLORS["output" if n.get("is_output") else "op"]
        var = n.get("sym") or n.get("var")  # the names the explanations use
        second = f"{clip(var)}: {shape_text(n['shape'])}" if var else shape_text(n["shape"])
        attrs = {"shape": "box", "label": [n.get("label") or n["name"], second], "style": "rounded,filled"}
    attrs["fillcolor"] = fill
    attrs["color"] = border
    if n.get("is_output"):
        attrs["penwidth"] = "2"
    if n.get("is_saved"):
        attrs["color"] = COLORS["saved"][1]
        attrs["penwidth"] = "2"
    return attrs


def shape_text(shape: list[int]) -> str:
    """[2, 3] for a matrix, scalar for a 0-d tensor."""
    return "scalar" if not shape else "[" + ", ".join(str(s) for s in shape) + "]"


def constant_text(literal: str) -> str:
    """A wrapped number's label: its literal, shortened to fit the placeholder's box."""
    if len(literal) <= 7:
        return literal
    try:
        return f"{float(literal):.4g}"
    except ValueError:
        return clip(literal, 7)


def clip(text: str | None, n: int = 24) -> str:
    text = text or ""
    return text if len(text) <= n else text[: n - 1] + "…"


def legend_label() -> str:
    """The legend as an HTML-like graph label (drawn below the graph, not laid out with it)."""
    cells = []
    for key, text in LEGEND:
        fill, border = COLORS[key]
        cells.append(f'<td bgcolor="{fill}" color="{border}" border="2" width="14" height="10"></td>'
                     f'<td align="left"><font point-size="9">{text}</font></td>')
    return f'<<table border="0" cellspacing="4" cellpadding="2"><tr>{"".join(cells)}</tr></table>>'


# ---- DOT text ---------------------------------------------------------------------------------------------
GRAPH_ATTRS = {"nodesep": "0.25", "ranksep": "0.45", "fontname": "Helvetica", "fontsize": "10",
               "bgcolor": "transparent", "labelloc": "b", "labeljust": "l", "forcelabels": "true"}
NODE_DEFAULTS = {"fontname": "Helvetica", "fontsize": "10", "height": "0.3", "style": "filled"}
EDGE_DEFAULTS = {"fontname": "Helvetica", "fontsize": "8", "fontcolor": "#6b7280", "arrowsize": "0.6",
                 "color": "#6b7280"}


def dot_string(value) -> str:
    """A DOT attribute value: a quoted string; a list is label lines (joined by DOT's \\n)."""
    if isinstance(value, list):
        return '"' + "\\n".join(_escape(v) for v in value) + '"'
    return '"' + _escape(str(value)) + '"'


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _attr_list(attrs: dict) -> str:
    return " ".join(f"{k}={dot_string(v)}" for k, v in attrs.items())


class DotWriter:
    """DOT text for one digraph. Written directly: the graphviz package's quoting took 27 ms for a
    600-node graph, half of what ``dot`` itself takes to lay out a 300-op chain."""

    def __init__(self):
        self.lines: list[str] = []

    def node(self, name: str, **attrs) -> None:
        self.lines.append(f"\t{name} [{_attr_list(attrs)}]")

    def edge(self, source: str, target: str, **attrs) -> None:
        self.lines.append(f"\t{source} -> {target} [{_attr_list(attrs)}]")

    def source(self, graph_attrs: dict) -> str:
        head = [
            "digraph {",
            f"\tgraph [{_attr_list(graph_attrs)} label={legend_label()}]",
            f"\tnode [{_attr_list(NODE_DEFAULTS)}]",
            f"\tedge [{_attr_list(EDGE_DEFAULTS)}]",
        ]
        return "\n".join(head + self.lines + ["}", ""])


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
_ID = re.compile(r'id="([pqr])(\d+)"')
_TEXT = re.compile(r"@(\d{3,})@")


def clean_svg(svg: str) -> str:
    """Drop the XML prolog, comments and titles (placeholder names) so the SVG inlines cleanly."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    # One font for the whole drawing, inherited, instead of an attribute on every text element.
    svg = svg.replace(' font-family="Helvetica,sans-Serif"', "")
    svg = svg.replace("<svg ", '<svg font-family="Helvetica,sans-Serif" ', 1)
    return _TITLE.sub("", svg)


def substitute(template: str, plan: Plan) -> str:
    """Write the real ids into a cached SVG template."""

    def real(m: re.Match) -> str:
        kind, k = m.group(1), int(m.group(2))
        if kind == "p":
            return f'id="n{plan.node_ids[k]}"'
        if kind == "q":
            return f'id="e{plan.edge_ids[k]}"'
        return f'id="{plan.fold_ids[k]}"'

    svg = _ID.sub(real, template)
    if plan.texts:
        svg = _TEXT.sub(lambda m: xml_escape(plan.texts[int(m.group(1))]), svg)
    return svg


def xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def note_svg(text: str) -> str:
    """A small SVG that says why there is no drawing."""
    safe = xml_escape(text)
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="40" viewBox="0 0 480 40">'
            f'<text x="8" y="24" font-family="Helvetica" font-size="13">{safe}</text></svg>')


def filled_dot(plan: Plan) -> str:
    """The plan's DOT text with its varying labels written in (to draw it in another format)."""
    return _TEXT.sub(lambda m: _escape(plan.texts[int(m.group(1))]), plan.dot)

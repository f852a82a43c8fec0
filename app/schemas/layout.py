"""``POST /api/layout``: a run's drawing again, from the layout input its answer carried (and
``layout_input``, which writes that input from an answer)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .graph import FoldOut, PartId, Ref

# ---- layout again (POST /api/layout) ---------------------------------------------------------------
# The page asks for another graph level of a drawing it has, sending the layout input from the run's
# answer. The input is treated as hostile: strict types (an id is a JSON integer, never "3" or 3.0), no
# unknown fields, no control characters in the texts the drawing shows, bounded sizes, and every id
# it refers to defined.
LAYOUT_MAX_NODES = 6000  # the request body limit (256 KB) binds before this
LAYOUT_MAX_VIEWS = 16
Text = Annotated[str, Field(max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")]
Shape = Annotated[list[Annotated[int, Field(ge=0, le=2**31 - 1)]], Field(max_length=16)]
Id = Annotated[int, Field(ge=0, le=2**31 - 1)]
Fold = Literal["auto", "module", "op"]


class LayoutNodeIn(BaseModel):
    """What the drawing shows of a node (the fields of ``GraphNode`` it reads)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: Id
    kind: Literal["leaf", "op"]
    name: Text
    shape: Shape
    requires_grad: bool
    is_param: bool = False
    is_output: bool = False
    is_saved: bool = False
    is_constant: bool = False
    var: Text | None = None
    module: Text | None = None
    part: PartId | None = None
    label: Text | None = None
    sym: Text | None = None


class LayoutEdgeIn(BaseModel):
    """What the drawing shows of an edge (the fields of ``GraphEdge`` it reads)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: Id
    source: Id
    target: Id
    shape: Shape
    needs_grad: bool
    output: Id | None = Field(default=None, description="which output of its source it carries, for a "
                                                        "source of several outputs (null: one output)")


class LayoutPartIn(BaseModel):
    """What the drawing shows of a part (the fields of ``PartOut`` it reads)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: PartId
    kind: Literal["module", "loop", "chunk", "segment"]
    label: Text
    type_name: Text | None = None
    parent: PartId | None = None
    view: Annotated[int, Field(ge=0, le=LAYOUT_MAX_VIEWS)] = 0
    first: Id = 0
    size: Annotated[int, Field(ge=0, le=2**31 - 1)] = 1
    key: Annotated[str, Field(max_length=64, pattern=r"^[^\x00-\x1f\x7f]*$")] = ""
    iterations: Annotated[int, Field(ge=0, le=2**31 - 1)] | None = None


class LayoutLinkIn(BaseModel):
    """Edges drawn as one, to or from a closed part (a ``LinkOut``)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    source: Ref
    target: Ref
    shape: Shape
    needs_grad: bool
    edges: list[Id]
    targets: list[Id]


class LayoutViewIn(BaseModel):
    """One drawing: the node and edge ids of a ``ViewOut``, and the parts drawn open (null: the
    request's ``fold`` level decides)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    nodes: list[Id]
    edges: list[Id]
    open: list[PartId] | None = None
    links: list[LayoutLinkIn] = Field(default_factory=list)
    index: Id | None = Field(None, description="the view's number in its run, which its parts name "
                                               "(an answer of one view); default: its position")


class LayoutInput(BaseModel):
    """What the drawing reads of a run: graph nodes and edges, each view's ids. A worker sends it
    with its answer and the page sends it back for another level: from either, it is checked here."""

    model_config = ConfigDict(extra="forbid", strict=True)
    nodes: list[LayoutNodeIn]
    edges: list[LayoutEdgeIn]
    parts: list[LayoutPartIn] = Field(default_factory=list)
    views: list[LayoutViewIn]
    direction: Literal["auto", "down"] = Field(
        default="auto", description="'auto': short graphs left to right, deep ones top to bottom (as "
                                    "/api/run draws them); 'down': always top to bottom (a narrow screen)")

    @model_validator(mode="after")
    def _refers_to_what_it_defines(self):
        nodes = {n.id for n in self.nodes}
        if len(nodes) != len(self.nodes):
            raise ValueError("node ids must be unique")
        edges = {e.id: e for e in self.edges}
        if len(edges) != len(self.edges):
            raise ValueError("edge ids must be unique")
        for e in self.edges:
            if e.source not in nodes or e.target not in nodes:
                raise ValueError(f"edge {e.id} joins a node that is not in nodes")
        parts = {p.id: p for p in self.parts}
        if len(parts) != len(self.parts):
            raise ValueError("part ids must be unique")
        for p in self.parts:
            seen, q = {p.id}, p.parent
            while q is not None:  # every parent defined, and no part inside itself
                if q not in parts or q in seen:
                    raise ValueError(f"part {p.id} has an undefined or circular parent")
                seen.add(q)
                q = parts[q].parent
        for n in self.nodes:
            if n.part is not None and n.part not in parts:
                raise ValueError(f"node {n.id} names a part that is not in parts")
        for i, v in enumerate(self.views):
            members = set(v.nodes)
            if not members <= nodes:
                raise ValueError(f"view {i} names a node that is not in nodes")
            for eid in v.edges:
                e = edges.get(eid)
                if e is None:
                    raise ValueError(f"view {i} names an edge that is not in edges")
                if e.source not in members or e.target not in members:
                    raise ValueError(f"view {i}: edge {eid} joins a node outside the view")
            if v.open is not None and not set(v.open) <= set(parts):
                raise ValueError(f"view {i} opens a part that is not in parts")
            for ln in v.links:
                for ref in (ln.source, ln.target):
                    known = int(ref[1:]) in members if ref[0] == "n" else ref in parts
                    if not known:
                        raise ValueError(f"view {i}: a link names {ref}, which is not in the view")
                if len(ln.targets) != len(ln.edges):
                    raise ValueError(f"view {i}: a link needs one target per edge")
        return self


# What the drawing reads of a node, an edge and a part (the rest of the response is not needed here).
NODE_FIELDS = ("kind", "name", "shape", "requires_grad", "is_param", "is_output", "is_saved", "is_constant",
               "var", "module", "part", "label", "sym")
EDGE_FIELDS = ("source", "target", "shape", "needs_grad")
PART_FIELDS = ("kind", "label", "type_name", "parent", "view", "size", "key", "iterations")
LINK_FIELDS = ("source", "target", "shape", "needs_grad", "edges", "targets")


def layout_input(response: dict) -> dict:
    """The part of a serialized run the layout needs (``schemas.LayoutInput``): small to send from
    the worker, and what the page sends back to draw again. Only the nodes a view draws: the answer
    also holds the data of named nodes inside closed parts."""
    drawn = {nid for v in response["views"] for nid in v["nodes"]}
    several = {n["id"] for n in response["graph"]["nodes"] if n.get("outputs", 1) > 1}
    return {
        "nodes": [{"id": n["id"], **{k: n[k] for k in NODE_FIELDS if n.get(k) is not None}}
                  for n in response["graph"]["nodes"] if n["id"] in drawn],
        "edges": [{"id": e["id"], **{k: e[k] for k in EDGE_FIELDS},
                   **({"output": e["output"]} if e["source"] in several else {})}
                  for e in response["graph"]["edges"]],
        "parts": [{"id": p["id"], "first": p["span"][0],
                   **{k: p[k] for k in PART_FIELDS if p.get(k) is not None}}
                  for p in response.get("parts", ())],
        "views": [{"nodes": v["nodes"], "edges": v["edges"], "open": v.get("open", []),
                   "index": v.get("index"),
                   "links": [{k: ln[k] for k in LINK_FIELDS} for ln in v.get("links", ())]}
                  for v in response["views"]],
    }


class LayoutRequest(LayoutInput):
    """The layout input of a run's answer and the level to draw (POST /api/layout)."""

    nodes: list[LayoutNodeIn] = Field(min_length=1, max_length=LAYOUT_MAX_NODES)
    edges: list[LayoutEdgeIn] = Field(max_length=LAYOUT_MAX_NODES)
    parts: list[LayoutPartIn] = Field(default_factory=list, max_length=LAYOUT_MAX_NODES)
    views: list[LayoutViewIn] = Field(min_length=1, max_length=LAYOUT_MAX_VIEWS)
    fold: Fold = Field(default="auto", description="as in RunRequest, for views without an open set")


class DrawingOut(BaseModel):
    """One view drawn again."""

    index: int
    svg: str
    folded: bool
    folds: list[FoldOut]
    undrawn: Literal["too_many_nodes", "time_budget", "graphviz_failed"] | None = None
    open: list[PartId] = Field(default_factory=list, description="the parts drawn open (those of the "
                                                                  "request whose contents it held)")
    segments: dict[str, list[int]] = Field(default_factory=dict, description="as in ViewOut")


class LayoutResponse(BaseModel):
    views: list[DrawingOut]

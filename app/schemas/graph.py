"""The graph of a run and how it is drawn: nodes, edges, folded module calls, parts and views."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from .common import Num, Value
from .explain import NodeExplain


# ---- graph ---------------------------------------------------------------------------------------------
class SavedOut(BaseModel):
    name: str
    shape: list[int]
    value: Value
    node: int | None = Field(default=None, description="graph node whose output this is (None: internal)")


class GraphNode(BaseModel):
    id: int
    kind: Literal["leaf", "op"]
    name: str = Field(description="grad_fn name for ops (MulBackward0); the variable name (or 'tensor') "
                                  "for leaves")
    var: str | None = Field(default=None, description="the user's variable name for this tensor")
    shape: list[int]
    dtype: str
    value: Value
    requires_grad: bool
    is_param: bool = False
    is_output: bool = False
    is_constant: bool = Field(default=False,
                              description="a Python number wrapped into a tensor (e.g. the 1 of a - 1)")
    obj: int | None = Field(default=None, description="a leaf's tensor object, the same for the leaves of "
                                                      "one tensor (an optimizer step, an update)")
    op: str | None = Field(default=None, description="op table key, e.g. 'mul'")
    description: str | None = None
    formulas: list[str] = Field(default_factory=list, description="local rule per input edge, in input order")
    saved: list[SavedOut] = Field(default_factory=list)
    params: dict[str, Any] = Field(default_factory=dict)
    inputs: list[int] = Field(default_factory=list, description="edge ids into this op, in argument order")
    walked: list[int] | None = Field(default=None, description="the edges its backward steps send along, one "
                                     "per input of its grad_fn as torch runs it (a CopySlices wrapping an "
                                     "in-place op: the base's, then the op's other inputs'); null: inputs")
    line: int | None = None
    col: int | None = None
    module: str | None = Field(default=None, description="nn.Module path the op ran in, e.g. 'fc1'")
    retains_grad: bool = False
    outputs: int = Field(default=1, description="how many outputs the op has: several for UnbindBackward0, "
                                                "SplitBackward0 (each edge out of it says which it carries)")
    is_saved: bool = Field(default=False, description="an op saved this node's output for backward")
    iteration: int | None = Field(default=None, description="index into views when training loops are split")
    part: str | None = Field(default=None, description="the innermost part (parts[].id) it is drawn in; "
                                                       "null: the view itself")
    label: str | None = Field(default=None, description="the node's distinct name in text and drawing: "
                                                        "'MulBackward0 #2', or the tensor's name for a leaf")
    sym: str | None = Field(default=None, description="the name rules give this node's tensor: 'z', 'h₂', or "
                                                      "a letter ('u') for a tensor the program never named")
    explain: NodeExplain | None = None
    end_line: int | None = Field(default=None, description="where the expression that recorded the op ends")
    end_col: int | None = None


class GraphEdge(BaseModel):
    id: int
    source: int
    target: int
    index: int = Field(description="argument position at the target op")
    shape: list[int]
    needs_grad: bool
    output: int = Field(default=0, description="which output of the source the edge carries: 0 but "
                                               "for a node with several outputs (UnbindBackward0, ...)")


class Graph(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    omitted_ops: int = Field(default=0, description="op nodes of middle training iterations left out")


# ---- folds, parts and views ------------------------------------------------------------------------
class FoldOut(BaseModel):
    """One nn.Module call drawn as a single box (SVG element id ``id``)."""

    id: str
    module: str
    nodes: list[int]


PartId = Annotated[str, Field(pattern=r"^p\d{1,9}$")]
Ref = Annotated[str, Field(pattern=r"^[np]\d{1,10}$", description="'n<id>': a node; 'p<k>': a part")]


class PartOut(BaseModel):
    """A part of a view the drawing can fold: an nn.Module call, a loop, a chunk of a loop's
    iterations or a segment of consecutive nodes. Closed, it is one box (SVG element id ``id``)
    and the nodes inside it are not in graph.nodes; ``span`` and ``outside`` tell which node ids
    are inside it (for the steps and ops the answer names by id only)."""

    id: PartId
    kind: Literal["module", "loop", "chunk", "segment"]
    label: str = Field(description="module path, the loop's header, '#1–#100' (iterations), 'L3–L40' (lines)")
    type_name: str | None = Field(
        default=None, description="a module call's class; a loop of repeated identical layers (a stack): the "
        "classes of one repetition, e.g. 'Linear → ReLU' (a loop of the program has none)")
    parent: PartId | None = Field(description="the part around it; null: the view itself")
    view: int
    line: int | None = None
    col: int | None = None
    ops: int = Field(description="op nodes inside, at any depth")
    size: int = Field(description="nodes and boxes it shows when opened")
    key: str = Field(description="parts with the same key show the same structure")
    iterations: int | None = Field(default=None, description="a loop's or chunk's iterations")
    first_iteration: int | None = Field(default=None, description="a chunk's first iteration, from 0")
    iters: list[list[int]] | None = Field(
        default=None, description="a loop: [first node id, iteration number from 0] of each iteration")
    span: list[int] = Field(description="[smallest, largest] node id inside, at any depth")
    outside: list[int] = Field(default_factory=list, description="node ids within span that are not inside")
    open: bool = Field(description="drawn open in this answer's drawing")


class LinkOut(BaseModel):
    """Edges drawn as one between two things when at least one is a closed part's box."""

    source: Ref
    target: Ref
    shape: list[int] = Field(description="the tensors' shape ([] when they differ)")
    needs_grad: bool
    edges: list[int] = Field(description="the edges it stands for")
    targets: list[int] = Field(description="each edge's target node (the op whose backward step sends "
                                           "the gradient back along it)")


class ViewOut(BaseModel):
    """One drawable graph: a training iteration, a micro-batch, or the whole program."""

    index: int
    passes: list[int] = Field(description="backward passes that run on this graph")
    nodes: list[int]
    edges: list[int]
    svg: str
    folded: bool = Field(default=False, description="drawn with each nn.Module folded into one box")
    loss: Num = None
    folds: list[FoldOut] = Field(default_factory=list, description="the folded boxes, when folded")
    undrawn: Literal["too_many_nodes", "time_budget", "graphviz_failed"] | None = Field(
        default=None, description="why ``svg`` is only a note: too many nodes to lay out, the request's "
                                  "time budget ran out, or graphviz failed")
    open: list[PartId] = Field(default_factory=list, description="parts drawn open")
    links: list[LinkOut] = Field(default_factory=list, description="edges drawn to and from closed parts")
    segments: dict[str, list[int]] = Field(
        default_factory=dict, description="SVG edge elements that stand for several edges (a link, or an "
                                          "edge drawn in pieces across an open loop's frame): element id "
                                          "-> edge ids")

"""Every request and response body of the HTTP API, in one place: the contract other tools rely on
(``POST /api/run`` answers ``variables``, ``stdout``, ``graph``, ``backward``, ``views`` and
``error``; a program that cannot run at all gets a 4xx with the same ``error``), extended with
what the page needs to explain each step. Extend it, do not break it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from typing_extensions import TypeAliasType

# A named recursive alias (an implicit one, ``list["Nested"]``, recurses forever in pydantic 2.14).
Nested = TypeAliasType("Nested", float | int | bool | None | list["Nested"])
# Output values may also hold the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers;
# JavaScript's Number(s) reads them back).
NestedOut = TypeAliasType("NestedOut", float | int | bool | str | None | list["NestedOut"])
Num = float | int | str | None  # a JSON-safe number (non-finite ones as strings)


# ---- errors ---------------------------------------------------------------------------------------
class LocalizedText(BaseModel):
    en: str
    zh: str


class ErrorExplain(BaseModel):
    """The error in the reader's language (app/error_text.py)."""

    gradviz: bool = Field(description="the message is gradviz's own words (then ``zh`` is its Chinese)")
    zh: str | None = None
    note: LocalizedText | None = Field(
        default=None, description="what PyTorch's or Python's verbatim text means, in each language")


class ErrorInfo(BaseModel):
    """What went wrong, where: ``line`` and ``col`` are 1-based positions in the source (None if unknown)."""

    type: str = Field(description="e.g. SyntaxError, ForbiddenError, NameError, RuntimeError, LimitError")
    message: str
    line: int | None = None
    col: int | None = None
    explain: ErrorExplain | None = None


class ErrorResponse(BaseModel):
    """Body of every 4xx answer."""

    error: ErrorInfo


def error_info(type_: str, message: str, line: int | None = None, col: int | None = None) -> dict:
    """An ``ErrorInfo`` as plain data: how every failure is reported, built in this one place (with the
    message in the reader's language beside it)."""
    from .error_text import explain_error

    return {"type": type_, "message": message, "line": line, "col": col,
            "explain": explain_error(type_, message)}


# ---- requests -------------------------------------------------------------------------------------
class VariableIn(BaseModel):
    """A value for a free name of an expression."""

    value: Nested
    requires_grad: bool = True


class RunRequest(BaseModel):
    source: str
    variables: dict[str, VariableIn] | None = None
    fold: Literal["auto", "module", "op"] = Field(
        default="auto", description="graph level of the drawing: every part (nn.Module call, loop) "
                                    "closed ('module'), as much open as can be drawn ('op'), or open "
                                    "within a budget of about 300 nodes and boxes ('auto')")
    direction: Literal["auto", "down"] = Field(
        default="auto", description="'auto': short graphs left to right, deep ones top to bottom; "
                                    "'down': always top to bottom (a narrow screen)")


# ---- values -------------------------------------------------------------------------------------
class Summary(BaseModel):
    """A large tensor in brief."""

    min: Num
    max: Num
    mean: Num
    norm: Num
    head: list[float | int | bool | str] = Field(description="the first elements, flattened")


class Value(BaseModel):
    """A tensor's value: in full when it has at most 64 elements, else a summary."""

    shape: list[int]
    dtype: str
    data: NestedOut = Field(default=None, description="nested list; null when summarized")
    summary: Summary | None = None


# ---- variables ------------------------------------------------------------------------------------
class VariableOut(BaseModel):
    shape: list[int]
    value: NestedOut = Field(description="nested list (null when over 64 elements: see value_summary)")
    grad: NestedOut = None
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    dtype: str
    node: int | None = Field(default=None, description="graph node id of this tensor, if in the graph")
    value_summary: Summary | None = None
    grad_summary: Summary | None = None


# ---- the explanation model (app/explain/) ------------------------------------------------------------
Said = str | LocalizedText  # a text that reads the same in both languages (a formula), or one per language


class NodeExplain(BaseModel):
    """What an op node computes and each input's rule, in the student's names."""

    expr: str = Field(description="the op over its inputs' names, e.g. 'u · c'")
    about: LocalizedText
    rules: list[Said | None] = Field(description="per input: ∂y/∂u = c (elementwise) or ∂L/∂A = G · Bᵀ")
    local: bool = Field(description="elementwise: the gradient sent is G ⊙ the rule")


class ExplainValue(BaseModel):
    """A value a rule reads, under the name the rule uses."""

    name: str
    what: Literal["input", "output", "extra", "param", "count"]
    value: Value
    says: Said | None = None


class WorkStep(BaseModel):
    """One worked operation: ``op`` on ``args`` (refs: {"G": 1}, {"name"}, {"num"}, {"step": k}) with
    ``how``, giving ``value`` (app/explain/steps.py recomputes it)."""

    op: str
    args: list[dict[str, Any]]
    how: dict[str, Any] = Field(default_factory=dict)
    text: Said
    value: Value


class Broadcast(BaseModel):
    """An input broadcast in the forward pass: its gradient is summed back."""

    grad_shape: list[int] = Field(alias="from")
    input_shape: list[int] = Field(alias="to")
    dims: list[int]
    says: Said


class InputWork(BaseModel):
    """How the gradient sent to one input was computed."""

    edge: int
    name: str
    rule: Said | None
    broadcast: Broadcast | None = None
    values: list[ExplainValue] = Field(default_factory=list)
    steps: list[WorkStep] = Field(default_factory=list)
    result: dict[str, Any] | None = None
    ok: bool | None = Field(default=None, description="the worked numbers give the gradient sent (null: not "
                                                      "worked out, the tensors are too large)")


class StepExplain(BaseModel):
    root: str = Field(description="the name of what the pass differentiates, as the page names its output "
                      "(the program's variable, or the letter the page gave an unnamed one: u, v, ...)")
    inputs: list[InputWork | None] = Field(description="per input edge; null where nothing was sent")


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
    line: int | None = None
    col: int | None = None
    module: str | None = Field(default=None, description="nn.Module path the op ran in, e.g. 'fc1'")
    retains_grad: bool = False
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


class Graph(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    omitted_ops: int = Field(default=0, description="op nodes of middle training iterations left out")


# ---- backward -------------------------------------------------------------------------------------------
class FlowOut(BaseModel):
    edge: int
    grad: Value | None


class StepOut(BaseModel):
    index: int
    node: int
    kind: Literal["op", "leaf", "hook"] = Field(
        description="op: a grad_fn ran its rules; leaf: AccumulateGrad wrote .grad; hook: a tensor hook of "
                    "the program ran on the gradient reaching the node (grad_before → grad_after)")
    received: list[FlowOut] = Field(description="one per consumer edge; more than one is a fan-out sum")
    upstream: Value | None = Field(description="the sum of what arrived (the seed for the root)")
    sent: list[FlowOut] = Field(default_factory=list, description="one per input edge of an op node")
    grad_before: Value | None = None
    grad_after: Value | None = None
    retained: bool = False
    is_sum: bool = False
    explain: StepExplain | None = None
    hook: str | None = Field(default=None, description="hook steps: the hook function's name")
    hook_line: int | None = Field(default=None, description="hook steps: where the program registered it")
    hook_col: int | None = None
    received_count: int | None = Field(
        default=None, description="how many gradients arrived, when ``received`` holds only the first "
                                  "and the last of a very long fan-out sum")


class HiddenSteps(BaseModel):
    """Consecutive backward steps of nodes hidden in closed parts: their order and nodes only."""

    index: int = Field(description="the first step's index")
    nodes: list[int]


class BackwardPassOut(BaseModel):
    index: int
    root: int
    api: Literal["backward", "autograd.grad"]
    retain_graph: bool
    create_graph: bool
    seed: Value
    steps: list[StepOut] = Field(description="the steps of nodes in graph.nodes, in visiting order")
    hidden: list[HiddenSteps] = Field(default_factory=list, description="the other steps (nodes hidden in "
                                                                          "closed parts), by index")
    line: int | None = None
    col: int | None = None
    view: int = Field(default=0, description="index into views")
    freed: bool = Field(description="saved tensors were released after this pass")


class ForwardStepOut(BaseModel):
    """One op run in forward mode (a dual level was open): its rule for each input turned that input's
    tangent into a share of the output's tangent."""

    index: int
    op: str = Field(description="op table key")
    formulas: list[str] = Field(description="the forward-mode rule of each input, e.g. 'ȧ·b'")
    inputs: list[int | None] = Field(description="graph node of each input, where the graph has one")
    node: int | None = Field(description="the op's node, when it also built a grad_fn")
    tangents: list[Value | None] = Field(description="each input's tangent (null: it had none)")
    shares: list[Value | None]
    tangent: Value = Field(description="the output's tangent: the sum of the shares")
    line: int | None = None
    col: int | None = None


class OptimizerParamOut(BaseModel):
    node: int | None
    name: str | None
    before: Value
    grad: Value | None
    after: Value


class OptimizerStepOut(BaseModel):
    index: int
    optimizer: str
    rule: str
    params: list[OptimizerParamOut]
    line: int | None = None
    col: int | None = None


class UpdateOut(BaseModel):
    """An in-place change no graph op records (``w -= lr * w.grad`` under no_grad, ``w.grad.zero_()``):
    the value (or, ``grad``, the .grad) of the tensor of ``node`` went from ``before`` to ``after``;
    ``next_node``: the tensor's node from its next use on (null: none, or not in the answer)."""

    index: int
    node: int | None
    name: str | None
    op: str
    grad: bool = False
    before: Value
    after: Value
    next_node: int | None = None
    line: int | None = None
    col: int | None = None


class GradResetOut(BaseModel):
    """A leaf's .grad after a zero_grad: null (set to None) or zeros."""

    node: int
    grad: Value | None = None


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


class IterationSummary(BaseModel):
    """A training iteration (one backward pass) in brief, for the loss curve."""

    pass_index: int
    loss: Num
    view: int | None = Field(description="the view drawing it, or null when it was summarized")
    params: dict[str, dict[str, Num]] = Field(
        default_factory=dict, description="per parameter name: value and grad norms")


class Event(BaseModel):
    """Program order: an op recorded, a backward pass, an optimizer step, an in-place update, a
    zero_grad; ``ops``: ops recorded one after the other whose nodes are hidden in closed parts
    (``nodes``, in ``view``)."""

    kind: str
    index: int | None = None
    nodes: list[int] | None = None
    view: int | None = None


class HandFormula(BaseModel):
    """The course's hand-derived gradient of a built-in example's leaf, with the numbers filled in."""

    formula: Said
    filled: Said | None = None
    value: Value
    rel_error: Num = Field(default=None, description="against autograd's gradient")


class GradCheckLeaf(BaseModel):
    """One leaf's gradient from one backward pass, three ways."""

    node: int
    name: str
    dtype: str
    shape: list[int]
    autograd: Value = Field(description="what this pass added to the leaf's .grad")
    numeric: Value | None = Field(default=None, description="float64 central differences (at ``positions`` "
                                                            "when sampled)")
    positions: list[list[int]] | None = Field(default=None, description="the elements checked, when sampled")
    autograd_at: Value | None = Field(default=None, description="autograd's gradient at ``positions``")
    checked: int = 0
    total: int
    rel_error: Num = None
    tolerance: float
    ok: bool | None = None
    reason: Literal["time_budget", "too_large", "replay_failed", "replay_mismatch",
                    "below_resolution", "program_function"] | None = None
    hand: HandFormula | None = None


class GradCheckPass(BaseModel):
    """The check by hand of one backward pass (the answer keeps it for every pass it keeps)."""

    model_config = ConfigDict(populate_by_name=True)
    pass_index: int = Field(alias="pass")
    status: Literal["checked", "skipped"]
    reason: Literal["autograd_grad", "no_leaves", "time_budget", "too_large", "replay_failed",
                    "replay_mismatch", "program_function"] | None = None
    hook_changed: bool = Field(default=False, description="a tensor hook of the program returned a new "
                               "gradient in this pass (autograd's .grad is then not ∂f/∂x)")
    leaves: list[GradCheckLeaf]
    unlisted: int = Field(default=0, description="leaves of the pass after the listed ones, neither "
                          "listed nor checked (a deep model's parameters)")


from .lenses.schemas import Heat, Lenses  # noqa: E402  (it reads Value and Num above)


class RunResponse(BaseModel):
    variables: dict[str, VariableOut]
    stdout: str
    stdout_truncated: bool = Field(default=False, description="stdout was cut at the runner's "
                                   "max_output_chars (its last line says so)")
    graph: Graph
    backward: list[BackwardPassOut]
    error: ErrorInfo | None = None
    mode: Literal["expression", "program"] = "program"
    free_names: list[str] = Field(default_factory=list)
    auto_backward: bool = Field(default=False,
                                description="the runner called backward on the expression's result")
    views: list[ViewOut] = Field(default_factory=list,
                                 description="the drawings: node and edge elements of each view's svg carry "
                                             "ids n<ID> and e<ID>")
    optimizer_steps: list[OptimizerStepOut] = Field(default_factory=list)
    updates: list[UpdateOut] = Field(default_factory=list, description="in-place changes no op records")
    zero_grads: list[list[GradResetOut]] = Field(
        default_factory=list, description="per zero_grad event (its index): the .grads it reset")
    forward: list[ForwardStepOut] = Field(default_factory=list, description="forward-mode AD steps, in order")
    iterations: list[IterationSummary] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    lenses: Lenses | None = Field(
        default=None, description="the course views' data: forward vs reverse mode, higher-order nodes, two "
                                  "forwards compared, gradient sizes, bytes held for backward")
    timings: dict[str, float] = Field(default_factory=dict,
                                      description="seconds spent: run, serialize, layout, total")
    parts: list[PartOut] = Field(default_factory=list,
                                 description="the parts of each view the drawings show open or as boxes")
    fingerprint: str = Field(default="", description="a digest of what the run recorded (POST /api/open "
                                                     "checks that running it again gives the same)")

    grad_check: list[GradCheckPass] = Field(default_factory=list,
                                            description="each kept backward pass checked by hand: autograd, "
                                                        "finite differences, the course's formula")


# ---- a part opened (POST /api/open) ---------------------------------------------------------------
class OpenRequest(BaseModel):
    """Open parts of one view of a run: the program runs again (runs are deterministic) and the
    answer holds that view at the new open set, with the values of every node it shows."""

    source: str
    variables: dict[str, VariableIn] | None = None
    view: int = Field(ge=0, le=10_000, description="index into the run's views")
    open: list[PartId] = Field(max_length=1000, description="the parts to draw open, the most recently "
                                                            "opened last (the oldest stay closed when "
                                                            "all of them would show too much)")
    direction: Literal["auto", "down"] = "auto"
    fingerprint: str | None = Field(default=None, max_length=64,
                                    description="the run's fingerprint: a different run answers 409")
    had: list[PartId] | None = Field(default=None, max_length=1000,
                                     description="the parts the page's drawing of this view has open: the "
                                                 "nodes it shows and their steps are left out of the "
                                                 "answer (the page holds them); null: everything")


class OpenResponse(BaseModel):
    """One view of a run again: its drawing, the nodes and edges it shows, its backward passes and
    its parts (replacing what the run's answer had for that view)."""

    views: list[ViewOut] = Field(description="the one view, drawn at the new open set")
    graph: Graph
    backward: list[BackwardPassOut]
    parts: list[PartOut]
    heat: list[Heat] = Field(default_factory=list,
                             description="the gradient heat of the view's passes, for the edges it shows")
    fingerprint: str
    timings: dict[str, float] = Field(default_factory=dict)


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
    return {
        "nodes": [{"id": n["id"], **{k: n[k] for k in NODE_FIELDS if n.get(k) is not None}}
                  for n in response["graph"]["nodes"] if n["id"] in drawn],
        "edges": [{"id": e["id"], **{k: e[k] for k in EDGE_FIELDS}} for e in response["graph"]["edges"]],
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


# ---- a worker's answer to a run (between the server and its sandboxed worker, not HTTP) -------------
class PreparedRun(BaseModel):
    """Besides the answer text: what the server draws and splices in."""

    model_config = ConfigDict(extra="forbid")

    nonce: str = Field(pattern=r"^[0-9a-f]{16}$")
    layout: LayoutInput
    views: int = Field(ge=0)
    timings: dict[str, float]
    fingerprint: str = Field(default="", max_length=64, pattern=r"^[0-9a-f]*$")


class WorkerRunReply(BaseModel):
    """A worker's whole answer to a run: the prepared answer, or why the program could not run."""

    model_config = ConfigDict(extra="forbid")

    prepared: PreparedRun | None = None
    program_error: ErrorInfo | None = None


# ---- limits (GET /api/limits) ----------------------------------------------------------------------
class FieldRange(BaseModel):
    """Bounds of a number (an open bound excludes its value)."""

    min: float | None = None
    max: float | None = None
    min_open: bool = False
    max_open: bool = False


class MlpLimits(BaseModel):
    """What the MLP builder form accepts."""

    fields: dict[str, FieldRange] = Field(description="per numeric MlpConfig field")
    hidden_layers: int = Field(description="the most hidden layers")
    hidden_size: FieldRange
    max_steps: list[list[int]] = Field(
        description="the most steps, by [number of hidden layers][micro-batches per step - 1]")
    max_steps_limit: list[list[str]] = Field(description="the runner limit that sets each of max_steps")


class Limits(BaseModel):
    """The server's limits, so the page can say them before a request fails (and name them after)."""

    run: dict[str, float] = Field(description="the runner's limits, by the names its error messages use "
                                              "('limit: timeout_s')")
    layout_max_nodes: int = Field(description="a view with more nodes is not drawn")
    mlp: MlpLimits


# ---- what gradviz supports (GET /api/ops) -----------------------------------------------------------------
class SupportedOp(BaseModel):
    op: str = Field(description="op table key")
    grad_fn: str
    forward: str = Field(description="what it computes, over its inputs {0}, {1}, ...")
    about: LocalizedText
    formulas: list[str]


class SupportedOps(BaseModel):
    ops: list[SupportedOp]
    names: dict[str, list[str]] = Field(description="per module ('torch', 'torch.nn', ..., 'Tensor'): "
                                                    "the names a program may use")


# ---- other routes ----------------------------------------------------------------------------------------
class SandboxLayers(BaseModel):
    language: bool = Field(description="the interpreter's allow-list and call policy")
    process: bool = Field(description="a fresh worker process per request, answering JSON only")
    os: bool = Field(description="bubblewrap namespaces, an unprivileged user and seccomp around workers")


class SandboxHealth(BaseModel):
    mode: Literal["full", "language-only"]
    layers: SandboxLayers


class PoolHealth(BaseModel):
    places: int = Field(description="worker places: general ones and those reserved for light clients")
    reserved: int
    running: int = Field(description="requests running in workers now")
    queued: int = Field(description="requests waiting for a place")
    spares: int = Field(description="workers forked and warmed up, waiting for a request")
    kept: int = Field(default=0, description="workers kept for their own client's next runs")
    heavy_clients: int = Field(description="clients that used much worker time lately (they yield)")
    restarts: int = Field(description="times the worker template was replaced")


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    sandbox: SandboxHealth | None = Field(default=None, description="the containment layers in force")
    pool: PoolHealth | None = None


class Example(BaseModel):
    id: str
    title: LocalizedText
    source: str
    variables: dict[str, VariableIn] | None = None
    description: LocalizedText | None = None
    lens: Literal["modes", "orders", "compare", "heat", "memory"] | None = Field(
        default=None, description="the course view the example opens")


# ---- MLP builder and training view (/api/mlp/...) ------------------------------------------------------
class MlpConfig(BaseModel):
    """The MLP builder form. The builder checks that the values fit together (see app/mlp_builder.py)."""

    dataset: Literal["linear", "xor", "moons", "circles", "blobs"] = "moons"
    n_points: int = Field(default=200, ge=4, le=2000)
    classes: int = Field(default=3, ge=2, le=8, description="k, for Gaussian blobs")
    noise: float | None = Field(default=None, ge=0, le=2, description="null: the data set's default")
    input_size: int = Field(default=2, ge=1, le=64)
    hidden: str | list[int] = Field(default="16, 16", description='hidden layer sizes, e.g. "8, 16"')
    activation: Literal["relu", "tanh", "sigmoid"] = "relu"
    output_size: int = Field(default=2, ge=1, le=64)
    loss: Literal["mse", "cross_entropy", "bce"] = "cross_entropy"
    batch_size: int | None = Field(default=None, ge=1, le=2000, description="null: the whole data set")
    optimizer: Literal["sgd", "adam"] = "adam"
    lr: float = Field(default=0.01, gt=0, le=10)
    momentum: float = Field(default=0.0, ge=0, lt=1)
    steps: int = Field(default=500, ge=1, le=5000)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    accumulate: int = Field(default=1, ge=1, le=16, description="micro-batches per optimizer step")
    zero_grad: bool = Field(default=True, description="false: the loop forgets optimizer.zero_grad()")
    style: Literal["module", "sequential"] = "module"
    dtype: Literal["float32", "float64"] = "float32"
    print_every: int | None = Field(default=None, ge=1, description="null: five prints per run")
    lang: Literal["en", "zh"] = Field(default="en", description="the language of the program's comments")


class MlpProgram(BaseModel):
    """The program the form stands for, and what the training view needs to know about it."""

    source: str
    task: Literal["regression", "classification"]
    classes: int = Field(description="number of classes (0 for regression)")
    input_size: int
    output_size: int
    layers: list[list[int]] = Field(description="[in, out] of each nn.Linear, in order")
    activation: str


class BoundaryRequest(BaseModel):
    """Decision-boundary frames for a 2-D classification program built from ``config``."""

    config: MlpConfig
    source: str | None = Field(default=None, description="the (possibly edited) program; null: build it")
    grid: int = Field(default=40, ge=8, le=100, description="cells per side")
    frames: int = Field(default=12, ge=1, le=60, description="snapshots spread over the optimizer steps")


class BoundaryFrame(BaseModel):
    step: int = Field(description="optimizer steps taken before this snapshot (0: the initial weights)")
    classes: list[list[int]] = Field(description="predicted class per grid cell, rows from bottom to top")
    confidence: list[list[float]] = Field(description="probability of the predicted class per cell")
    accuracy: float | None = Field(default=None, description="fraction of the data points classified right")


class BoundaryResponse(BaseModel):
    x_range: list[float]
    y_range: list[float]
    grid: int
    classes: int
    points: list[list[float]] = Field(description="the data set's inputs (x, y)")
    labels: list[int]
    frames: list[BoundaryFrame]
    error: ErrorInfo | None = None

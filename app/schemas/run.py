"""``POST /api/run``: the request, and the answer (``RunResponse``) that holds everything else."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .common import ErrorInfo, Nested, NestedOut, Num, Said, Summary, Value
from .graph import Graph, PartOut, ViewOut
from .lenses import Lenses
from .steps import BackwardPassOut, ForwardStepOut, GradResetOut, OptimizerStepOut, UpdateOut
from .why import Why


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
    why: Why | None = Field(default=None, description="each named tensor's suspicious gradient, diagnosed")
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
    extras_later: bool = Field(default=False, description="``grad_check`` and the ``lenses`` but the heat "
                               "are left out: POST /api/run/extras answers them")

"""The backward passes, forward steps and optimizer updates of a run, step by step."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .common import Value
from .explain import StepExplain


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

"""The ``lenses`` field of a RunResponse: the data of the five course views (app/worker/lenses/)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .common import Num, Value


class ModeInput(BaseModel):
    node: int
    name: str | None
    shape: list[int]
    grad: Value | None = Field(description="what reverse mode gave this input (null: it got none)")


class ForwardModeStep(BaseModel):
    node: int
    op: str
    grad_fn: str
    inputs: list[int] = Field(description="graph node of each input")
    formulas: list[str] = Field(description="the forward-mode rule of each input")
    tangents: list[Value | None] = Field(description="each input's tangent (null: none)")
    shares: list[Value | None]
    tangent: Value


class ForwardModePass(BaseModel):
    input: int = Field(description="the leaf whose element carries the unit tangent")
    element: list[int]
    rules: int = Field(description="forward-mode rules applied in this pass")
    output_tangent: Num = Field(description="the output's tangent: this element's gradient")
    steps: list[ForwardModeStep] | None = Field(description="each op of the pass (the first passes only)")


class ForwardModeGrad(BaseModel):
    node: int
    grad: Value


class ForwardMode(BaseModel):
    passes: list[ForwardModePass]
    rules: int
    count: int
    grads: list[ForwardModeGrad]


class ReverseMode(BaseModel):
    passes: int
    rules: int = Field(description="backward rules applied (one per input an op sent a gradient to)")
    steps: int


class Modes(BaseModel):
    """Forward vs reverse mode for one backward pass with a single-number output."""

    pass_index: int
    root: int
    directions: int = Field(description="input elements: the passes forward mode needs")
    inputs: list[ModeInput] = Field(description="the first 64 inputs (leaves that require grad)")
    unlisted: int = Field(0, description="inputs beyond those listed")
    reverse: ReverseMode
    forward: ForwardMode | None
    unavailable: Literal["no_inputs", "too_many", "too_large", "rule_failed"] | None = None
    detail: str | None = None


class MadeNode(BaseModel):
    node: int
    step: int = Field(description="the step of the pass whose rule recorded it")


class MadeByPass(BaseModel):
    pass_index: int
    api: str
    nodes: list[MadeNode]
    reads: list[int] = Field(description="edges from nodes it did not make (saved tensors, inputs) into it")
    walked_by: list[dict[str, int]]


class ForwardSummary(BaseModel):
    view: int
    pass_index: int
    ops: int
    leaves: int


class LeafMatch(BaseModel):
    first: int
    second: int | None
    obj: int
    name: str | None
    same_object: bool
    same_node: bool
    constant: bool


class StaticReplay(BaseModel):
    static: Value
    dynamic: Value
    agree: bool
    inputs: list[list[int]]


class ForwardPair(BaseModel):
    first: int = Field(description="view index")
    second: int
    leaves: list[LeafMatch]
    new_leaves: list[int]
    matched_ops: list[list[int]]
    only_first: list[int]
    only_second: list[int]
    same_structure: bool
    static: StaticReplay | None


class Compare(BaseModel):
    forwards: list[ForwardSummary]
    pairs: list[ForwardPair]


class EdgeHeat(BaseModel):
    edge: int
    norm: Num
    log10: float | None


class ParamHeat(BaseModel):
    node: int
    name: str | None
    module: str | None
    is_param: bool
    norm: Num
    log10: float | None


class Heat(BaseModel):
    pass_index: int
    edges: list[EdgeHeat]
    params: list[ParamHeat]


class MemoryPoint(BaseModel):
    kind: Literal["start", "op", "step", "free", "end"]
    bytes: int
    node: int | None = None
    pass_index: int | None = None
    step: int | None = None


class Memory(BaseModel):
    points: list[MemoryPoint]
    peak: int
    end: int
    total_points: int


class Lenses(BaseModel):
    modes: list[Modes] = Field(default_factory=list)
    orders: list[MadeByPass] = Field(default_factory=list)
    compare: Compare | None = None
    heat: list[Heat] = Field(default_factory=list)
    memory: Memory | None = None

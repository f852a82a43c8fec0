"""The explanation model of a run (app/worker/explain/): what each node is and each backward step computes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .common import LocalizedText, Said, Value


# ---- the explanation model (app/worker/explain/) -----------------------------------------------------------
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
    ``how``, giving ``value`` (``engine.ops.explain.compute`` recomputes it)."""

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
    says: Said | None = Field(default=None, description="said before the rules: a CopySlices that wraps an "
                                                        "in-place op says where that op's rules ran")

"""The "Why?" diagnoses of a run (app/worker/why/): for each named tensor whose gradient is
suspicious, its cause on the recorded backward pass, the path to highlight and what to say."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from .common import Num


class WhyText(BaseModel):
    en: str
    zh: str


class Diagnosis(BaseModel):
    name: str
    node: int | None = Field(description="the tensor's node (None: no op read it)")
    symptom: Literal["none", "zero", "part_zero", "nonfinite", "tiny", "huge"]
    cause: Literal["cut", "zeroed", "vanish", "explode", "nonfinite", "not_yet", "unknown"]
    op: str = Field(description="the op blamed (a table key), or the cut or mistake "
                                "(detach, data, item, no_grad, integer, argmax, compare, requires_grad, "
                                "unused, zero_grad, hook, retain_grad, backward)")
    at: int | None = Field(description="the node of the op blamed")
    path: list[int] = Field(description="the nodes from the tensor to the cause, to highlight")
    edges: list[int] = Field(description="the edges between them")
    facts: dict[str, Any] = Field(description="the numbers the sentences use")
    text: WhyText = Field(description="one sentence a line: the symptom, the cause, then layer by layer")


class Why(BaseModel):
    tiny: Num = Field(description="tiny: mean |grad| below this times max(mean |value|, 1)")
    huge: Num = Field(description="huge: mean |grad| above this times max(mean |value|, 1)")
    tensors: dict[str, Diagnosis] = Field(default_factory=dict)
    more: int = Field(default=0, description="suspicious module parameters past the ones diagnosed "
                                             "(a deep model's), only counted")

"""The live class routes (``/api/class/...``): what the teacher's page publishes, a student's
guesses, the reveal, and the answers."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .graph import PartId
from .run import VariableIn

LENSES = Literal["modes", "orders", "compare", "heat", "memory"]
ViewKey = Annotated[str, Field(pattern=r"^\d{1,4}$")]  # a view's index, as a JSON key is text


class ClassState(BaseModel):
    """What every follower's page shows as the teacher's page does: the program and its inputs, the
    step, the graph level, the boxes open in each view, the course view, and predict mode."""

    model_config = ConfigDict(extra="forbid")
    source: str = Field(description="the program (the whole update is bounded by MAX_STATE_BYTES)")
    variables: dict[str, VariableIn] = Field(default_factory=dict, max_length=64)
    frame: int = Field(default=0, ge=0, le=10_000_000)
    fold: Literal["auto", "module", "op"] = "auto"
    open: dict[ViewKey, Annotated[list[PartId], Field(max_length=1000)]] = Field(
        default_factory=dict, max_length=256, description="view index (as text) -> its open parts")
    lens: LENSES | None = None
    present: bool = False
    predict: bool = False
    asking: int | None = Field(default=None, ge=0, description="the frame whose prediction is open")


class Reveal(BaseModel):
    """The teacher revealed the prediction at ``frame``: ``right`` of ``total`` guesses were right."""

    model_config = ConfigDict(extra="forbid")
    frame: int = Field(ge=0)
    right: int = Field(ge=0)
    total: int = Field(ge=0)


class Guess(BaseModel):
    """A student's guesses at ``frame``, one list of numbers per question."""

    model_config = ConfigDict(extra="forbid")
    frame: int = Field(ge=0, le=10_000_000)
    guesses: list[list[float]] = Field(max_length=64)


class JoinCode(BaseModel):
    code: str = Field(max_length=32)


class Started(BaseModel):
    id: str
    code: str
    teacher: str = Field(description="the teacher token: only the teacher's page holds it")


class Joined(BaseModel):
    id: str
    student: str
    seq: int
    state: ClassState | None
    revealed: Reveal | None


class Answers(BaseModel):
    count: int
    guesses: list[list[list[float]]] | None = None

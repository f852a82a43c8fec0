"""``POST /api/run/extras``: what a run's answer leaves for later (``extras_later``), asked by the page
when it shows it: the check by hand and the course views but the gradient heat."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .common import ErrorInfo
from .lenses import Compare, MadeByPass, Memory, Modes
from .run import GradCheckPass, VariableIn


class ExtrasRequest(BaseModel):
    """The program and inputs of a run whose answer said ``extras_later``; it runs again (runs are
    deterministic)."""

    source: str
    variables: dict[str, VariableIn] | None = None
    fingerprint: str | None = Field(default=None, max_length=64,
                                    description="the run's fingerprint: a different run answers 409")


class LaterLenses(BaseModel):
    """The course views a run's answer leaves for later (its ``lenses`` hold the heat)."""

    modes: list[Modes] = Field(default_factory=list)
    orders: list[MadeByPass] = Field(default_factory=list)
    compare: Compare | None = None
    memory: Memory | None = None


class ExtrasResponse(BaseModel):
    """The fields a run's answer left for later, as a whole answer holds them."""

    fingerprint: str = Field(max_length=64, description="the run's (POST /api/run's answer has the same)")
    grad_check: list[GradCheckPass] = Field(
        description="each kept backward pass checked by hand: autograd, finite differences, the course's "
                    "formula")
    lenses: LaterLenses
    timings: dict[str, float] = Field(default_factory=dict, description="seconds spent: run, extras")


class WorkerExtrasReply(BaseModel):
    """A worker's answer to ``extras`` besides its text (between processes, not HTTP): nothing, or
    why the program could not run."""

    model_config = ConfigDict(extra="forbid")

    program_error: ErrorInfo | None = None

"""What a sandboxed worker answers the server for a run (between processes, not HTTP)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .common import ErrorInfo
from .layout import LayoutInput


# ---- a worker's answer to a run (between the server and its sandboxed worker, not HTTP) -------------
class PreparedRun(BaseModel):
    """Besides the answer text: what the server draws and splices in."""

    model_config = ConfigDict(extra="forbid")

    nonce: str = Field(pattern=r"^[0-9a-f]{16}$")
    layout: LayoutInput
    views: int = Field(ge=0)
    timings: dict[str, float]
    fingerprint: str = Field(default="", max_length=64, pattern=r"^[0-9a-f]*$")
    timed_out: bool = False  # the run stopped on its wall-time limit: kept for nobody else


class WorkerRunReply(BaseModel):
    """A worker's whole answer to a run: the prepared answer, or why the program could not run."""

    model_config = ConfigDict(extra="forbid")

    prepared: PreparedRun | None = None
    program_error: ErrorInfo | None = None

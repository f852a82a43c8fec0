"""What the server says about itself: ``GET /api/limits``, ``/api/ops``, ``/api/health``,
``/api/examples``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .common import LocalizedText
from .run import VariableIn


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

"""The MLP builder and its training view (``/api/mlp/...``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .common import ErrorInfo


# ---- MLP builder and training view (/api/mlp/...) ------------------------------------------------------
class MlpConfig(BaseModel):
    """The MLP builder form. The builder checks that the values fit together (see app/mlp/builder.py)."""

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

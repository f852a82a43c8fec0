"""Decision-boundary frames for a 2-D classification program from the MLP builder.

The program runs through the runner like any other; the optimizer steps it recorded hold every
parameter's value before and after each step. For a few snapshots spread over training, the network
the form describes (Linear layers and one activation) is evaluated on a grid over the data, in NumPy.
``boundary_job`` is module-level and returns plain data, so a worker pool can run it.
"""

from __future__ import annotations

import numpy as np

from ..schemas.common import error_info
from ..schemas.mlp import MlpConfig
from ..words.messages import own_message
from .builder import Plan, build_program, plan


def relu(z: np.ndarray) -> np.ndarray:
    return np.maximum(z, 0.0)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


ACT = {"relu": relu, "tanh": np.tanh, "sigmoid": sigmoid}  # the builder's activations, as nn applies them


class BoundaryError(ValueError):
    """The program's run cannot give frames (it failed, or its parameters do not fit the form)."""


def snapshot_steps(total: int, frames: int) -> list[int]:
    """Distinct step counts from 0 (initial weights) to ``total`` (final), about ``frames`` of them."""
    if total <= 0:
        return [0]
    picks = np.linspace(0, total, max(2, frames)).round().astype(int)
    return sorted(set(int(s) for s in picks))


def weights_at(optimizer_steps, step: int) -> list[np.ndarray]:
    """Every parameter's value after ``step`` optimizer steps (0: before the first)."""
    if step == 0:
        return [np.asarray(p["before"]) for p in optimizer_steps[0].params]
    return [np.asarray(p["after"]) for p in optimizer_steps[step - 1].params]


def check_shapes(weights: list[np.ndarray], p: Plan) -> None:
    """The parameters must be the form's Linear layers, weight then bias, in order."""
    sizes = [p.input_size, *p.hidden, p.output_size]
    expected = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        expected += [(b, a), (b,)]
    got = [tuple(w.shape) for w in weights]
    if got != expected:
        raise BoundaryError(own_message("boundary_layers", got, expected))


def forward(weights: list[np.ndarray], activation: str, x: np.ndarray) -> np.ndarray:
    """The MLP's output for inputs ``x`` (rows), with float64 arithmetic."""
    act = ACT[activation]
    h = x
    layers = len(weights) // 2
    for i in range(layers):
        h = h @ weights[2 * i].astype(np.float64).T + weights[2 * i + 1].astype(np.float64)
        if i < layers - 1:
            h = act(h)
    return h


def predict(out: np.ndarray, p: Plan) -> tuple[np.ndarray, np.ndarray]:
    """Class and confidence per row of outputs, as the loss reads them."""
    if p.output_size == 1:
        score = out[:, 0]
        prob = 1.0 / (1.0 + np.exp(-score)) if p.threshold == 0.0 else np.clip(score, 0.0, 1.0)
        cls = (score > p.threshold).astype(int)
        return cls, np.where(cls == 1, prob, 1.0 - prob)
    z = out - out.max(axis=1, keepdims=True)
    e = np.exp(z)
    probs = e / e.sum(axis=1, keepdims=True)
    cls = probs.argmax(axis=1)
    return cls, probs[np.arange(len(cls)), cls]


def grid_points(points: np.ndarray, grid: int) -> tuple[np.ndarray, list[float], list[float]]:
    """``grid × grid`` cell centres over the data (padded), rows from bottom to top."""
    lo = points.min(axis=0) - 0.5
    hi = points.max(axis=0) + 0.5
    xs = np.linspace(lo[0], hi[0], grid)
    ys = np.linspace(lo[1], hi[1], grid)
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx.ravel(), gy.ravel()], axis=1), [float(lo[0]), float(hi[0])], [float(lo[1]),
                                                                                      float(hi[1])]


def boundary_job(config: dict, source: str | None, grid: int, frames: int) -> dict:
    """Run the program and return a ``BoundaryResponse`` as plain data (``error`` set on failure)."""

    from engine.runner import ProgramError, run_program

    cfg = MlpConfig(**config)
    p = plan(cfg)
    empty = {"x_range": [0.0, 1.0], "y_range": [0.0, 1.0], "grid": grid, "classes": p.classes,
             "points": [], "labels": [], "frames": []}
    if p.task != "classification":
        return dict(empty, error=error_info("ValueError", own_message("boundary_not_2d")))
    if source is None:
        source = build_program(cfg)[0]
    try:
        result = run_program(source)
    except ProgramError as exc:
        err = exc.error
        return dict(empty, error=error_info(err.type, err.message, err.line, err.col))
    try:
        return _frames(result, p, cfg, grid, frames)
    except BoundaryError as exc:
        return dict(empty, error=error_info("ValueError", str(exc)))


def _frames(result, p: Plan, cfg: MlpConfig, grid: int, frames: int) -> dict:
    names = result.variables or {}
    x, y = names.get("X"), names.get("y")
    if x is None or y is None or tuple(x.shape)[1:] != (2,):
        raise BoundaryError(own_message("boundary_no_xy"))
    points = np.asarray(x.detach().numpy(), dtype=np.float64)
    labels = np.asarray(y.detach().numpy()).astype(int).ravel()
    steps = result.trace.optimizer_steps
    if not steps:
        raise BoundaryError(own_message("boundary_no_step"))
    cells, xr, yr = grid_points(points, grid)
    out_frames = []
    for s in snapshot_steps(len(steps), frames):
        weights = weights_at(steps, s)
        check_shapes(weights, p)
        cls, conf = predict(forward(weights, cfg.activation, cells), p)
        hit, _ = predict(forward(weights, cfg.activation, points), p)
        out_frames.append({"step": s, "classes": cls.reshape(grid, grid).tolist(),
                           "confidence": np.round(conf, 3).reshape(grid, grid).tolist(),
                           "accuracy": float((hit == labels).mean())})
    error = None
    if result.error is not None:
        err = result.error
        error = error_info(err.type, err.message, err.line, err.col)
    return {"x_range": xr, "y_range": yr, "grid": grid, "classes": p.classes,
            "points": np.round(points, 4).tolist(), "labels": labels.tolist(), "frames": out_frames,
            "error": error}

"""``torch.nn.utils``: gradient clipping (in place on ``.grad``, outside the graph, as torch)."""

from __future__ import annotations

import math

import numpy as np

from .. import arguments as A
from ..tensor import Tensor


def _grads(parameters, fn: str) -> list[Tensor]:
    """The gradients of ``parameters`` (a tensor, or an iterable of tensors), read through the gate."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = A.items(parameters, lambda v: TypeError(A.must(fn, "parameters", 1, "Tensor", v)))
    for p in parameters:
        if not isinstance(p, Tensor):
            raise TypeError(A.must(fn, "parameters", 1, "Tensor", p))
    return [p._grad for p in parameters if p._grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale all gradients by min(1, max_norm / (‖g‖ + 1e-6)); returns the total norm ‖g‖."""
    grads = _grads(parameters, "clip_grad_norm_")
    max_norm = A.real(max_norm, "clip_grad_norm_", "max_norm", 2)
    norm_type = A.real(norm_type, "clip_grad_norm_", "norm_type", 3)
    error_if_nonfinite = A.flag(error_if_nonfinite, "clip_grad_norm_", "error_if_nonfinite", strict=False)
    if not grads:
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    norm_type = float(norm_type)
    if math.isinf(norm_type):
        norms = [np.max(np.abs(g._data)) for g in grads]
        total = max(norms)
    else:
        norms = [np.sum(np.abs(g._data) ** norm_type) ** (1.0 / norm_type) for g in grads]
        total = np.sum(np.asarray(norms) ** norm_type) ** (1.0 / norm_type)
    dtype = grads[0]._data.dtype
    total = np.asarray(total, dtype=dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and scale the "
                           "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    coef = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    for g in grads:
        g._data *= np.asarray(coef, dtype=g._data.dtype)
        g._vc[0] += 1
    return Tensor._make(total)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient element into [−clip_value, clip_value]."""
    clip_value = A.real(clip_value, "clip_grad_value_", "clip_value", 2)
    for g in _grads(parameters, "clip_grad_value_"):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc[0] += 1

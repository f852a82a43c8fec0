"""cross_entropy's ``label_smoothing``, op for op as PyTorch computes it, so that the values, the
gradients and the drawn graph are torch's: for class indices,
``(1 − ε)·nll + ε/C · smooth`` where ``smooth`` is −Σ_c log q (weighted when the loss has weights)
with ignored targets filled with 0 and reduced like the loss; for class probabilities the target
becomes ``p·(1 − ε) + ε/C`` before the usual −Σ p·log q.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .arithmetic import add, div, mul, neg
from .cascade import torch_sum
from .fused_backward import mul_scalar
from .masked import masked_fill
from .reduce import sum
from .shape import reshape


def check_smoothing(label_smoothing: float) -> bool:
    """Whether smoothing applies; torch refuses a value above 1 and ignores one ≤ 0."""
    if label_smoothing <= 0.0:
        return False
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    return True


def smoothed_targets(target: Tensor, label_smoothing: float, n_classes: int) -> Tensor:
    """Class probabilities mixed with the uniform distribution: p·(1 − ε) + ε/C."""
    return add(mul(target, 1 - label_smoothing), label_smoothing / n_classes)


def smoothed_nll(nll: Tensor, logp: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int,
                 reduction: str, label_smoothing: float, class_dim: int) -> Tensor:
    """``(1 − ε)·nll + ε/C · smooth`` for class-index targets, given the loss's nll and log q."""
    n_classes = logp.shape[class_dim]
    t = target._data
    ignored = t == ignore_index
    if weight is not None:
        shape = [1] * logp.ndim
        shape[class_dim] = weight.shape[0]
        smooth = neg(sum(mul(logp, reshape(weight, tuple(shape))), class_dim))
    else:
        smooth = neg(sum(logp, class_dim))
    smooth = masked_fill(smooth, Tensor._make(np.asarray(ignored).reshape(smooth.shape)), 0.0)
    if reduction == "none":
        rest = smooth
    elif reduction == "sum":
        rest = sum(smooth)
    else:
        # torch divides by the summed weights of the kept targets (their count without weights);
        # neither is a graph input
        kept = t[~ignored]
        if weight is not None:
            w = weight._data
            denominator = Tensor._make(np.asarray(torch_sum(w[kept.reshape(-1)]), dtype=w.dtype))
        else:
            denominator = Tensor._make(np.asarray(kept.size, dtype=np.int64))
        rest = div(sum(smooth), denominator)
    return add(mul_scalar(nll, 1 - label_smoothing), mul_scalar(rest, label_smoothing / n_classes))

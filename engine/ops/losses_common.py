"""cross_entropy's common case, checked once and run in the fewest Python steps: a 2-D floating
input of logits, a 1-D int64 target of classes within range, no class weights, ``reduction="mean"``,
the default ``ignore_index`` and no label smoothing. What it records is what the general path
records (LogSoftmaxBackward0, then NllLossBackward0 with the same params, extras and saved tensors);
any other call goes the general way (engine/ops/losses.py), which holds all of torch's checks.
"""

from __future__ import annotations

import numpy as np

from ..dispatch import apply
from ..tensor import Tensor
from .cascade_kernels import nll_sum
from .table import OPS

_INT64 = np.dtype(np.int64)
_FLOATS = "fd"  # float32 and float64 (float16's sum of ones is not exact past 2048: general path)

# cross_entropy's defaults, compared by identity: an argument left out is one of these very objects,
# which says what it is in one step (a value passed explicitly goes the general way, same result).
MEAN = "mean"
IGNORE_INDEX = -100
NO_SMOOTHING = 0.0


def common_cross_entropy(input, target):
    """cross_entropy(input, target) with every other argument at its default, or None when the
    input or target is not of the common case (then the general path checks and runs it)."""
    if type(input) is not Tensor or type(target) is not Tensor:
        return None
    x, t = input._data, target._data
    if (x.ndim != 2 or t.ndim != 1 or t.dtype != _INT64 or x.dtype.char not in _FLOATS
            or x.shape[0] != t.shape[0]):
        return None
    targets = t.tolist()  # what the node's params keep
    if not targets or min(targets) < 0 or max(targets) >= x.shape[1]:
        return None  # an empty batch, or a target out of bounds (the general path raises torch's error)
    logp = apply(_LOG_SOFTMAX, (input,), {"dim": 1})
    return apply(OPS["nll_loss"], (logp,), {"target": targets, "weight": None, "reduction": "mean",
                                 "ignore_index": IGNORE_INDEX})


def nll_mean_rows(a: np.ndarray, targets: list):
    """nll_loss's forward for (batch, classes) log-probabilities, a non-empty list of targets none
    of which is ignored, no weights, mean: one gather, one sum in nll_loss's order, the gradient's
    one-hot coefficients scattered into one zeroed buffer."""
    where = (np.arange(len(targets)), np.asarray(targets, dtype=np.int64))
    picked = a[where]
    out = nll_sum(np.negative(picked, out=picked))
    coef = np.zeros(a.shape, dtype=a.dtype)
    coef[where] = -1
    denom = np.asarray(len(targets), dtype=a.dtype)
    return np.asarray(out / denom, dtype=a.dtype), {"coef": coef, "denom": denom}


_LOG_SOFTMAX = OPS["log_softmax"]

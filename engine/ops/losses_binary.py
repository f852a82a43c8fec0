"""The binary losses of ``torch.nn.functional``: binary_cross_entropy and
binary_cross_entropy_with_logits. Their table entries, then the functions with torch's argument
checks and error texts; the reductions and checks every loss shares are in engine/ops/losses.py."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply
from ..errors import not_supported
from ..tensor import Tensor
from .elementwise import logistic
from .explain import X0, X1, G, P, clamp_below, if_param, log, scaled, sigmoid, vjp, weighted
from .losses import loss_inputs, mean_scaled, reduce_loss, reduced_like, reduction_mode
from .table import OPS, public, register

BCE_EPS = float(np.float32(1e-12))  # torch's EPSILON in binary_cross_entropy_backward is a float
LOG_FLOOR = -100.0  # torch clamps log terms of binary_cross_entropy at -100


# ---- binary_cross_entropy -----------------------------------------------------------------------
def _weight(w, like):
    return None if w is None else np.asarray(w, dtype=like.dtype)


def _bce(a, t, weight, reduction):
    if np.any((a < 0) | (a > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if np.any((t < 0) | (t > 1)):
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = (t - 1) * np.maximum(np.log1p(-a), LOG_FLOOR) - t * np.maximum(np.log(a), LOG_FLOOR)
    w = _weight(weight, a)
    if w is not None:
        loss = loss * w
    return reduce_loss(loss.astype(a.dtype, copy=False), reduction)


def _weighted(x, s):
    w = s.p["weight"]
    if w is None:
        return x
    return x * s.xp.const(np.asarray(w), s.xp.data(x))


def _bce_vjp_input(g, s):
    xp = s.xp
    a = s.a
    d = (1 - a) * a
    d = xp.where(d > BCE_EPS, d, xp.const(BCE_EPS, xp.data(d)))
    return _weighted(mean_scaled(g, s, xp.data(a).shape) * (a - s.b) / d, s)


def _bce_vjp_target(g, s):
    xp = s.xp
    a = s.a
    logit = xp.log(a) - xp.log(1 - a)
    return _weighted(-logit * mean_scaled(g, s, xp.data(a).shape), s)


register("binary_cross_entropy", "BinaryCrossEntropyBackward0", _bce,
         [_bce_vjp_input, _bce_vjp_target],
         ["∂bce/∂p = w(p − y) / max(p(1 − p), 1e-12) (÷ n for mean)",
          "∂bce/∂y = −w·log(p / (1 − p)) (÷ n for mean)"],
         saves=("a", "b"), promote=True,
         description="binary cross-entropy −w[y·log p + (1−y)·log(1−p)], logs clamped at −100",
         jvps=[lambda t, s: reduced_like(_bce_vjp_input(t, s), s),
               lambda t, s: reduced_like(_bce_vjp_target(t, s), s)],
         jvp_formulas=["w(p − y)·ṗ / max(p(1 − p), 1e-12) (÷ n for mean), reduced",
                       "−w·log(p / (1 − p))·ẏ (÷ n for mean), reduced"],
         explain=vjp("binary_cross_entropy({0}, {1})",
                     "二元交叉熵 −w[y·log p + (1−y)·log(1−p)]，对数截断于 −100",
                     weighted(scaled(G) * (X0 - X1) / clamp_below(X0 * (1 - X0), BCE_EPS)),
                     weighted(-(log(X0) - log(1 - X0)) * scaled(G))))


# ---- binary_cross_entropy_with_logits -----------------------------------------------------------
def _log_sigmoid_np(x):
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _bce_logits(a, t, weight, pos_weight, reduction):
    ls = _log_sigmoid_np(a)
    if pos_weight is not None:
        ls = ls * ((np.asarray(pos_weight, dtype=a.dtype) - 1) * t + 1)
    loss = (1 - t) * a - ls
    w = _weight(weight, a)
    if w is not None:
        loss = loss * w
    return reduce_loss(loss.astype(a.dtype, copy=False), reduction)


def _log_sigmoid_xp(xp, x):
    zero = xp.const(0.0, xp.data(x))
    neg_abs = xp.where(x < 0, x, -x)
    return xp.where(x < 0, x, zero) - xp.log(1 + xp.exp(neg_abs))


def _bcel_vjp_input(g, s):
    xp = s.xp
    x, t = s.a, s.b
    pw = s.p["pos_weight"]
    if pw is None:
        core = logistic(xp, x) - t
    else:
        pwt = xp.const(np.asarray(pw), xp.data(x)) * t
        core = (pwt + 1 - t) * logistic(xp, x) - pwt
    return _weighted(core * mean_scaled(g, s, xp.data(x).shape), s)


def _bcel_vjp_target(g, s):
    xp = s.xp
    x = s.a
    pw = s.p["pos_weight"]
    if pw is None:
        core = -x
    else:
        core = _log_sigmoid_xp(xp, -x) - _log_sigmoid_xp(xp, x) * xp.const(np.asarray(pw), xp.data(x))
    return _weighted(core * mean_scaled(g, s, xp.data(x).shape), s)


register("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", _bce_logits,
         [_bcel_vjp_input, _bcel_vjp_target],
         ["∂bce(σ(x), y)/∂x = w(σ(x) − y) (÷ n for mean)", "∂bce(σ(x), y)/∂y = −w·x (÷ n for mean)"],
         saves=("a", "b"), promote=True,
         description="binary cross-entropy on logits: (1−y)·x − log σ(x), weighted, reduced",
         jvps=[lambda t, s: reduced_like(_bcel_vjp_input(t, s), s),
               lambda t, s: reduced_like(_bcel_vjp_target(t, s), s)],
         jvp_formulas=["w(σ(x) − y)·ẋ (÷ n for mean), reduced", "−w·x·ẏ (÷ n for mean), reduced"],
         explain=vjp("binary_cross_entropy_with_logits({0}, {1})",
                     "基于 logits 的二元交叉熵：(1−y)·x − log σ(x)，加权后归约",
                     weighted(if_param("pos_weight", sigmoid(X0) - X1,
                                       (P("pos_weight") * X1 + 1 - X1) * sigmoid(X0) - P("pos_weight") * X1)
                              * scaled(G)),
                     weighted(if_param("pos_weight", -X0,
                                       log(sigmoid(-X0)) - log(sigmoid(X0)) * P("pos_weight")) * scaled(G))))


def _same_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")


def _weight_like(w: Tensor | None, input: Tensor, fn: str):
    if w is None:
        return None
    if w.requires_grad:
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    return np.broadcast_to(w._data, tuple(input.shape)).tolist()


@public("F")
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """−w[y·log p + (1−y)·log(1−p)] with the logs clamped at −100 (BinaryCrossEntropyBackward0)."""
    input, target, weight = loss_inputs("binary_cross_entropy", input, target, weight)
    reduction = reduction_mode(size_average, reduce, reduction, "binary_cross_entropy")
    _same_size(input, target)
    params = {"weight": _weight_like(weight, input, "binary_cross_entropy"), "reduction": reduction}
    return apply(OPS["binary_cross_entropy"], (input, target), params)


@public("F")
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Binary cross-entropy on logits, computed stably (BinaryCrossEntropyWithLogitsBackward0)."""
    fn = "binary_cross_entropy_with_logits"
    input, target, weight = loss_inputs(fn, input, target, weight)
    pos_weight = A.optional_tensor(pos_weight, fn, "pos_weight")
    reduction = reduction_mode(size_average, reduce, reduction, fn)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    pw = None
    if pos_weight is not None:
        if pos_weight.requires_grad:
            raise not_supported("pos_weight that requires grad")
        pw = np.broadcast_to(pos_weight._data, tuple(input.shape)).tolist()
    params = {"weight": _weight_like(weight, input, "binary_cross_entropy_with_logits"), "pos_weight": pw,
              "reduction": reduction}
    return apply(OPS["binary_cross_entropy_with_logits"], (input, target), params)

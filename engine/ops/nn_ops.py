"""Neural-network ops of the table: softmax, log_softmax and the losses (nll, mse, bce, bce with logits).

Like the other table entries, each rule is written once against ``s.xp`` so it runs on arrays for
first-order backward and on Tensors for ``create_graph=True``. Integer targets and loss weights are
not graph inputs in PyTorch (its grad_fn has no edge for them), so they travel as params: nested
tuples, which the trace can show and serialize.
"""

from __future__ import annotations

import math

import numpy as np

from .table import OPS, register

_REDUCTIONS = ("none", "mean", "sum")
BCE_EPS = float(np.float32(1e-12))  # torch's EPSILON in binary_cross_entropy_backward is a float
LOG_FLOOR = -100.0  # torch clamps log terms of binary_cross_entropy at -100


def _as1(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


# ---- softmax / log_softmax ----------------------------------------------------------------------
def _softmax(a, dim):
    x = _as1(a)
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return (e / e.sum(axis=dim, keepdims=True)).reshape(a.shape)


def _max_keepdims(x, dim):
    """``x.max(axis=dim, keepdims=True)``. NumPy reduces a short last axis row by row (slowly); the
    rows of a few classes are reduced faster down a contiguous transposed copy (max is exact, so the
    result is the same)."""
    if dim == 1 and x.ndim == 2 and x.shape[1] <= 32:
        return np.maximum.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    return np.maximum.reduce(x, axis=dim, keepdims=True)


def _log_softmax(a, dim):
    # ufunc reductions straight away (ndarray.max/.sum add a Python wrapper) and the last
    # subtraction in place: this runs in every cross_entropy.
    x = _as1(a)
    shifted = x - _max_keepdims(x, dim)
    shifted -= np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))
    return shifted.reshape(a.shape)


def _axis(s):
    return s.p["dim"] if s.xp.data(s.out).ndim else None


def _softmax_vjp(g, s):
    xp = s.xp
    return s.out * (g - xp.sum(g * s.out, axis=_axis(s), keepdims=True))


def _log_softmax_vjp(g, s):
    xp = s.xp
    return g - xp.exp(s.out) * xp.sum(g, axis=_axis(s), keepdims=True)


register("softmax", "SoftmaxBackward0", _softmax,
         [_softmax_vjp],
         ["∂softmax(x)ᵢ/∂xⱼ = yᵢ(δᵢⱼ − yⱼ)  ⇒  gₓ = y·(g − Σ g·y)"], saves=("out",),
         description="softmax(x)ᵢ = eˣⁱ / Σⱼ eˣʲ along dim")
register("log_softmax", "LogSoftmaxBackward0", _log_softmax,
         [_log_softmax_vjp],
         ["∂log_softmax(x)ᵢ/∂xⱼ = δᵢⱼ − softmax(x)ⱼ  ⇒  gₓ = g − eʸ·Σ g"], saves=("out",),
         description="log_softmax(x)ᵢ = xᵢ − log Σⱼ eˣʲ along dim")


# ---- leaky_relu_ (in place): torch's rule reads the result, not the overwritten input -----------
LEAKY_INPLACE_NEGATIVE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
    "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
    "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
    "in-place leakRelu backward calculation with negative slope")


def _leaky_relu_inplace_vjp(g, s):
    xp = s.xp
    if s.p["negative_slope"] < 0:
        raise RuntimeError(LEAKY_INPLACE_NEGATIVE)
    like = xp.data(s.out)
    return g * xp.where(s.out > 0, xp.const(1.0, like), xp.const(s.p["negative_slope"], like))


register("leaky_relu_", "LeakyReluBackward1",
         lambda a, negative_slope: np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False),
         [_leaky_relu_inplace_vjp],
         ["∂lrelu(x)/∂x = 1 if result > 0 else slope"], saves=("out",),
         description="x if x > 0 else slope·x, in place")


# ---- smooth activations: silu, elu (and elu_ in place), softplus --------------------------------------
def _sigmoid_of(xp, x):
    return 1 / (1 + xp.exp(-x))


def _silu(a):
    return a / (1 + np.exp(-a))


def _silu_vjp(g, s):
    sig = _sigmoid_of(s.xp, s.a)
    return g * sig * (1 + s.a * (1 - sig))


register("silu", "SiluBackward0", _silu,
         [_silu_vjp],
         ["∂(x·σ(x))/∂x = σ(x)·(1 + x·(1 − σ(x)))"], saves=("a",), description="x·σ(x)")


def _elu(a, alpha):
    return np.where(a > 0, a, alpha * np.expm1(a)).astype(a.dtype, copy=False)


def _elu_vjp(g, s):
    xp = s.xp
    return xp.where(s.a > 0, g, g * s.p["alpha"] * xp.exp(s.a))


def _elu_inplace_vjp(g, s):
    # torch's rule on the result (the input is gone): α·eˣ = y + α where y ≤ 0
    xp = s.xp
    return xp.where(s.out > 0, g, g * (s.out + s.p["alpha"]))


register("elu", "EluBackward0", _elu,
         [_elu_vjp],
         ["∂elu(x)/∂x = 1 if x > 0 else α·eˣ"], saves=("a",), description="x if x > 0 else α·(eˣ − 1)")
register("elu_", "EluBackward1", _elu,
         [_elu_inplace_vjp],
         ["∂elu(x)/∂x = 1 if y > 0 else y + α"], saves=("out",),
         description="x if x > 0 else α·(eˣ − 1), in place")


def _softplus(a, beta, threshold):
    z = a * beta
    return np.where(z > threshold, a, np.log1p(np.exp(z)) / beta).astype(a.dtype, copy=False)


def _softplus_vjp(g, s):
    xp = s.xp
    z = s.a * s.p["beta"]
    e = xp.exp(z)
    return xp.where(z > s.p["threshold"], g, g * e / (e + 1))


register("softplus", "SoftplusBackward0", _softplus,
         [_softplus_vjp],
         ["∂softplus(x)/∂x = σ(βx) (1 above the threshold)"], saves=("a",),
         description="log(1 + e^(βx)) / β, linear above the threshold")


# ---- gelu (exact, with erf) and its backward as an op of its own, as torch has it ---------------------
_erf = np.vectorize(math.erf, otypes=[np.float64])
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gelu(a, approximate):
    return (a * (0.5 * (1.0 + _erf(a / _SQRT2)))).astype(a.dtype, copy=False)


def _gelu_grad(g, x, approximate):
    """g·(Φ(x) + x·φ(x)): the gradient of gelu, itself the forward of GeluBackwardBackward0."""
    cdf = 0.5 * (1.0 + _erf(x / _SQRT2))
    pdf = np.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return (g * (cdf + x * pdf)).astype(np.result_type(g, x), copy=False)


def _gelu_backward(g, x, approximate):
    """Arrays: compute it. Tensors (create_graph): record it as one GeluBackwardBackward0 node, so
    gradients of gradients come from that entry's rules (Φ has no closed form in exp alone)."""
    if isinstance(g, np.ndarray) or np.isscalar(g):
        return _gelu_grad(g, x, approximate)
    from ..dispatch import apply

    return apply(OPS["gelu_backward"], (g, x), {"approximate": approximate})


def _gelu_vjp(g, s):
    return _gelu_backward(g, s.a, s.p["approximate"])


def _gelu_backward_vjp_grad(gg, s):
    return _gelu_backward(gg, s.b, s.p["approximate"])


def _gelu_backward_vjp_x(gg, s):
    # d/dx [g·(Φ(x) + x·φ(x))] = g·φ(x)·(2 − x²)
    xp, x = s.xp, s.b
    pdf = xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return gg * s.a * pdf * (2 - x * x)


register("gelu", "GeluBackward0", _gelu,
         [_gelu_vjp],
         ["∂(x·Φ(x))/∂x = Φ(x) + x·φ(x)"], saves=("a",), description="x·Φ(x), Φ the normal CDF")
register("gelu_backward", "GeluBackwardBackward0", _gelu_grad,
         [_gelu_backward_vjp_grad, _gelu_backward_vjp_x],
         ["∂(g·gelu′(x))/∂g = gelu′(x)", "∂(g·gelu′(x))/∂x = g·φ(x)·(2 − x²)"], saves=("a", "b"),
         promote=True, description="the gradient of gelu, g·(Φ(x) + x·φ(x))")


# ---- reductions shared by the losses ------------------------------------------------------------
def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return np.mean(loss, dtype=loss.dtype)
    if reduction == "sum":
        return np.sum(loss, dtype=loss.dtype)
    return loss


def _scale(g, s, n_shape):
    """Upstream gradient ready for elementwise use: divided by n for ``mean``."""
    if s.p["reduction"] == "mean":
        n = int(np.prod(n_shape, dtype=np.int64))
        return g / n
    return g


# ---- nll_loss -----------------------------------------------------------------------------------
def _nll(a, target, weight, reduction, ignore_index):
    t = np.asarray(target, dtype=np.int64)
    # The common case (no class weights, no ignored target) needs no weight array: every weight
    # is 1, so the sums below are those of the general case without the multiplications by 1.
    # (float16, char "e", keeps the general path: its sum of ones is not exact past 2048.)
    ones = False
    if weight is None and a.dtype.char != "e":
        if type(target) is list and t.ndim == 1:  # a flat list: Python's `in` beats NumPy calls here
            ones = ignore_index not in target
        else:
            ones = not (t == ignore_index).any()
    if ones:
        tc = t
    else:
        valid = t != ignore_index
        tc = np.where(valid, t, 0)
    # One (batch, class, spatial...) index per target: the class axis is 0 for a 1-D input, else 1.
    if a.ndim == 1:
        where = (tc,)
    elif t.ndim == 1:
        where = (np.arange(t.shape[0]), tc)
    else:
        grid = np.indices(t.shape, sparse=True)
        where = (grid[0], tc, *grid[1:])
    picked = a[where]
    coef = np.zeros(a.shape, dtype=a.dtype)
    if ones:
        if reduction == "none":
            out = np.negative(picked)
            coef[where] = -1
        else:
            out = -np.add.reduce(picked, axis=None, dtype=a.dtype)
            if reduction == "mean":
                denom = a.dtype.type(t.size)
                out = out / denom
                coef[where] = a.dtype.type(-1) / denom
            else:
                coef[where] = -1
        return np.asarray(out, dtype=a.dtype), {"coef": coef}
    if weight is None:
        wt = valid.astype(a.dtype)
    else:
        wt = (np.asarray(weight, dtype=a.dtype)[tc] * valid).astype(a.dtype, copy=False)
    losses = -wt * picked
    if reduction == "none":
        out, denom = losses, None
    elif reduction == "sum":
        out, denom = np.sum(losses, dtype=a.dtype), None
    else:
        denom = np.sum(wt, dtype=a.dtype)
        out = np.sum(losses, dtype=a.dtype) / denom
    # The gradient of every log-probability: −wₜ (÷ Σw for mean) where it was picked, 0 elsewhere.
    coef[where] = -wt if denom is None else -wt / denom
    return np.asarray(out, dtype=a.dtype), {"coef": coef}


def _nll_vjp(g, s):
    xp = s.xp
    coef = s.x["coef"]
    if s.p["reduction"] == "none" and coef.ndim > 1:
        gd = xp.data(g)
        g = xp.reshape(g, gd.shape[:1] + (1,) + gd.shape[1:])
    return g * xp.const(coef, xp.data(g))


register("nll_loss", "NllLossBackward0", _nll,
         [_nll_vjp],
         ["∂nll/∂xₙ,ₖ = −wₖ (÷ Σw for mean) if k = targetₙ, else 0"],
         description="negative log-likelihood: −w[t]·x[n, t], reduced")
register("nll_loss2d", "NllLoss2DBackward0", _nll,
         [_nll_vjp],
         ["∂nll/∂xₙ,ₖ,ᵢ,ⱼ = −wₖ (÷ Σw for mean) if k = targetₙ,ᵢ,ⱼ, else 0"],
         description="negative log-likelihood per position of an (N, C, H, W) input, reduced")


# ---- mse_loss -----------------------------------------------------------------------------------
def _mse(a, b, reduction):
    d = a - b
    return _reduce(d * d, reduction)


def _mse_vjp_a(g, s):
    return 2 * (s.a - s.b) * _scale(g, s, s.xp.data(s.a).shape)


def _mse_vjp_b(g, s):
    return -2 * (s.a - s.b) * _scale(g, s, s.xp.data(s.a).shape)


register("mse_loss", "MseLossBackward0", _mse,
         [_mse_vjp_a, _mse_vjp_b],
         ["∂(x−y)²/∂x = 2(x−y) (÷ n for mean)", "∂(x−y)²/∂y = −2(x−y) (÷ n for mean)"],
         saves=("a", "b"), promote=True, description="mean squared error (x − y)², reduced")


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
    return _reduce(loss.astype(a.dtype, copy=False), reduction)


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
    return _weighted(_scale(g, s, xp.data(a).shape) * (a - s.b) / d, s)


def _bce_vjp_target(g, s):
    xp = s.xp
    a = s.a
    logit = xp.log(a) - xp.log(1 - a)
    return _weighted(-logit * _scale(g, s, xp.data(a).shape), s)


register("binary_cross_entropy", "BinaryCrossEntropyBackward0", _bce,
         [_bce_vjp_input, _bce_vjp_target],
         ["∂bce/∂p = w(p − y) / max(p(1 − p), 1e-12) (÷ n for mean)",
          "∂bce/∂y = −w·log(p / (1 − p)) (÷ n for mean)"],
         saves=("a", "b"), promote=True,
         description="binary cross-entropy −w[y·log p + (1−y)·log(1−p)], logs clamped at −100")


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
    return _reduce(loss.astype(a.dtype, copy=False), reduction)


def _sigmoid_xp(xp, x):
    return 1 / (1 + xp.exp(-x))


def _log_sigmoid_xp(xp, x):
    zero = xp.const(0.0, xp.data(x))
    neg_abs = xp.where(x < 0, x, -x)
    return xp.where(x < 0, x, zero) - xp.log(1 + xp.exp(neg_abs))


def _bcel_vjp_input(g, s):
    xp = s.xp
    x, t = s.a, s.b
    pw = s.p["pos_weight"]
    if pw is None:
        core = _sigmoid_xp(xp, x) - t
    else:
        pwt = xp.const(np.asarray(pw), xp.data(x)) * t
        core = (pwt + 1 - t) * _sigmoid_xp(xp, x) - pwt
    return _weighted(core * _scale(g, s, xp.data(x).shape), s)


def _bcel_vjp_target(g, s):
    xp = s.xp
    x = s.a
    pw = s.p["pos_weight"]
    if pw is None:
        core = -x
    else:
        core = _log_sigmoid_xp(xp, -x) - _log_sigmoid_xp(xp, x) * xp.const(np.asarray(pw), xp.data(x))
    return _weighted(core * _scale(g, s, xp.data(x).shape), s)


register("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", _bce_logits,
         [_bcel_vjp_input, _bcel_vjp_target],
         ["∂bce(σ(x), y)/∂x = w(σ(x) − y) (÷ n for mean)", "∂bce(σ(x), y)/∂y = −w·x (÷ n for mean)"],
         saves=("a", "b"), promote=True,
         description="binary cross-entropy on logits: (1−y)·x − log σ(x), weighted, reduced")


# ---- tensor ÷ number as at::div(Tensor, Scalar) (cross_entropy with probability targets) ---------
register("div_scalar", "DivBackward1", lambda a, other: (a / other).astype(a.dtype, copy=False),
         [lambda g, s: g / s.p["other"]],
         ["∂(a/c)/∂a = 1/c"], description="a / c for a number c")

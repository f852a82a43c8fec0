"""Activations beyond the elementwise basics: softmax, log_softmax, silu, elu, softplus, gelu and the
in-place leaky_relu_/elu_. Their table entries, then ``torch.softmax``/``log_softmax`` and the
activations of ``torch.nn.functional`` (relu and leaky_relu with ``inplace``, ...).

Like the other table entries, each rule is written once against ``s.xp`` so it runs on arrays for
first-order backward and on Tensors for ``create_graph=True``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import arguments as A
from .. import dtypes
from ..dispatch import apply, apply_inplace
from ..errors import not_supported
from ..tensor import Tensor, _norm_dim
from .convert import to
from .elementwise import leaky_relu, logistic
from .explain import X0, X1, G, P, Phi, Y, exp, gt, local, phi, sigmoid, sum_over, vjp, where
from .table import OPS, public, register


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
    return s.xp.softmax_backward_data(g, s.out, s.p["dim"])


def _log_softmax_vjp(g, s):
    return s.xp.log_softmax_backward_data(g, s.out, s.p["dim"])


def _softmax_jvp(t, s):  # softmax's Jacobian is symmetric: its backward rule applied to ẋ
    xp = s.xp
    return s.out * (t - xp.sum(t * s.out, axis=_axis(s), keepdims=True))


def _log_softmax_jvp(t, s):
    xp = s.xp
    return t - xp.sum(xp.exp(s.out) * t, axis=_axis(s), keepdims=True)


register("softmax", "SoftmaxBackward0", _softmax,
         [_softmax_vjp],
         ["∂softmax(x)ᵢ/∂xⱼ = yᵢ(δᵢⱼ − yⱼ)  ⇒  gₓ = y·(g − Σ g·y)"], saves=("out",),
         description="softmax(x)ᵢ = eˣⁱ / Σⱼ eˣʲ along dim",
         jvps=[_softmax_jvp], jvp_formulas=["ẏ = y·(ẋ − Σ y·ẋ)"],
         explain=vjp("softmax({0}, dim={dim})", "softmax：沿指定维度 eˣⁱ / Σⱼ eˣʲ",
                     Y * (G - sum_over(G * Y))))
register("log_softmax", "LogSoftmaxBackward0", _log_softmax,
         [_log_softmax_vjp],
         ["∂log_softmax(x)ᵢ/∂xⱼ = δᵢⱼ − softmax(x)ⱼ  ⇒  gₓ = g − eʸ·Σ g"], saves=("out",),
         description="log_softmax(x)ᵢ = xᵢ − log Σⱼ eˣʲ along dim",
         jvps=[_log_softmax_jvp], jvp_formulas=["ẏ = ẋ − Σ eʸ·ẋ"],
         explain=vjp("log_softmax({0}, dim={dim})", "log_softmax：沿指定维度 xᵢ − log Σⱼ eˣʲ",
                     G - exp(Y) * sum_over(G)))


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
         description="leaky ReLU in place: x if x > 0 else slope·x",
         jvps=[lambda t, s: t * np.where(s.out > 0, 1.0, s.p["negative_slope"])],
         jvp_formulas=["ẋ if result > 0 else slope·ẋ"],
         explain=local("leaky_relu_({0}, {negative_slope})", "原地 Leaky ReLU：x > 0 时为 x，否则为 slope·x",
                       where(gt(Y, 0), 1, P("negative_slope"))))


# ---- smooth activations: silu, elu (and elu_ in place), softplus --------------------------------------
def _silu(a):
    return a / (1 + np.exp(-a))


def _silu_vjp(g, s):
    sig = logistic(s.xp, s.a)
    return g * sig * (1 + s.a * (1 - sig))


register("silu", "SiluBackward0", _silu,
         [_silu_vjp],
         ["∂(x·σ(x))/∂x = σ(x)·(1 + x·(1 − σ(x)))"], saves=("a",), description="SiLU: x·σ(x)",
         jvps=[_silu_vjp], jvp_formulas=["σ(x)·(1 + x·(1 − σ(x)))·ẋ"],
         explain=local("{0}·σ({0})", "SiLU 激活：x·σ(x)", sigmoid(X0) * (1 + X0 * (1 - sigmoid(X0)))))


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
         ["∂elu(x)/∂x = 1 if x > 0 else α·eˣ"], saves=("a",), description="ELU: x if x > 0 else α·(eˣ − 1)",
         jvps=[_elu_vjp], jvp_formulas=["ẋ if x > 0 else α·eˣ·ẋ"],
         explain=local("elu({0}, {alpha})", "ELU：x > 0 时为 x，否则为 α·(eˣ − 1)",
                       where(gt(X0, 0), 1, P("alpha") * exp(X0))))
register("elu_", "EluBackward1", _elu,
         [_elu_inplace_vjp],
         ["∂elu(x)/∂x = 1 if y > 0 else y + α"], saves=("out",),
         description="ELU in place: x if x > 0 else α·(eˣ − 1)",
         jvps=[_elu_inplace_vjp], jvp_formulas=["ẋ if y > 0 else (y + α)·ẋ"],
         explain=local("elu_({0}, {alpha})", "原地 ELU：x > 0 时为 x，否则为 α·(eˣ − 1)",
                       where(gt(Y, 0), 1, Y + P("alpha"))))


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
         description="log(1 + e^(βx)) / β, linear above the threshold",
         jvps=[_softplus_vjp], jvp_formulas=["σ(βx)·ẋ (ẋ above the threshold)"],
         explain=local("softplus({0}, {beta}, {threshold})",
                       "softplus：log(1 + e^(βx)) / β，超过阈值后为线性",
                       where(gt(P("beta") * X0, P("threshold")), 1, sigmoid(P("beta") * X0))))


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
         ["∂(x·Φ(x))/∂x = Φ(x) + x·φ(x)"], saves=("a",), description="GELU: x·Φ(x), Φ the normal CDF",
         jvps=[_gelu_vjp], jvp_formulas=["(Φ(x) + x·φ(x))·ẋ"],
         explain=local("{0}·Φ({0})", "GELU：x·Φ(x)，Φ 是标准正态分布函数", Phi(X0) + X0 * phi(X0)))
register("gelu_backward", "GeluBackwardBackward0", _gelu_grad,
         [_gelu_backward_vjp_grad, _gelu_backward_vjp_x],
         ["∂(g·gelu′(x))/∂g = gelu′(x)", "∂(g·gelu′(x))/∂x = g·φ(x)·(2 − x²)"], saves=("a", "b"),
         promote=True, description="the gradient of gelu, g·(Φ(x) + x·φ(x))",
         jvps=[_gelu_backward_vjp_grad, _gelu_backward_vjp_x],
         jvp_formulas=["gelu′(x)·ġ", "g·φ(x)·(2 − x²)·ẋ"],
         explain=local("{0}·(Φ({1}) + {1}·φ({1}))", "GELU 的梯度 g·(Φ(x) + x·φ(x))",
                       Phi(X1) + X1 * phi(X1), X0 * phi(X1) * (2 - X1 ** 2)))


# ---- functions -----------------------------------------------------------------------------------------
def _softmax_input(input: Tensor, dtype, kernel: str) -> Tensor:
    fn = kernel.split("_lastdim")[0]
    input = A.tensor(input, fn, "input", 1)
    dtype = A.dtype(dtype, fn)
    if dtype is not None:
        return to(input, dtype)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.scalar_name(input.dtype)}\'')
    return input


@public("torch", "Tensor")
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / Σ exp(x) along ``dim`` (SoftmaxBackward0)."""
    input = _softmax_input(input, dtype, "softmax_lastdim_kernel_impl")
    return apply(OPS["softmax"], (input,), {"dim": _norm_dim(dim, input.ndim, "softmax")})


@public("torch", "Tensor")
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """x − log Σ exp(x) along ``dim`` (LogSoftmaxBackward0)."""
    input = _softmax_input(input, dtype, "log_softmax_lastdim_kernel_impl")
    return apply(OPS["log_softmax"], (input,), {"dim": _norm_dim(dim, input.ndim, "log_softmax")})


def _softmax_dim(ndim: int, stacklevel: int) -> int:
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include "
                  "dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


@public("F", name="softmax")
def functional_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / Σ exp(x) along ``dim`` (SoftmaxBackward0)."""
    input = A.tensor(input, "softmax", "input", 1)
    if dim is None:
        dim = _softmax_dim(input.ndim, A.integer(_stacklevel, "softmax", "_stacklevel"))
    return softmax(input, dim, dtype=dtype)


@public("F", name="log_softmax")
def functional_log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """x − log Σ exp(x) along ``dim`` (LogSoftmaxBackward0)."""
    input = A.tensor(input, "log_softmax", "input", 1)
    if dim is None:
        dim = _softmax_dim(input.ndim, A.integer(_stacklevel, "log_softmax", "_stacklevel"))
    return log_softmax(input, dim, dtype=dtype)


@public("F", name="relu")
def functional_relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) (ReluBackward0)."""
    input = A.tensor(input, "relu", "input", 1)
    if inplace is not False and A.flag(inplace, "relu", "inplace", strict=False):
        return apply_inplace(OPS["relu"], input, ())
    return apply(OPS["relu"], (input,))  # relu(input) without checking input again


@public("F", name="leaky_relu")
def functional_leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else slope·x (LeakyReluBackward0; LeakyReluBackward1 in place)."""
    input = A.tensor(input, "leaky_relu", "input", 1)
    negative_slope = A.real(negative_slope, "leaky_relu", "negative_slope", 2, "Number")
    if A.flag(inplace, "leaky_relu", "inplace", strict=False):
        return apply_inplace(OPS["leaky_relu_"], input, (), {"negative_slope": negative_slope})
    return leaky_relu(input, negative_slope)


@public("F")
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x·σ(x) (SiluBackward0)."""
    input = A.tensor(input, "silu", "input", 1)
    if A.flag(inplace, "silu", "inplace", strict=False):
        return apply_inplace(OPS["silu"], input, ())
    return apply(OPS["silu"], (input,))


@public("F")
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else α·(eˣ − 1) (EluBackward0; EluBackward1 in place)."""
    input = A.tensor(input, "elu", "input", 1)
    alpha = A.real(alpha, "elu", "alpha", 2, "Number")
    if A.flag(inplace, "elu", "inplace", strict=False):
        return apply_inplace(OPS["elu_"], input, (), {"alpha": alpha})
    return apply(OPS["elu"], (input,), {"alpha": alpha})


@public("F")
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x·Φ(x), Φ the standard normal CDF (GeluBackward0); only the exact form is supported."""
    input = A.tensor(input, "gelu", "input", 1)
    approximate = A.string(approximate, "gelu", "approximate")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate != "none":
        raise not_supported("gelu(approximate='tanh')")
    return apply(OPS["gelu"], (input,), {"approximate": approximate})


@public("F")
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx)) / β, and x itself where βx > threshold (SoftplusBackward0)."""
    input = A.tensor(input, "softplus", "input", 1)
    beta = A.real(beta, "softplus", "beta", expected="Number")
    threshold = A.real(threshold, "softplus", "threshold", expected="Number")
    return apply(OPS["softplus"], (input,), {"beta": beta, "threshold": threshold})

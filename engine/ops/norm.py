"""Vector norms: ``torch.norm``, ``Tensor.norm`` and ``torch.linalg.vector_norm`` (one table
entry, LinalgVectorNormBackward0, as in PyTorch 2), for any order p over all elements or along dims.

The derivative of ‖x‖ₚ is one coefficient per element (``_coefficient``): the backward rule
multiplies the incoming gradient by it, the forward-mode rule sums the tangent weighted by it.
"""

from __future__ import annotations

import math

import numpy as np

from .. import arguments as A
from ..dispatch import apply
from ..dtypes import scalar_name
from ..errors import not_supported
from ..tensor import Tensor, _norm_dim
from .cascade_kernels import torch_norm
from .convert import to
from .explain import X0, G, P, Y, absolute, eq, sign, spread, vjp, where
from .reduce import _sum_dims
from .table import OPS, public, register


def _vector_norm(a, ord, dim, keepdim, shape):  # noqa: A002 - PyTorch's name
    r = torch_norm(a, ord, dim, keepdim)  # float32 added in PyTorch's order
    if r is not None:
        return r
    x = np.abs(a)
    if ord == math.inf:
        r = np.max(x, axis=dim, keepdims=keepdim)
    elif ord == -math.inf:
        r = np.min(x, axis=dim, keepdims=keepdim)
    elif ord == 0:
        r = np.sum(x != 0, axis=dim, keepdims=keepdim)
    elif ord == 1:
        r = np.sum(x, axis=dim, keepdims=keepdim)
    elif ord == 2:
        r = np.sqrt(np.sum(x * x, axis=dim, keepdims=keepdim))
    else:
        r = np.sum(x ** ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(r, dtype=a.dtype)


def _coefficient(s):
    """∂‖x‖ₚ/∂xᵢ for every element, in the rule's world (shaped like x): sign(x)·|x|ᵖ⁻¹ / ‖x‖ᵖ⁻¹
    (x / ‖x‖ for p = 2, sign(x) for p = 1, shared evenly among the largest |xᵢ| for p = ±∞), and 0
    where the norm is 0, as PyTorch defines it there."""
    xp, p, a = s.xp, s.p["ord"], s.a
    out = _keep_dims(s.out, s)
    like = xp.data(a)
    sign = xp.sign(a)
    if p == 0:
        return xp.const(np.zeros(like.shape), like)
    if p == 1:
        return sign
    zero = xp.data(out) == 0
    safe = xp.where(zero, xp.const(1.0, like), out)
    if p == 2:
        coef = a / safe
    elif p in (math.inf, -math.inf):
        hit = np.abs(like) == xp.data(out)
        count = np.sum(hit, axis=s.p["dim"], keepdims=True)
        return sign * xp.const(hit / np.maximum(count, 1), like)
    else:
        coef = sign * (a * sign) ** (p - 1) / safe ** (p - 1)
    return xp.where(np.broadcast_to(zero, like.shape), xp.const(0.0, like), coef)


def _keep_dims(x, s):
    """The norm (or its gradient) with the dims it reduced put back as size 1, so it broadcasts
    against the input (a norm of all elements is a 0-dim array and broadcasts as it is)."""
    dims = s.p["dim"]
    if dims is None or s.p["keepdim"]:
        return x
    kept = list(s.xp.data(x).shape)
    for d in sorted(dims):
        kept.insert(d, 1)
    return s.xp.reshape(x, tuple(kept))


def _norm_vjp(g, s):
    return _keep_dims(g, s) * _coefficient(s)


def _norm_jvp(t, s):
    return _sum_dims(_coefficient(s) * t, s)


# The same coefficient as the page explains it (0 where the norm is 0 and ties at p = ±∞ aside: there
# the page says its numbers do not reproduce the engine's).
_AT_MAX = where(eq(absolute(X0), spread(Y)), sign(X0), 0)  # p = ±∞: where |xᵢ| is the norm
_GENERAL = sign(X0) * absolute(X0) ** (P("ord") - 1) / spread(Y) ** (P("ord") - 1)
_COEFFICIENT = where(eq(P("ord"), 2), X0 / spread(Y),
                     where(eq(P("ord"), 1), sign(X0),
                           where(eq(P("ord"), 0), 0,
                                 where(eq(absolute(P("ord")), math.inf), _AT_MAX, _GENERAL))))


register("norm", "LinalgVectorNormBackward0", _vector_norm,
         [_norm_vjp], ["∂‖x‖ₚ/∂xᵢ = sign(xᵢ)·|xᵢ|ᵖ⁻¹ / ‖x‖ᵖ⁻¹ (xᵢ/‖x‖ for p = 2)"], saves=("a", "out"),
         description="vector p-norm (Σ|xᵢ|ᵖ)^(1/p), over all elements or along dims",
         jvps=[_norm_jvp], jvp_formulas=["Σ sign(xᵢ)·|xᵢ|ᵖ⁻¹·ẋᵢ / ‖x‖ᵖ⁻¹"],
         explain=vjp("torch.linalg.vector_norm({0}, {ord}, dim={dim})",
                     "向量 p-范数 (Σ|xᵢ|ᵖ)^(1/p)，对全部元素或沿指定维度", spread(G) * _COEFFICIENT))


# ---- functions -----------------------------------------------------------------------------------------
def _order(p, fn: str):
    if type(p) is str:
        if p == "fro":
            return 2
        if p == "nuc":
            raise not_supported("the nuclear norm (p='nuc')")
        raise RuntimeError(f"{fn}: Order {p} not supported.")
    p = A.real(p, fn, "p")
    return float(p) if math.isinf(p) else p


def vector_norm(input: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A002
    """‖input‖_ord over all elements, or along ``dim`` (LinalgVectorNormBackward0)."""
    input = A.tensor(input, "linalg.vector_norm", "input", 1)
    keepdim = A.flag(keepdim, "linalg.vector_norm", "keepdim")
    dtype = A.dtype(dtype, "linalg.vector_norm")
    if dtype is not None:
        input = to(input, dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           + scalar_name(input.dtype))
    ord = _order(ord, "linalg.vector_norm")  # noqa: A001
    dims = None
    if dim is not None and input.ndim:
        dims = tuple(sorted({_norm_dim(d, input.ndim, "linalg.vector_norm")
                             for d in A.ints(dim, "linalg.vector_norm", "dim")}))
    params = {"ord": ord, "dim": dims, "keepdim": keepdim, "shape": tuple(input._data.shape)}
    return apply(OPS["norm"], (input,), params)


@public("torch", "Tensor")
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """The p-norm of ``input`` (Frobenius by default), over all elements or along ``dim``."""
    if out is not None:
        raise not_supported("norm(out=...)")
    input = A.tensor(input, "norm", "input", 1)
    return vector_norm(input, _order(p, "norm"), dim, keepdim, dtype=dtype)

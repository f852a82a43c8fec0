"""Products and running sums: prod (of all elements or along a dim), cumsum and cumprod, their table
entries, their public functions, and the words their explanations use (``others``: the product of the
other elements; ``cumsum_back``: a gradient summed from each position to the end; ``cumprod_back``:
Σ_{j≥i} gⱼ·Π_{m≤j, m≠i} xₘ).

prod's gradient is PyTorch's: ``grad * (result / input)`` when no element is zero, else the product
of the other elements (exclusive running products from both ends), so a zero gets the product of the
rest and every element of a slice with two zeros gets 0.
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import dtypes, errors
from ..dispatch import apply
from ..tensor import Tensor, _norm_dim
from .convert import to
from .explain import X0, G, new_word, spread, vjp
from .reduce import sum as _sum
from .table import NP, OPS, public, register


def others_product(a: np.ndarray, axis) -> np.ndarray:
    """Each element replaced by the product of the other elements (along ``axis``, or of all)."""
    if axis is None:
        return others_product(np.asarray(a).reshape(-1), 0).reshape(np.shape(a))
    a = np.asarray(a)
    if a.ndim == 0:
        return np.ones_like(a)
    n = a.shape[axis]
    ones = np.ones_like(np.take(a, [0], axis=axis))
    left = np.cumprod(np.concatenate([ones, np.take(a, range(n - 1), axis=axis)], axis=axis), axis=axis)
    rev = np.flip(a, axis)
    right = np.cumprod(np.concatenate([ones, np.take(rev, range(n - 1), axis=axis)], axis=axis), axis=axis)
    return left * np.flip(right, axis)


def reverse_cumsum(g: np.ndarray, axis) -> np.ndarray:
    """``g`` summed from each position to the end along ``axis`` (cumsum's backward)."""
    g = np.asarray(g)
    if g.ndim == 0:
        return g
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def cumprod_grad(g: np.ndarray, a: np.ndarray, axis: int) -> np.ndarray:
    """cumprod's backward: ∂L/∂xᵢ = Σ_{j≥i} gⱼ·Π_{m≤j, m≠i} xₘ along ``axis``, zeros included: before
    a slice's first zero k PyTorch's Σ_{j≥i} gⱼ·yⱼ / xᵢ, at k the product before it times
    Σ_{j≥k} gⱼ·Π_{k<m≤j} xₘ, after it 0."""
    g, a = np.asarray(g), np.asarray(a)
    if a.ndim == 0:
        return g
    am = np.moveaxis(a, axis, -1)
    gm = np.moveaxis(np.broadcast_to(g, a.shape), axis, -1)
    out = np.zeros(am.shape, dtype=np.result_type(g, a))
    for row in np.ndindex(am.shape[:-1]):
        x, gr = am[row], gm[row]
        y = np.cumprod(x)
        zeros = np.flatnonzero(x == 0)
        k = zeros[0] if zeros.size else len(x)
        out[row][:k] = reverse_cumsum(gr[:k] * y[:k], 0) / x[:k]
        if k < len(x):
            tail = np.cumprod(np.concatenate([np.ones(1, dtype=x.dtype), x[k + 1:]]))
            out[row][k] = (y[k - 1] if k else 1) * np.sum(gr[k:] * tail)
    return np.moveaxis(out, -1, axis)


others = new_word("others", lambda x, axis=None: others_product(np.asarray(x, dtype=np.float64), axis))
cumsum_back = new_word("cumsum_back", lambda g, axis=0: reverse_cumsum(np.asarray(g, dtype=np.float64), axis))
cumprod_back = new_word("cumprod_back", lambda g, x, axis=0: cumprod_grad(
    np.asarray(g, dtype=np.float64), np.asarray(x, dtype=np.float64), axis))


def _keep(x, s):
    """A reduced value with its dim put back as size 1 (prod along a dim without keepdim)."""
    dim = s.p.get("dim")
    if dim is None or s.p["keepdim"] or not len(s.p["shape"]):
        return x
    shape = list(s.xp.data(x).shape)
    shape.insert(dim, 1)
    return s.xp.reshape(x, tuple(shape))


def _prod_vjp(g, s):
    a = s.xp.data(s.a)
    if not a.ndim:
        return g
    g, out = _keep(g, s), _keep(s.out, s)
    if (a != 0).all():
        return g * (out / s.a)
    if s.xp is not NP:
        raise errors.not_supported("the second derivative of prod where an element is zero")
    if s.p.get("dim") is None and np.count_nonzero(a == 0) > 1:
        return np.zeros_like(a)
    return g * others_product(a, s.p.get("dim"))


def _prod_jvp(t, s):
    a, t = s.xp.data(s.a), s.xp.data(t)
    dim = s.p.get("dim")
    if not a.ndim:
        return t
    return np.sum(t * others_product(a, dim), axis=dim, keepdims=bool(s.p.get("keepdim")))


register("prod", "ProdBackward0", lambda a, shape: np.prod(a), [_prod_vjp],
         ["∂(Πx)/∂xᵢ = product of the other elements"], saves=("a", "out"),
         description="product of all elements", jvps=[_prod_jvp], jvp_formulas=["Σᵢ ẋᵢ·Π_{j≠i} xⱼ"],
         explain=vjp("{0}.prod()", "所有元素之积", spread(G) * others(X0)))
register("prod_dim", "ProdBackward1", lambda a, shape, dim, keepdim: np.prod(a, axis=dim, keepdims=keepdim),
         [_prod_vjp], ["∂(Π_d x)/∂xᵢ = product of the other elements along d"], saves=("a", "out"),
         description="product along a dim", jvps=[_prod_jvp], jvp_formulas=["Σᵢ ẋᵢ·Π_{j≠i} xⱼ along d"],
         explain=vjp("{0}.prod(dim={dim})", "沿一个维度求积", spread(G) * others(X0)))


def _cumsum_vjp(g, s):
    if s.xp is NP:
        return reverse_cumsum(g, s.p["dim"])

    if not g.ndim:
        return g
    return _sum(g, s.p["dim"], True) - cumsum(g, s.p["dim"]) + g


def _cumsum_forward(a, dim):
    return a.copy() if not a.ndim else np.cumsum(a, axis=dim)


register("cumsum", "CumsumBackward0", _cumsum_forward, [_cumsum_vjp],
         ["∂yⱼ/∂xᵢ = 1 for j ≥ i: the gradient summed from i to the end"],
         description="running sum along a dim",
         jvps=[lambda t, s: _cumsum_forward(s.xp.data(t), s.p["dim"])], jvp_formulas=["cumsum of ẋ"],
         explain=vjp("{0}.cumsum({dim})", "沿一个维度的累加和", cumsum_back(G)))


def _cumprod_vjp(g, s):
    a, dim = s.xp.data(s.a), s.p["dim"]
    if not a.ndim:
        return g
    if (a != 0).all():  # PyTorch's formula where no element is zero
        if s.xp is NP:
            return reverse_cumsum(g * s.out, dim) / s.a

        w = g * s.out
        return (_sum(w, dim, True) - cumsum(w, dim) + w) / s.a
    if s.xp is not NP:
        raise errors.not_supported("the second derivative of cumprod where an element is zero")
    return cumprod_grad(g, a, dim)


def _cumprod_jvp(t, s):
    """ẏⱼ = Σ_{i≤j} ẋᵢ·Π_{m≤j, m≠i} xₘ: yⱼ·Σ_{i≤j} ẋᵢ/xᵢ before a slice's first zero k, after it
    ẋₖ·Π_{m<k} xₘ·Π_{k<m≤j} xₘ."""
    a, t, dim = s.xp.data(s.a), s.xp.data(t), s.p["dim"]
    if not a.ndim:
        return t
    y = s.xp.data(s.out)
    if (a != 0).all():
        return y * np.cumsum(t / a, axis=dim)
    am, ym = np.moveaxis(a, dim, -1), np.moveaxis(y, dim, -1)
    tm = np.moveaxis(np.broadcast_to(t, a.shape), dim, -1)
    out = np.zeros(am.shape, dtype=np.result_type(t, a))
    for row in np.ndindex(am.shape[:-1]):
        x, tr, yr = am[row], tm[row], ym[row]
        zeros = np.flatnonzero(x == 0)
        k = zeros[0] if zeros.size else len(x)
        out[row][:k] = yr[:k] * np.cumsum(tr[:k] / x[:k])
        if k < len(x):
            tail = np.cumprod(np.concatenate([np.ones(1, dtype=x.dtype), x[k + 1:]]))
            out[row][k:] = tr[k] * (yr[k - 1] if k else 1) * tail
    return np.moveaxis(out, -1, dim)


register("cumprod", "CumprodBackward0", lambda a, dim: a.copy() if not a.ndim else np.cumprod(a, axis=dim),
         [_cumprod_vjp], ["∂yⱼ/∂xᵢ = Π_{m≤j, m≠i} xₘ for j ≥ i"], saves=("a", "out"),
         description="running product along a dim", jvps=[_cumprod_jvp],
         jvp_formulas=["Σ_{i≤j} ẋᵢ·Π_{m≤j, m≠i} xₘ"],
         explain=vjp("{0}.cumprod({dim})", "沿一个维度的累乘积", cumprod_back(G, X0)))


# ---- functions ------------------------------------------------------------------------------------------
def _integral_to_long(input: Tensor, dtype) -> Tensor:
    if dtype is not None:
        return to(input, dtype)
    return to(input, dtypes.int64) if input._data.dtype.kind in "biu" else input


@public("torch", "Tensor")
def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of all elements (ProdBackward0), or along ``dim`` (ProdBackward1)."""
    input = A.tensor(input, "prod", "input", 1)
    keepdim = A.flag(keepdim, "prod", "keepdim")
    input = _integral_to_long(input, A.dtype(dtype, "prod"))
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["prod"], (input,), {"shape": shape})
    d = _norm_dim(A.integer(dim, "prod", "dim", 2), input.ndim)
    if not shape:
        return apply(OPS["prod"], (input,), {"shape": shape})
    return apply(OPS["prod_dim"], (input,), {"shape": shape, "dim": d, "keepdim": keepdim})


@public("torch", "Tensor")
def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running sum along ``dim`` (CumsumBackward0)."""
    input = A.tensor(input, "cumsum", "input", 1)
    d = _norm_dim(A.integer(dim, "cumsum", "dim", 2), input.ndim)
    input = _integral_to_long(input, A.dtype(dtype, "cumsum"))
    return apply(OPS["cumsum"], (input,), {"dim": d})


@public("torch", "Tensor")
def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Running product along ``dim`` (CumprodBackward0)."""
    input = A.tensor(input, "cumprod", "input", 1)
    d = _norm_dim(A.integer(dim, "cumprod", "dim", 2), input.ndim)
    input = _integral_to_long(input, A.dtype(dtype, "cumprod"))
    return apply(OPS["cumprod"], (input,), {"dim": d})

"""Reductions: sum, mean, max, min, var, std (of the whole tensor or along dims), their table
entries and public functions, and the non-differentiable argmax/argmin."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import dtypes
from .. import trace as _trace
from ..dispatch import apply
from ..tensor import Tensor, _norm_dim
from .cascade import torch_mean, torch_sum
from .cascade_kernels import torch_var
from .convert import to
from .explain import X0, G, N, P, Y, at_index, eq, share, spread, sum_over, vjp
from .table import OPS, public, register
from .wrappers import binary


def _expand_back(g, s):
    """Broadcast a reduced gradient back to the input's shape (dims were kept or are re-inserted)."""
    xp = s.xp
    shape = s.p["shape"]
    dims = s.p.get("dim")
    if dims is not None and not s.p.get("keepdim", False):
        kept = list(xp.data(g).shape)
        for d in sorted(dims):
            kept.insert(d, 1)
        g = xp.reshape(g, tuple(kept))
    return xp.broadcast_to(g, shape)


def _count(p) -> int:
    shape = p["shape"]
    if p.get("dim") is None:
        return int(np.prod(shape, dtype=np.int64))
    return int(np.prod([shape[d] for d in p["dim"]], dtype=np.int64))


def _sum_dims(t, s):
    """The tangent reduced as the op reduced its input (over ``dim``, or everything)."""
    dims = s.p.get("dim")
    if dims is None:
        return s.xp.sum(t)
    return s.xp.sum(t, axis=dims, keepdims=s.p.get("keepdim", False))


register("sum", "SumBackward0", lambda a, shape: torch_sum(a),
         [lambda g, s: s.xp.broadcast_to(g, s.p["shape"])],
         ["∂(Σx)/∂xᵢ = 1"], description="sum of all elements", jvps=[_sum_dims], jvp_formulas=["Σ ẋ"],
         explain=vjp("{0}.sum()", "所有元素之和", spread(G)))
register("sum_dim", "SumBackward1", lambda a, shape, dim, keepdim: torch_sum(a, dim, keepdim),
         [_expand_back],
         ["∂(Σ_d x)/∂xᵢ = 1"], description="sum along dims", jvps=[_sum_dims], jvp_formulas=["Σ_d ẋ"],
         explain=vjp("{0}.sum(dim={dim})", "沿指定维度求和", spread(G)))
register("mean", "MeanBackward0", lambda a, shape: torch_mean(a),
         [lambda g, s: s.xp.broadcast_to(g / _count(s.p), s.p["shape"])],
         ["∂(mean x)/∂xᵢ = 1/n"], description="mean of all elements",
         jvps=[lambda t, s: _sum_dims(t, s) / _count(s.p)], jvp_formulas=["mean ẋ = Σ ẋ / n"],
         explain=vjp("{0}.mean()", "所有元素的平均值", spread(G / N)))
register("mean_dim", "MeanBackward1",
         lambda a, shape, dim, keepdim: torch_mean(a, dim, keepdim),
         [lambda g, s: _expand_back(g / _count(s.p), s)],
         ["∂(mean_d x)/∂xᵢ = 1/n"], description="mean along dims",
         jvps=[lambda t, s: _sum_dims(t, s) / _count(s.p)], jvp_formulas=["mean_d ẋ = Σ_d ẋ / n"],
         explain=vjp("{0}.mean(dim={dim})", "沿指定维度求平均", spread(G / N)))


def _keep(g, s):
    """``g`` with the reduced dim put back as size 1 (max/min along a dim)."""
    if s.p["keepdim"]:
        return g
    shape = list(s.xp.data(g).shape)
    shape.insert(s.p["dim"], 1)
    return s.xp.reshape(g, tuple(shape))


def _pick_along(pick, a, dim, keepdim):
    """(values, {"indices"}) of ``pick`` (argmax/argmin) along ``dim``."""
    idx = pick(a, axis=dim, keepdims=True)
    values = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        idx = idx.squeeze(dim)
        values = values.squeeze(dim)
    return values, {"indices": idx}


def _max_dim(a, dim, keepdim, shape):
    return _pick_along(np.argmax, a, dim, keepdim)


def _min_dim(a, dim, keepdim, shape):
    return _pick_along(np.argmin, a, dim, keepdim)


def _to_index_vjp(g, s):
    """max/min along a dim: the gradient goes to the chosen index only (value_selecting_reduction)."""
    xp = s.xp
    dim, shape = s.p["dim"], s.p["shape"]
    idx = s.x["indices"] if s.p["keepdim"] else np.expand_dims(s.x["indices"], dim)
    ar = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    onehot = np.broadcast_to(ar == idx, shape)
    return xp.where(onehot, _keep(g, s), xp.const(0.0, xp.data(g)))


def _evenly_vjp(g, s):
    """max/min of all elements: ties share the gradient evenly (PyTorch's evenly_distribute_backward)."""
    xp = s.xp
    a = xp.data(s.a)
    mask = a == xp.data(s.out)
    return g * xp.const(mask / mask.sum(), a)


def _evenly_jvp(t, s):
    """max/min of all elements: the mean of the tangent over the tied maxima."""
    return s.xp.sum(_evenly_vjp(t, s))


def _at_index_jvp(t, s):
    """max/min along a dim: the tangent at the chosen index."""
    dim = s.p["dim"]
    idx = s.x["indices"] if s.p["keepdim"] else np.expand_dims(s.x["indices"], dim)
    picked = np.take_along_axis(s.xp.data(t), idx, axis=dim)
    return picked if s.p["keepdim"] else picked.squeeze(dim)


register("max", "MaxBackward1", lambda a: np.max(a),
         [_evenly_vjp], ["∂max(x)/∂xᵢ = 1 at the max (shared by ties)"], saves=("a", "out"),
         description="largest element", jvps=[_evenly_jvp], jvp_formulas=["ẋ at the max (mean over ties)"],
         explain=vjp("{0}.max()", "所有元素中最大的一个", G * share(eq(X0, Y))))
register("min", "MinBackward1", lambda a: np.min(a),
         [_evenly_vjp], ["∂min(x)/∂xᵢ = 1 at the min (shared by ties)"], saves=("a", "out"),
         description="smallest element", jvps=[_evenly_jvp], jvp_formulas=["ẋ at the min (mean over ties)"],
         explain=vjp("{0}.min()", "所有元素中最小的一个", G * share(eq(X0, Y))))
register("max_dim", "MaxBackward0", _max_dim,
         [_to_index_vjp], ["∂max_d(x)/∂xᵢ = 1 at the chosen index"], saves=("indices",),
         description="max along a dim", jvps=[_at_index_jvp], jvp_formulas=["ẋ at the chosen index"],
         explain=vjp("{0}.max(dim={dim})", "沿一个维度取最大值", at_index(G)))
register("min_dim", "MinBackward0", _min_dim,
         [_to_index_vjp], ["∂min_d(x)/∂xᵢ = 1 at the chosen index"], saves=("indices",),
         description="min along a dim", jvps=[_at_index_jvp], jvp_formulas=["ẋ at the chosen index"],
         explain=vjp("{0}.min(dim={dim})", "沿一个维度取最小值", at_index(G)))


def _var_count(p):
    """n − correction as a NumPy float, so a zero gives inf/nan (as torch) instead of an exception."""
    return np.float64(max(_count(p) - p["correction"], 0))


def _centered(s):
    """x − mean(x) over the reduced dims, in the rule's world."""
    xp = s.xp
    axis = s.p["dim"]
    mean = xp.sum(s.a, axis=axis, keepdims=True) * (1.0 / _count(s.p))
    return s.a - mean


def _var_vjp(g, s):
    return _expand_back(g, s) * _centered(s) * (2.0 / _var_count(s.p))


def _std_vjp(g, s):
    return _expand_back(g / s.out, s) * _centered(s) * (1.0 / _var_count(s.p))


def _var_jvp(t, s):
    return _sum_dims(_centered(s) * t, s) * (2.0 / _var_count(s.p))


def _std_jvp(t, s):
    return _var_jvp(t, s) / (2 * s.out)


register("var", "VarBackward0",
         lambda a, dim, correction, keepdim, shape: torch_var(a, dim, correction, keepdim),
         [_var_vjp], ["∂var(x)/∂xᵢ = 2(xᵢ − x̄)/(n − c)"], saves=("a",), description="variance",
         jvps=[_var_jvp], jvp_formulas=["2·Σ (xᵢ − x̄)·ẋᵢ / (n − c)"],
         explain=vjp("{0}.var(dim={dim}, correction={correction})", "方差",
                     spread(G) * (X0 - sum_over(X0) / N) * 2 / (N - P("correction"))))
register("std", "StdBackward0",
         lambda a, dim, correction, keepdim, shape: torch_var(a, dim, correction, keepdim, sqrt=True),
         [_std_vjp], ["∂std(x)/∂xᵢ = (xᵢ − x̄)/((n − c)·std)"], saves=("a", "out"),
         description="standard deviation", jvps=[_std_jvp], jvp_formulas=["Σ (xᵢ − x̄)·ẋᵢ / ((n − c)·std)"],
         explain=vjp("{0}.std(dim={dim}, correction={correction})", "标准差",
                     spread(G / Y) * (X0 - sum_over(X0) / N) / (N - P("correction"))))


# ---- functions -----------------------------------------------------------------------------------------
def _dims(dim, ndim: int, fn: str) -> tuple[int, ...]:
    dims = tuple(sorted(_norm_dim(d, ndim, fn) for d in A.ints(dim, fn, "dim", 1)))
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 / -1 and has nothing to reduce


def _reduction_args(fn: str, input, keepdim, dtype) -> tuple:
    input = A.tensor(input, fn, "input", 1)
    keepdim = A.flag(keepdim, fn, "keepdim")
    dtype = A.dtype(dtype, fn)
    return input, keepdim, dtype


@public("torch", "Tensor")
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum of all elements, or along ``dim`` (an int or a tuple)."""
    input, keepdim, dtype = _reduction_args("sum", input, keepdim, dtype)
    if dtype is not None:
        input = to(input, dtype)
    elif input._data.dtype.kind in "biu":
        input = to(input, dtypes.int64)
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["sum"], (input,), {"shape": shape})
    params = {"shape": shape, "dim": _dims(dim, input.ndim, "sum"), "keepdim": keepdim}
    return apply(OPS["sum_dim"], (input,), params)


@public("torch", "Tensor")
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements, or along ``dim``."""
    input, keepdim, dtype = _reduction_args("mean", input, keepdim, dtype)
    if dtype is not None:
        input = to(input, dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {dtypes.scalar_name(input.dtype)}")
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["mean"], (input,), {"shape": shape})
    params = {"shape": shape, "dim": _dims(dim, input.ndim, "mean"), "keepdim": keepdim}
    return apply(OPS["mean_dim"], (input,), params)


class _ReturnType(tuple):
    """``torch.return_types.max``-like result: a (values, indices) tuple with named fields."""

    _name = ""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


# Named as torch names them (``type(torch.max(x, 0)).__name__ == "max"``).
MaxResult = type("max", (_ReturnType,), {"_name": "max", "__slots__": ()})
MinResult = type("min", (_ReturnType,), {"_name": "min", "__slots__": ()})


def _extreme(name: str, result_type, input: Tensor, dim=None, keepdim: bool = False):
    input = A.tensor(input, name, "input", 1)
    if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
        return binary("maximum" if name == "max" else "minimum", input, dim)
    keepdim = A.flag(keepdim, name, "keepdim")
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                "reduction dim with the 'dim' argument."
            )
        return apply(OPS[name], (input,))
    d = _norm_dim(dim, input.ndim, name)
    if input.ndim == 0:
        return result_type(input, Tensor._make(np.zeros((), dtype=np.int64)))
    values = apply(
        OPS[name + "_dim"], (input,), {"dim": d, "keepdim": bool(keepdim), "shape": tuple(input._data.shape)}
    )
    fn = values._grad_fn
    if fn is not None:
        idx = fn.extras["indices"]
    else:
        pick = np.argmax if name == "max" else np.argmin
        idx = pick(input._data, axis=d, keepdims=bool(keepdim))
    return result_type(values, Tensor._make(np.asarray(idx, dtype=np.int64)))


@public("torch", "Tensor", name="max")
def _max(input: Tensor, dim=None, keepdim: bool = False):
    """Largest element; or (values, indices) along ``dim``; or ``maximum`` with a tensor."""
    return _extreme("max", MaxResult, input, dim, keepdim)


@public("torch", "Tensor", name="min")
def _min(input: Tensor, dim=None, keepdim: bool = False):
    """Smallest element; or (values, indices) along ``dim``; or ``minimum`` with a tensor."""
    return _extreme("min", MinResult, input, dim, keepdim)


def _arg(pick, input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    fn = pick.__name__
    input = A.tensor(input, fn, "input", 1)
    keepdim = A.flag(keepdim, fn, "keepdim")
    if dim is None:
        idx = np.asarray(pick(input._data))
        if keepdim:
            idx = idx.reshape((1,) * input.ndim)
        out = Tensor._make(idx.astype(np.int64))
    else:
        d = _norm_dim(dim, input.ndim, fn)
        out = Tensor._make(np.asarray(pick(input._data, axis=d, keepdims=keepdim), dtype=np.int64))
    if input._requires_grad:
        _trace.note_cut(input, out, "argmax", fn)
    return out


@public("torch", "Tensor")
def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None); not differentiable."""
    return _arg(np.argmax, input, dim, keepdim)


@public("torch", "Tensor")
def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None); not differentiable."""
    return _arg(np.argmin, input, dim, keepdim)


def _moments(name: str, input: Tensor, dim, unbiased, keepdim, correction) -> Tensor:
    input = A.tensor(input, name, "input", 1)
    if type(dim) is bool:  # var(x, False): the old positional ``unbiased``
        dim, unbiased = None, dim
    if unbiased is not None:
        unbiased = A.flag(unbiased, name, "unbiased")
    keepdim = A.flag(keepdim, name, "keepdim")
    correction = A.optional_number(correction, name, "correction")
    if type(correction) is complex:
        raise TypeError(A.must(name, "correction", None, "Number", correction))
    if correction is None:
        correction = 0 if unbiased is False else 1
    if not input.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if dim is not None:
        dim = tuple(sorted(_norm_dim(d, input.ndim, name) for d in A.ints(dim, name, "dim", 1)))
    params = {"dim": dim, "correction": correction, "keepdim": keepdim,
              "shape": tuple(input._data.shape)}
    return apply(OPS[name], (input,), params)


@public("torch", "Tensor")
def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Variance (Bessel-corrected unless ``unbiased=False`` / ``correction=0``)."""
    return _moments("var", input, dim, unbiased, keepdim, correction)


@public("torch", "Tensor")
def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Standard deviation (Bessel-corrected unless ``unbiased=False`` / ``correction=0``)."""
    return _moments("std", input, dim, unbiased, keepdim, correction)

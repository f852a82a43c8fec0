"""Reductions of the table: sum, mean, max, min, var, std (whole tensor or along dims)."""

from __future__ import annotations

import numpy as np

from .table import register


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


register("sum", "SumBackward0", lambda a, shape: np.sum(a),
         [lambda g, s: s.xp.broadcast_to(g, s.p["shape"])],
         ["∂(Σx)/∂xᵢ = 1"], description="Σ x")
register("sum_dim", "SumBackward1", lambda a, shape, dim, keepdim: np.sum(a, axis=dim, keepdims=keepdim),
         [_expand_back],
         ["∂(Σ_d x)/∂xᵢ = 1"], description="Σ over dim")
register("mean", "MeanBackward0", lambda a, shape: np.mean(a, dtype=a.dtype),
         [lambda g, s: s.xp.broadcast_to(g / _count(s.p), s.p["shape"])],
         ["∂(mean x)/∂xᵢ = 1/n"], description="mean of x")
register("mean_dim", "MeanBackward1",
         lambda a, shape, dim, keepdim: np.mean(a, axis=dim, keepdims=keepdim, dtype=a.dtype),
         [lambda g, s: _expand_back(g / _count(s.p), s)],
         ["∂(mean_d x)/∂xᵢ = 1/n"], description="mean over dim")


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


register("max", "MaxBackward1", lambda a: np.max(a),
         [_evenly_vjp], ["∂max(x)/∂xᵢ = 1 at the max (shared by ties)"], saves=("a", "out"),
         description="largest element")
register("min", "MinBackward1", lambda a: np.min(a),
         [_evenly_vjp], ["∂min(x)/∂xᵢ = 1 at the min (shared by ties)"], saves=("a", "out"),
         description="smallest element")
register("max_dim", "MaxBackward0", _max_dim,
         [_to_index_vjp], ["∂max_d(x)/∂xᵢ = 1 at the chosen index"], saves=("indices",),
         description="max along a dim")
register("min_dim", "MinBackward0", _min_dim,
         [_to_index_vjp], ["∂min_d(x)/∂xᵢ = 1 at the chosen index"], saves=("indices",),
         description="min along a dim")


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


register("var", "VarBackward0",
         lambda a, dim, correction, keepdim, shape: np.var(a, axis=dim, ddof=correction, keepdims=keepdim),
         [_var_vjp], ["∂var(x)/∂xᵢ = 2(xᵢ − x̄)/(n − c)"], saves=("a",), description="variance")
register("std", "StdBackward0",
         lambda a, dim, correction, keepdim, shape: np.std(a, axis=dim, ddof=correction, keepdims=keepdim),
         [_std_vjp], ["∂std(x)/∂xᵢ = (xᵢ − x̄)/((n − c)·std)"], saves=("a", "out"),
         description="standard deviation")

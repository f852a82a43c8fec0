"""What the shape-aware words of the explanation algebra compute (``engine.ops.explain.WORDS``), on
NumPy arrays in float64: a reduced value spread back, a gradient put back where an index read, one
input's part of a cat, the gradient at the index a max chose, ...
"""

from __future__ import annotations

import numpy as np

from .keys import decode_key, key_mask
from .table import sum_to_shape


def f64(x) -> np.ndarray:
    """``x`` as a float64 array."""
    return np.asarray(x, dtype=np.float64)


def spread(x, shape, dims=None, keepdim=False) -> np.ndarray:
    """A reduced value copied back onto ``shape`` (dims re-inserted first unless kept)."""
    x = f64(x)
    if dims is not None and not keepdim:
        kept = list(x.shape)
        for d in sorted(dims):
            kept.insert(d, 1)
        x = x.reshape(kept)
    return np.broadcast_to(x, tuple(shape)).copy()


def sum_over(x, axis=None) -> np.ndarray:
    """``x`` summed over ``axis``, kept as size 1."""
    axis = tuple(axis) if isinstance(axis, list) else axis
    return np.sum(f64(x), axis=axis, keepdims=True)


def sum_to(x, shape) -> np.ndarray:
    """``x`` summed back to ``shape`` (undo broadcasting, as the engine's walk does)."""
    return sum_to_shape(f64(x), tuple(shape))


def place(x, shape, key, add=False) -> np.ndarray:
    """Zeros of ``shape`` with ``x`` written at the encoded index ``key`` (added up with ``add``)."""
    z = np.zeros(tuple(shape))
    k = decode_key(tuple(key))
    if add:
        np.add.at(z, k, f64(x))
    else:
        z[k] = x
    return z


def pick(x, key) -> np.ndarray:
    """The part of ``x`` at the encoded index ``key``."""
    return f64(x)[decode_key(tuple(key))]


def at_index(x, indices, shape, dim, keepdim) -> np.ndarray:
    """``x`` at ``indices`` along ``dim`` of ``shape`` (where a max or min was found), 0 elsewhere."""
    idx = np.asarray(indices, dtype=np.int64)
    x = f64(x)
    if not keepdim:
        idx = np.expand_dims(idx, dim)
        x = np.expand_dims(x, dim)
    ar = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    onehot = np.broadcast_to(ar == idx, tuple(shape))
    return np.where(onehot, x, 0.0)


def part(x, dim, start, stop=None) -> np.ndarray:
    """``x``'s part along ``dim``: rows start..stop (cat), or entry ``start`` (stack: stop None)."""
    key = (slice(None),) * dim + ((start if stop is None else slice(start, stop)), Ellipsis)
    return f64(x)[key]


def unless_written(x, key) -> np.ndarray:
    """``x`` with zeros where the encoded index ``key`` wrote."""
    x = f64(x)
    return np.where(key_mask(x.shape, decode_key(tuple(key))), 0.0, x)


def share(c) -> np.ndarray:
    """1/k where ``c`` holds (k: how many hold), 0 elsewhere."""
    c = np.asarray(c, dtype=np.float64)
    return c / c.sum()


def T(x) -> np.ndarray:  # noqa: N802 - the transpose, named as the page writes it
    """``x`` with its last two dims swapped."""
    x = f64(x)
    return x if x.ndim < 2 else np.swapaxes(x, -1, -2)


def per_class(g, coef_ndim, reduction) -> np.ndarray:
    """A loss's upstream gradient given a class dim when it was not reduced and its coefficients
    have one."""
    g = f64(g)
    if reduction == "none" and coef_ndim > 1:
        return g.reshape(g.shape[:1] + (1,) + g.shape[1:])
    return g


def between(x, lo, hi) -> np.ndarray:
    """Where ``lo ≤ x ≤ hi`` (a bound that is None is open)."""
    ok = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        ok &= f64(x) >= lo
    if hi is not None:
        ok &= f64(x) <= hi
    return ok


def write_at(g, x, key) -> np.ndarray:
    """``g`` with ``x`` written at the encoded index ``key`` (a CopySlices' gradient for its base)."""
    out = f64(g).copy()
    out[decode_key(tuple(key))] = f64(x)
    return out

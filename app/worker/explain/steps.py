"""The operations a worked explanation is made of, on NumPy arrays in float64.

Each step the page shows names one of these (``op``), the values it combines (``args``) and what
else it needs (``how``: a shape, dims, an index key): ``apply(op, args, how)`` recomputes it.
The server computes every step through here, and tests recompute the steps of every op's
explanation from the numbers the page received, so the arithmetic shown is the arithmetic done.
"""

from __future__ import annotations

import math

import numpy as np

from engine.ops.indexing import decode_key, key_mask
from engine.ops.table import sum_to_shape

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _f(x):
    return np.asarray(x, dtype=np.float64)


def _spread(x, shape, dims=None, keepdim=False):
    """A reduced value copied back onto ``shape`` (dims re-inserted first unless kept)."""
    x = _f(x)
    if dims is not None and not keepdim:
        kept = list(x.shape)
        for d in sorted(dims):
            kept.insert(d, 1)
        x = x.reshape(kept)
    return np.broadcast_to(x, tuple(shape)).copy()


def _sum_over(x, axis):
    x = _f(x)
    axis = tuple(axis) if isinstance(axis, list) else axis
    return np.sum(x, axis=axis, keepdims=True)


def _place(x, shape, key, add=False):
    z = np.zeros(tuple(shape))
    k = decode_key(tuple(key))
    if add:
        np.add.at(z, k, _f(x))
    else:
        z[k] = x
    return z


def _at_index(x, indices, shape, dim, keepdim):
    idx = np.asarray(indices, dtype=np.int64)
    x = _f(x)
    if not keepdim:
        idx = np.expand_dims(idx, dim)
        x = np.expand_dims(x, dim)
    ar = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    onehot = np.broadcast_to(ar == idx, tuple(shape))
    return np.where(onehot, x, 0.0)


def _part(x, dim, start, stop=None):
    """``x``'s part along ``dim``: rows start..stop (cat), or entry ``start`` (stack: stop None)."""
    x = _f(x)
    key = (slice(None),) * dim + ((start if stop is None else slice(start, stop)), Ellipsis)
    return x[key]


def _unless_written(x, key):
    x = _f(x)
    return np.where(key_mask(x.shape, decode_key(tuple(key))), 0.0, x)


def _share(c):
    c = np.asarray(c, dtype=np.float64)
    return c / c.sum()


def _outer(g, v):
    return np.multiply.outer(_f(g), _f(v))


def _T(x):
    x = _f(x)
    return x if x.ndim < 2 else np.swapaxes(x, -1, -2)


def _per_class(g, coef_ndim, reduction):
    g = _f(g)
    if reduction == "none" and coef_ndim > 1:
        return g.reshape(g.shape[:1] + (1,) + g.shape[1:])
    return g


def _between(x, lo, hi):
    ok = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        ok &= _f(x) >= lo
    if hi is not None:
        ok &= _f(x) <= hi
    return ok


OPS = {
    "add": lambda a, b: _f(a) + _f(b),
    "sub": lambda a, b: _f(a) - _f(b),
    "mul": lambda a, b: _f(a) * _f(b),
    "div": lambda a, b: _f(a) / _f(b),
    "neg": lambda a: -_f(a),
    "pow": lambda a, b: np.power(_f(a), _f(b)),
    "matmul": lambda a, b: np.matmul(_f(a), _f(b)),
    "T": _T,
    "outer": _outer,
    "exp": lambda a: np.exp(_f(a)),
    "log": lambda a: np.log(_f(a)),
    "sqrt": lambda a: np.sqrt(_f(a)),
    "sin": lambda a: np.sin(_f(a)),
    "cos": lambda a: np.cos(_f(a)),
    "sinh": lambda a: np.sinh(_f(a)),
    "cosh": lambda a: np.cosh(_f(a)),
    "abs": lambda a: np.abs(_f(a)),
    "floor": lambda a: np.floor(_f(a)),
    "sign": lambda a: np.sign(_f(a)),
    "sigmoid": lambda a: 1.0 / (1.0 + np.exp(-_f(a))),
    "Phi": lambda a: 0.5 * (1.0 + _erf(_f(a) / math.sqrt(2.0))),
    "phi": lambda a: np.exp(-0.5 * _f(a) ** 2) / math.sqrt(2.0 * math.pi),
    "gt": lambda a, b: _f(a) > _f(b),
    "ge": lambda a, b: _f(a) >= _f(b),
    "lt": lambda a, b: _f(a) < _f(b),
    "le": lambda a, b: _f(a) <= _f(b),
    "eq": lambda a, b: _f(a) == _f(b),
    "and": lambda a, b: np.logical_and(a, b),
    "between": lambda a, lo=None, hi=None: _between(a, lo, hi),
    "where": lambda c, a, b: np.where(np.asarray(c, dtype=bool), _f(a), _f(b)),
    "share": _share,
    "clamp_below": lambda a, lo: np.maximum(_f(a), lo),
    "sum_over": lambda a, axis=None: _sum_over(a, axis),
    "spread": lambda a, shape, dims=None, keepdim=False: _spread(a, shape, dims, keepdim),
    "reshape": lambda a, shape: _f(a).reshape(tuple(shape)),
    "permute": lambda a, perm: np.transpose(_f(a), tuple(perm)),
    "sum_to": lambda a, shape: sum_to_shape(_f(a), tuple(shape)),
    "place": lambda a, shape, key, add=False: _place(a, shape, key, add),
    "pick": lambda a, key: _f(a)[decode_key(tuple(key))],
    "part": lambda a, dim, start, stop=None: _part(a, dim, start, stop),
    "unless_written": lambda a, key: _unless_written(a, key),
    "at_index": lambda a, indices, shape, dim, keepdim: _at_index(a, indices, shape, dim, keepdim),
    "per_class": lambda a, coef_ndim, reduction: _per_class(a, coef_ndim, reduction),
}


def apply(op: str, args: list, how: dict | None = None) -> np.ndarray:
    """The value of one step: ``op`` on ``args`` (arrays or numbers) with ``how``."""
    return np.asarray(OPS[op](*args, **(how or {})))

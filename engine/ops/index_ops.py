"""Indexing ops of the table: select, slice, alias, advanced index, index_put and CopySlices.

Non-tensor arguments stay JSON-friendly in ``params`` (the trace shows them): an index key is
stored encoded (``encode_key``) and decoded into a NumPy index tuple where it is used.
Every backward here is "scatter the gradient into zeros" (``xp.scatter_add``) or "pick it out"
(``xp.getitem``), so the same rules run in both worlds.
"""

from __future__ import annotations

import numpy as np

from .table import register

_FULL = slice(None)


def encode_key(key: tuple) -> tuple:
    """NumPy index tuple -> JSON-friendly tuple (ints, None, "...", slice dicts, lists of ints)."""
    out = []
    for k in key:
        if k is None:
            out.append(None)
        elif k is Ellipsis:
            out.append("...")
        elif type(k) is slice:
            out.append({"start": k.start, "stop": k.stop, "step": k.step})
        elif isinstance(k, np.ndarray):
            out.append(k.tolist())
        else:
            out.append(int(k))
    return tuple(out)


def decode_key(enc: tuple) -> tuple:
    """The inverse of ``encode_key``."""
    out = []
    for k in enc:
        if k is None:
            out.append(None)
        elif k == "...":
            out.append(Ellipsis)
        elif type(k) is dict:
            out.append(slice(k["start"], k["stop"], k["step"]))
        elif type(k) is list:
            out.append(np.asarray(k, dtype=np.int64))
        else:
            out.append(k)
    return tuple(out)


def key_mask(shape, key) -> np.ndarray:
    """Boolean array of ``shape``: True where ``key`` writes."""
    m = np.zeros(shape, dtype=np.bool_)
    m[key] = True
    return m


def _select_key(p) -> tuple:
    return (_FULL,) * p["dim"] + (p["index"], Ellipsis)


def _slice_key(p) -> tuple:
    return (_FULL,) * p["dim"] + (slice(p["start"], p["stop"], p["step"]),)


def _put(a, b, key, accumulate):
    out = a.copy()
    if accumulate:
        np.add.at(out, key, b)
    else:
        out[key] = b
    return out


def _put_self_vjp(g, s):
    if s.p["accumulate"]:
        return g
    xp = s.xp
    key = decode_key(s.p["key"])
    mask = key_mask(xp.data(g).shape, key)
    return xp.where(mask, xp.const(0.0, xp.data(g)), g)


def _put_values_vjp(g, s):
    return s.xp.getitem(g, decode_key(s.p["key"]))


def _select(a, dim, index, in_shape):
    return a[(_FULL,) * dim + (index, Ellipsis)]


def _slice(a, dim, start, stop, step, in_shape):
    return a[(_FULL,) * dim + (slice(start, stop, step),)]


register("select", "SelectBackward0", _select,
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], _select_key(s.p))],
         ["∂x[i]/∂x = 1 at i, 0 elsewhere"], view=True, description="x[i] along one dim")
register("slice", "SliceBackward0",
         _slice,
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], _slice_key(s.p))],
         ["∂x[a:b]/∂x = 1 inside the slice, 0 outside"], view=True, description="x[a:b:c] along one dim")
register("alias", "AliasBackward0", lambda a: a.view(),
         [lambda g, s: g],
         ["∂x[...]/∂x = 1"], view=True, description="x[...] (the same data)")
register("index", "IndexBackward0", lambda a, key, in_shape: a[decode_key(key)],
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], decode_key(s.p["key"]))],
         ["∂x[idx]/∂x: each picked position gets its gradient (repeats add up)"],
         saves=("indices",), description="x[indices] (integer tensors, lists or masks)")
register("index_put", "IndexPutBackward0",
         lambda a, b, key, accumulate: _put(a, b, decode_key(key), accumulate),
         [_put_self_vjp, _put_values_vjp],
         ["∂/∂x = 1 outside idx (and inside with accumulate)", "∂/∂v = 1 at idx"],
         saves=("indices",), description="x[idx] = v (or += with accumulate)")
register("copy_slices", "torch::autograd::CopySlices",
         lambda a, b, key, accumulate: _put(a, b, decode_key(key), accumulate),
         [_put_self_vjp, _put_values_vjp],
         ["∂/∂x = 1 outside the written part, 0 inside", "∂/∂v = 1 at the written part"],
         saves=("indices",), description="x[key] = v (in place)")

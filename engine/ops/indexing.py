"""Indexing: ``x[key]`` and ``x[key] = v`` composed as PyTorch composes them, with their table
entries (select, slice, alias, advanced index, index_put and CopySlices).

Reading: ``None`` unsqueezes, ints select, slices slice (a full ``:`` inside a tuple is skipped,
as torch's slice optimisation does), ``...`` skips dims; what is left of integer tensors, lists
and boolean masks becomes one IndexBackward0 on the resulting view. So ``x[0, [1, 2]]`` is
IndexBackward0 over SelectBackward0, exactly as in PyTorch.

Writing: a key of tensors (and full slices) is IndexPutBackward0; any other key is
``torch::autograd::CopySlices``; both run in place through ``dispatch.apply_inplace``.

Non-tensor arguments stay JSON-friendly in ``params`` (the trace shows them): an index key is
stored encoded (``encode_key``, ``engine.ops.keys``) and decoded into a NumPy index tuple where it
is used. Every backward here is "scatter the gradient into zeros" (``xp.scatter_add``) or "pick it out"
(``xp.getitem``), so the same rules run in both worlds.
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import errors, grad_mode
from .. import tangents as _tangents
from ..dispatch import apply, apply_inplace, check_inplace
from ..tensor import Tensor, as_tensor_like
from .explain import G, pick, place, unless_written, vjp
from .keys import decode_key, encode_key, key_mask, select_key, slice_key
from .shape import unsqueeze
from .table import OPS, public, register

_FULL = slice(None)


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


def _put_values_jvp(t, s):
    """The tangent of the written values, put where they were written (zeros elsewhere)."""
    t = s.xp.data(t)
    z = np.zeros(s.xp.data(s.out).shape, dtype=t.dtype)
    key = decode_key(s.p["key"])
    if s.p["accumulate"]:
        np.add.at(z, key, t)
    else:
        z[key] = t
    return z


def _select_forward(a, dim, index, in_shape):
    return a[(_FULL,) * dim + (index, Ellipsis)]


def _slice_forward(a, dim, start, stop, step, in_shape):
    return a[(_FULL,) * dim + (slice(start, stop, step),)]


register("select", "SelectBackward0", _select_forward,
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], select_key(s.p))],
         ["∂x[i]/∂x = 1 at i, 0 elsewhere"], view=True, description="x[i] along one dim",
         jvps=[lambda t, s: s.xp.getitem(t, select_key(s.p))], jvp_formulas=["ẋ[i]"],
         explain=vjp("{0}[{key}]", "沿一个维度取出第 i 个", place(G)))
register("slice", "SliceBackward0",
         _slice_forward,
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], slice_key(s.p))],
         ["∂x[a:b]/∂x = 1 inside the slice, 0 outside"], view=True, description="x[a:b:c] along one dim",
         jvps=[lambda t, s: s.xp.getitem(t, slice_key(s.p))], jvp_formulas=["ẋ[a:b:c]"],
         explain=vjp("{0}[{key}]", "沿一个维度切片 x[a:b:c]", place(G)))
register("alias", "AliasBackward0", lambda a: a.view(),
         [lambda g, s: g],
         ["∂x[...]/∂x = 1"], view=True, description="x[...] (the same data)",
         jvps=[lambda t, s: t], jvp_formulas=["ẋ"],
         explain=vjp("{0}[...]", "x[...]（同一份数据）", G))
register("index", "IndexBackward0", lambda a, key, in_shape: a[decode_key(key)],
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], decode_key(s.p["key"]))],
         ["∂x[idx]/∂x: each picked position gets its gradient (repeats add up)"],
         saves=("indices",), description="x[indices] (integer tensors, lists or masks)",
         jvps=[lambda t, s: s.xp.getitem(t, decode_key(s.p["key"]))], jvp_formulas=["ẋ[indices]"],
         explain=vjp("{0}[{key}]", "用整数张量、列表或掩码取元素 x[indices]", place(G)))
register("as_strided", "AsStridedBackward0", lambda a, key, in_shape: a[decode_key(key)],
         [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], decode_key(s.p["key"]))],
         ["∂view/∂base = 1 at the view's elements, 0 elsewhere"],
         description="a view read again from its base after an in-place change (PyTorch's as_strided)",
         jvps=[lambda t, s: s.xp.getitem(t, decode_key(s.p["key"]))],
         jvp_formulas=["the base's tangent at the view's elements"],
         explain=vjp("{0}[{key}]", "原地修改之后，从基张量重新读出的视图（PyTorch 的 as_strided）", place(G)))
register("index_put", "IndexPutBackward0",
         lambda a, b, key, accumulate: _put(a, b, decode_key(key), accumulate),
         [_put_self_vjp, _put_values_vjp],
         ["∂/∂x = 1 outside idx (and inside with accumulate)", "∂/∂v = 1 at idx"],
         saves=("indices",), description="x[idx] = v (or += with accumulate)",
         jvps=[_put_self_vjp, _put_values_jvp], jvp_formulas=["ẋ outside idx (everywhere with accumulate)",
                                                              "v̇ at idx"],
         explain=vjp("index_put({0}, {key}, {1})", "写入 x[idx] = v（accumulate 时为 +=）",
                     unless_written(G), pick(G)))
register("copy_slices", "torch::autograd::CopySlices",
         lambda a, b, key, accumulate: _put(a, b, decode_key(key), accumulate),
         [_put_self_vjp, _put_values_vjp],
         ["∂/∂x = 1 outside the written part, 0 inside", "∂/∂v = 1 at the written part"],
         saves=("indices",), description="x[key] = v (in place)",
         jvps=[_put_self_vjp, _put_values_jvp],
         jvp_formulas=["ẋ outside the written part", "v̇ at the written part"],
         explain=vjp("{0}[{key}] = {1}", "原地写入 x[key] = v", unless_written(G), pick(G)))


# ---- reading and writing ---------------------------------------------------------------------------
def _refuse_key(k) -> IndexError:
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
        f"(got {A.type_name(k)})"
    )


def _bound(v):
    """A slice bound: None or an integer (never the value's own ``__index__``)."""
    if v is None:
        return None
    try:
        return A.integer(v, "slice", "index")
    except TypeError:
        raise TypeError("slice indices must be integers or None or have an __index__ method") from None


def _entry(k):
    """One user key entry -> int, slice, None, Ellipsis or an ndarray (int64 or bool)."""
    if k is None or k is Ellipsis:
        return k
    if type(k) is slice:
        return slice(_bound(k.start), _bound(k.stop), _bound(k.step))
    if type(k) is bool or type(k) is np.bool_:
        raise IndexError("gradviz does not support indexing with a Python bool")
    if A.kind(k) is A.NUMBER:
        if type(k) is not int and np.asarray(k).dtype.kind not in "iu":
            raise _refuse_key(k)
        return int(k)
    if isinstance(k, Tensor):
        arr = k._data
        if arr.dtype.kind == "f":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if arr.ndim == 0 and arr.dtype != np.bool_:
            return int(arr)
        return arr if arr.dtype == np.bool_ else arr.astype(np.int64, copy=False)
    if type(k) in (list, tuple) or (type(k) is np.ndarray and A.kind(k) is A.ARRAY):
        arr = A.to_array(k, _refuse_key)
        if arr.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return arr if arr.dtype == np.bool_ else arr.astype(np.int64)
    raise _refuse_key(k)


def _normalize(x: Tensor, key) -> list:
    """The key as a list of entries with the Ellipsis expanded into full slices."""
    entries = [_entry(k) for k in (key if type(key) is tuple else (key,))]
    used = 0
    for k in entries:
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            used += max(k.ndim, 1)
        elif k is not None and k is not Ellipsis:
            used += 1
    nd = x._data.ndim
    if used > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out = []
    seen_ellipsis = False
    for k in entries:
        if k is Ellipsis:
            if not seen_ellipsis:
                out.extend([_FULL] * (nd - used))
                seen_ellipsis = True
            continue
        out.append(k)
    return out


def _check_index(i: int, dim: int, size: int) -> int:
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return i % size


def _slice_params(sl: slice, size: int) -> tuple[int, int, int]:
    if sl.step is not None and sl.step == 0:
        raise ValueError("slice step cannot be zero")
    step = 1 if sl.step is None else int(sl.step)
    if step < 0:
        raise ValueError("step must be greater than zero")
    start, stop, _ = sl.indices(size)
    return start, max(stop, start), step


def _select(x: Tensor, dim: int, index: int, orig: int) -> Tensor:
    shp = x._data.shape
    index = _check_index(index, orig, shp[dim])  # torch names the dim of the original tensor
    return apply(OPS["select"], (x,), {"dim": dim, "index": index, "in_shape": shp})


def _slice(x: Tensor, dim: int, sl: slice, always: bool) -> Tensor:
    shp = x._data.shape
    start, stop, step = _slice_params(sl, shp[dim])
    if not always and start == 0 and stop == shp[dim] and step == 1:
        return x
    return apply(
        OPS["slice"], (x,), {"dim": dim, "start": start, "stop": stop, "step": step, "in_shape": shp}
    )


@public("Tensor", name="__getitem__")
def getitem(x: Tensor, key) -> Tensor:
    """``x[key]``: views for ints, slices and None; IndexBackward0 for tensors, lists and masks."""
    if key is Ellipsis:
        return apply(OPS["alias"], (x,))
    if type(key) is slice:  # torch keeps a lone slice even when it is ``:``
        if x._data.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor.")
        return _slice(x, 0, key, always=True)
    entries = _normalize(x, key)
    out, dim, adv = x, 0, []
    orig = 0  # the dim of ``x`` the entry indexes (for error messages)
    for k in entries:
        if k is None:
            out = unsqueeze(out, dim)
            dim += 1
            continue
        if type(k) is int:
            out = _select(out, dim, k, orig)
        elif type(k) is slice:
            out = _slice(out, dim, k, always=False)
            dim += 1
        elif k.dtype == np.bool_:
            if k.ndim == 0:
                raise IndexError("gradviz does not support a 0-dim boolean index")
            _check_mask(k, out._data.shape, dim)
            for part in np.nonzero(k):
                adv.append((dim, part.astype(np.int64)))
                dim += 1
        else:
            size = out._data.shape[dim]
            if k.size and (k.max() >= size or k.min() < -size):
                bad = int(k.max()) if k.max() >= size else int(k.min())
                raise IndexError(f"index {bad} is out of bounds for dimension {orig} with size {size}")
            adv.append((dim, np.where(k < 0, k + size, k)))
            dim += 1
        orig += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
    if not adv:
        return out if out is not x else apply(OPS["alias"], (x,))
    full = [_FULL] * out._data.ndim
    for d, arr in adv:
        full[d] = arr
    return apply(OPS["index"], (out,), {"key": encode_key(tuple(full)), "in_shape": tuple(out._data.shape)})


def _check_mask(mask: np.ndarray, shape: tuple, dim: int) -> None:
    for j, n in enumerate(mask.shape):
        if dim + j >= len(shape) or shape[dim + j] != n:
            raise IndexError(
                f"The shape of the mask [{', '.join(map(str, mask.shape))}] at index {j} does not match the "
                f"shape of the indexed tensor [{', '.join(map(str, shape))}] at index {dim + j}"
            )


def _numpy_key(x: Tensor, key) -> tuple:
    """The key as a NumPy index tuple for writing (masks become integer positions)."""
    out = []
    for k in _normalize(x, key):
        if isinstance(k, np.ndarray) and k.dtype == np.bool_:
            out.extend(p.astype(np.int64) for p in np.nonzero(k))
        else:
            out.append(k)
    return tuple(out)


@public("Tensor", name="__setitem__")
def setitem(x: Tensor, key, value) -> None:
    """``x[key] = value`` in place (CopySlices, or IndexPutBackward0 for a key of tensors)."""
    nkey = _numpy_key(x, key)
    v = value if isinstance(value, Tensor) else as_tensor_like(value, x) if A.is_number(value) else None
    if v is None:
        raise TypeError(f"can't assign a {_assigned_name(value)} to a {x.dtype._type_desc}")
    if _makes_view(nkey) and grad_mode._enabled and x._requires_grad and x._grad_fn is None:
        raise RuntimeError(errors.VIEW_LEAF_INPLACE)  # torch writes through a view of the leaf here
    check_inplace(x, (v,))
    if not (x._requires_grad or v._requires_grad) and (
            _tangents.ACTIVE is None or _tangents.tangent_of(x) is None and _tangents.tangent_of(v) is None):
        x._data[nkey] = v._data
        x._vc[0] += 1
        return
    advanced = any(isinstance(k, np.ndarray) for k in nkey)
    only_tensors = advanced and all(isinstance(k, np.ndarray) or k == _FULL for k in nkey)
    v = _fit_value(v, x._data[nkey].shape, expand=not only_tensors)
    name = "index_put" if only_tensors else "copy_slices"
    apply_inplace(OPS[name], x, (v,), {"key": encode_key(nkey), "accumulate": False})


def _assigned_name(value) -> str:
    t = type(value)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


def _makes_view(nkey: tuple) -> bool:
    """Whether torch reaches the written part through a view (a select, a partial slice, None)."""
    for k in nkey:
        if k is None or type(k) is int or (type(k) is slice and k != _FULL):
            return True
    return False


def _fit_value(v: Tensor, slot: tuple, expand: bool) -> Tensor:
    """What torch does to a value before writing it: strip leading 1s with a view, then (for
    CopySlices) expand it to the written part's shape, so those nodes appear in the graph."""
    shp = v._data.shape
    if shp == slot:
        return v
    lead = 0
    while lead < len(shp) and shp[lead] == 1:
        lead += 1
    if lead or expand:
        v = apply(OPS["view"], (v,), {"shape": shp[lead:], "in_shape": shp})
    if expand and v._data.shape != slot:
        try:
            np.broadcast_shapes(v._data.shape, slot)
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, shp))}] cannot be "
                f"broadcast to indexing result of shape [{', '.join(map(str, slot))}]"
            ) from None
        v = apply(OPS["expand"], (v,), {"shape": slot, "in_shape": v._data.shape})
    return v


@public("torch")
def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``torch.index_put``: a copy of ``input`` with ``values`` written (or added) at ``indices``."""
    input = A.tensor(input, "index_put", "input", 1)
    indices = A.tensors(indices, "index_put", "indices", 2)
    values = A.tensor(values, "index_put", "values", 3)
    accumulate = A.flag(accumulate, "index_put", "accumulate", 4)
    key = tuple(_entry(k) for k in indices)
    return apply(OPS["index_put"], (input, values), {"key": encode_key(key), "accumulate": accumulate})

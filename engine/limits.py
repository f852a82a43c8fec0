"""Resource limits the program runner turns on (off by default: the engine as a library is unlimited).

``ACTIVE`` is None, or a ``Budget``. Every tensor passes one of these checks before it exists:
factories call ``check_alloc``, the op table's ``dispatch.apply`` calls ``check_op`` (the result's
shape, predicted) and ``count_result``, and the few results made outside the table call
``check_shape``. A shape is counted by ``extent``, so an empty tensor of many rows counts too.
"""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass

import numpy as np

from .errors import LimitError
from .ops.indexing import decode_key
from .tensor import Tensor


@dataclass
class Budget:
    """What one run may hold: ``used_bytes`` counts allocations since the last count of live
    tensors; only when it passes ``max_bytes`` are the live tensors counted (``_over_budget``),
    so a training loop that frees what it allocates runs on, and a program that keeps more
    than ``max_bytes`` of tensors alive is stopped."""

    max_elements: int = 1_000_000
    max_bytes: int = 64 * 1024 * 1024
    used_bytes: int = 0
    max_int_bits: int | None = None  # integers the libraries of the runner compute (math.factorial, ...)


ACTIVE: Budget | None = None


def extent(shape) -> int:
    """How many elements a shape counts for: the product of its dims with an empty dim counted as 1.

    A tensor of shape (3000000, 0) holds nothing, but everything that walks it by its shape
    (printing, ``tolist()``, serializing) still visits 3,000,000 rows: it counts as 3,000,000."""
    n = 1
    for d in shape:
        if d > 1:
            n *= int(d)
    return n


def _check_shape(b: Budget, shape, numel: int) -> None:
    if numel > b.max_elements or (numel == 0 and extent(shape) > b.max_elements):
        n = extent(shape)
        if n == numel:
            raise LimitError(f"a tensor of {numel:,} elements is over the limit of {b.max_elements:,} "
                             "elements per tensor (limit: max_tensor_elements)")
        raise LimitError(f"a tensor of shape {list(shape)} counts as {n:,} elements (an empty dimension "
                         f"counts as 1), over the limit of {b.max_elements:,} elements per tensor "
                         "(limit: max_tensor_elements)")


def check_shape(shape) -> None:
    """Refuse a tensor of this shape (before it is made) when it is over the element limit."""
    b = ACTIVE
    if b is not None:
        _check_shape(b, shape, math.prod(shape))


def check_alloc(shape, itemsize: int) -> None:
    """Refuse a new tensor over the element limit, or one that would bring the run over its byte
    budget (factories call this before they allocate)."""
    b = ACTIVE
    if b is None:
        return
    numel = math.prod(shape)
    _check_shape(b, shape, numel)
    b.used_bytes += numel * itemsize
    if b.used_bytes > b.max_bytes:
        _over_budget(b, numel * itemsize)


def check_op(op, arrays, params) -> None:
    """Before an op runs (limits active): refuse it when its result would be over the element limit
    (broadcast results, matrix products, concatenations, expanded views, reductions, indexing)."""
    b = ACTIVE
    if b is None:
        return
    if len(arrays) == 1 and not params and not op.variadic:
        return  # one input, no parameters: the result is the size of its input (result_shape: None)
    try:
        shape = result_shape(op, arrays, params, b.max_elements)
    except (ValueError, IndexError, TypeError):
        return  # the op raises its own error about the shapes
    if shape is not None:
        _check_shape(b, shape, math.prod(shape))


def result_shape(op, arrays, params, cap: int):
    """The shape an op of the table will return, for the ops whose result can be bigger than their
    inputs (None for the others: an elementwise result is the size of an input)."""
    name = op.name
    if name in ("mm", "addmm"):
        return arrays[-2].shape[0], arrays[-1].shape[-1]
    if name == "bmm":
        x, y = arrays
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2] if y.ndim > 2 else ())
        return tuple(batch) + (x.shape[-2],) + ((y.shape[-1],) if y.ndim > 1 else ())
    if op.variadic:
        first = arrays[0].shape
        d = params["dim"]
        if name == "stack":
            return first[:d] + (len(arrays),) + first[d:]
        return first[:d] + (sum(a.shape[d] for a in arrays),) + first[d + 1:]
    if len(arrays) > 1 and name not in ("index_put", "copy_slices"):
        bound = 1
        for a in arrays:
            bound *= a.size
        if 0 < bound <= cap:
            return None  # a broadcast result never has more elements than the product of the inputs
        return tuple(np.broadcast_shapes(*(a.shape for a in arrays)))
    if params:
        if name in ("index", "as_strided"):

            return index_shape(params["in_shape"], decode_key(params["key"]))
        if "dim" in params and "shape" in params:  # a reduction along dims
            return reduced_shape(params["shape"], params["dim"], params.get("keepdim", False))
        if "shape" in params:
            return tuple(params["shape"])
    return None


def reduced_shape(shape, dims, keepdim: bool) -> tuple:
    """The shape of a reduction of ``shape`` along ``dims`` (an int, a tuple, or None for all)."""
    if dims is None:
        return (1,) * len(shape) if keepdim else ()
    dims = {dims} if isinstance(dims, int) else set(dims)
    if keepdim:
        return tuple(1 if i in dims else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in dims)


_ADV = object()  # a placeholder for the dims an advanced index takes


def index_shape(in_shape, key) -> tuple:
    """NumPy's result shape for ``array[key]`` (slices, ints, None, Ellipsis, integer and boolean
    arrays), computed without indexing anything."""
    nd = len(in_shape)
    used = sum((k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1)
               for k in key if k is not None and k is not Ellipsis)
    full: list = []
    for k in key:
        if k is Ellipsis:
            full.extend([slice(None)] * (nd - used))
            used = nd
        else:
            full.append(k)
    full.extend([slice(None)] * (nd - used))
    has_array = any(isinstance(k, np.ndarray) for k in full)
    dims: list = []
    adv: list = []
    d = 0
    for k in full:
        if k is None:
            dims.append(1)
        elif type(k) is slice:
            dims.append(len(range(*k.indices(in_shape[d]))))
            d += 1
        elif isinstance(k, np.ndarray):
            if k.dtype == np.bool_:
                adv.append((int(np.count_nonzero(k)),))
                d += k.ndim
            else:
                adv.append(k.shape)
                d += 1
            dims.append(_ADV)
        else:  # an int: drops its dim (an advanced index of shape () beside arrays)
            if has_array:
                adv.append(())
                dims.append(_ADV)
            d += 1
    if not adv:
        return tuple(dims)
    b = tuple(np.broadcast_shapes(*adv))
    at = [i for i, x in enumerate(dims) if x is _ADV]
    rest = [x for x in dims if x is not _ADV]
    if at == list(range(at[0], at[0] + len(at))):  # adjacent: the result takes their place
        return tuple(dims[:at[0]]) + b + tuple(x for x in dims[at[0]:] if x is not _ADV)
    return b + tuple(rest)


def count_result(res, is_view: bool) -> None:
    """After an op ran (limits active): its result counts against the element and byte limits."""
    b = ACTIVE
    if b is None:
        return
    numel = int(res.size)
    if numel > b.max_elements or numel == 0:
        _check_shape(b, res.shape, numel)
    if not is_view:
        b.used_bytes += int(res.nbytes)
        if b.used_bytes > b.max_bytes:
            _over_budget(b, 0)


def live_tensor_bytes() -> int:
    """Bytes of the distinct arrays behind every tensor alive in this process."""


    # Garbage in reference cycles is not alive: an earlier program's interpreter (it and its
    # builtins refer to each other) would otherwise count against this one until the collector
    # happens to run (the collector may be paused: see gcpause).
    gc.collect()
    seen: set[int] = set()
    total = 0
    for obj in gc.get_objects():
        if isinstance(obj, Tensor):
            a = obj._data
            while a.base is not None and isinstance(a.base, np.ndarray):
                a = a.base
            if id(a) not in seen:
                seen.add(id(a))
                total += a.nbytes
    return total


def _over_budget(b: Budget, pending: int) -> None:
    """The allocations since the last count passed the budget: count what is really alive
    (plus the allocation about to happen) and refuse only if that is over the budget."""
    live = live_tensor_bytes() + pending
    if live > b.max_bytes:
        raise LimitError(
            f"the program holds more than {b.max_bytes // (1024 * 1024)} MB of tensors "
            "(limit: max_tensor_bytes)")
    # Count again after another quarter of the budget at least, so a program living close to
    # the limit does not pay for a count at every op.
    b.used_bytes = min(live, b.max_bytes - b.max_bytes // 4)

"""Resource limits the program runner turns on (off by default: the engine as a library is unlimited).

``ACTIVE`` is None, or a ``Budget``; factories and ops call ``check_alloc`` before they allocate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import LimitError


@dataclass
class Budget:
    """What one run may hold: ``used_bytes`` counts allocations since the last count of live
    tensors; only when it passes ``max_bytes`` are the live tensors counted (``_over_budget``),
    so a training loop that frees what it allocates runs on, and a program that keeps more
    than ``max_bytes`` of tensors alive is stopped."""

    max_elements: int = 1_000_000
    max_bytes: int = 64 * 1024 * 1024
    used_bytes: int = 0


ACTIVE: Budget | None = None


def check_alloc(numel: int, itemsize: int) -> None:
    """Refuse a tensor over the element limit, or one that would bring the run over its byte budget."""
    b = ACTIVE
    if b is None:
        return
    if numel > b.max_elements:
        raise LimitError(
            f"a tensor of {numel:,} elements is over the limit of {b.max_elements:,} elements per tensor "
            "(limit: max_tensor_elements)")
    b.used_bytes += numel * itemsize
    if b.used_bytes > b.max_bytes:
        _over_budget(b, numel * itemsize)


def _refuse_numel(b: Budget, numel: int) -> None:
    if numel > b.max_elements:
        raise LimitError(
            f"a tensor of {numel:,} elements is over the limit of {b.max_elements:,} elements per tensor "
            "(limit: max_tensor_elements)")


def check_op(op, arrays, params) -> None:
    """Before an op runs (limits active): refuse it when its result would be over the element limit
    (broadcast results, matrix products, concatenations, expanded views)."""
    b = ACTIVE
    if b is None:
        return
    name = op.name
    try:
        if name in ("mm", "addmm"):
            numel = arrays[-2].shape[0] * arrays[-1].shape[-1]
        elif name == "bmm":
            x, y = arrays
            batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2] if y.ndim > 2 else ())
            numel = int(np.prod(batch, dtype=np.int64)) * x.shape[-2] * (y.shape[-1] if y.ndim > 1 else 1)
        elif op.variadic:
            numel = sum(a.size for a in arrays)
        elif len(arrays) > 1:
            bound = 1
            for a in arrays:
                bound *= a.size
            if bound <= b.max_elements:
                return  # a broadcast result never has more elements than the product of the inputs
            numel = math.prod(np.broadcast_shapes(*(a.shape for a in arrays)))
        elif params and "shape" in params:
            numel = math.prod(params["shape"])
        else:
            return
    except (ValueError, IndexError, TypeError):
        return  # the op raises its own error about the shapes
    _refuse_numel(b, int(numel))


def count_result(res, is_view: bool) -> None:
    """After an op ran (limits active): its result counts against the element and byte limits."""
    b = ACTIVE
    if b is None:
        return
    _refuse_numel(b, int(res.size))
    if not is_view:
        b.used_bytes += int(res.nbytes)
        if b.used_bytes > b.max_bytes:
            _over_budget(b, 0)


def live_tensor_bytes() -> int:
    """Bytes of the distinct arrays behind every tensor alive in this process."""
    import gc

    from .tensor import Tensor

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

"""Tensor creation: ``tensor, zeros, ones, full, eye, arange, linspace, randn, rand, randint, ...``.

Random numbers come from one NumPy generator seeded by ``manual_seed``: the same seed gives the
same numbers here every time (not the same numbers as PyTorch's generator).
"""

from __future__ import annotations

import numbers

import numpy as np

from . import dtypes, errors, limits
from .tensor import Tensor

_rng = np.random.default_rng(0)


def manual_seed(seed: int):
    """Reseed the engine's random generator."""
    global _rng
    _rng = np.random.default_rng(int(seed))
    return None


def seed() -> int:
    s = int(np.random.SeedSequence().entropy % (2**63))
    manual_seed(s)
    return s


def _finish(arr: np.ndarray, dtype, requires_grad: bool) -> Tensor:
    if dtype is not None:
        arr = arr.astype(dtype.np, copy=False)
    t = Tensor._make(arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise RuntimeError(errors.ONLY_FLOAT_GRAD)
        t._requires_grad = True
    return t


def _infer(data, dtype=None):
    """Nested Python data -> ndarray with torch's default dtypes (or ``dtype``, cast once)."""
    if isinstance(data, Tensor):
        return data._data.copy()
    if isinstance(data, np.ndarray):
        return data.copy()
    flat_kinds = set()

    def walk(x):
        if isinstance(x, Tensor):
            if x._data.size != 1 and x.ndim != 0:
                return x._data.tolist()
            flat_kinds.add(x._data.dtype.kind)
            return x._data.reshape(()).item()
        if isinstance(x, (list, tuple)):
            return [walk(v) for v in x]
        if isinstance(x, bool):
            flat_kinds.add("b")
        elif isinstance(x, numbers.Integral):
            flat_kinds.add("i")
        elif isinstance(x, numbers.Real):
            flat_kinds.add("f")
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")
        return x

    py = walk(data)
    try:
        arr = np.array(py)
    except ValueError as exc:
        raise ValueError(f"expected sequence of equal-length lists: {exc}") from None
    if arr.dtype == object:
        raise ValueError("expected a sequence of numbers of equal lengths")
    if dtype is not None:
        return arr.astype(dtype.np)
    if "f" in flat_kinds or arr.dtype.kind == "f":
        return arr.astype(dtypes.get_default_dtype().np)
    if "i" in flat_kinds or arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.size == 0 and not flat_kinds:
        return arr.astype(dtypes.get_default_dtype().np)
    return arr.astype(np.bool_)


def tensor(data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists, or a tensor)."""
    arr = _infer(data, dtype)
    limits.check_alloc(arr.size, (dtype.np if dtype is not None else arr.dtype).itemsize)
    return _finish(arr, dtype, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    return tensor(data, dtype=dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(arr))


def _size(size) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s.item())
        if not isinstance(s, numbers.Integral):
            raise TypeError(f"size must be a tuple of ints, but got {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _alloc(shape, dtype, default=None) -> np.dtype:
    dt = (dtype or default or dtypes.get_default_dtype()).np
    limits.check_alloc(int(np.prod(shape, dtype=np.int64)), dt.itemsize)
    return dt


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape = _size(size)
    return _finish(np.zeros(shape, _alloc(shape, dtype)), None, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape = _size(size)
    return _finish(np.ones(shape, _alloc(shape, dtype)), None, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape = _size((size,))
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = dtypes.bool_
        elif isinstance(fill_value, numbers.Integral):
            dtype = dtypes.int64
    return _finish(np.full(shape, fill_value, _alloc(shape, dtype)), None, requires_grad)


def zeros_like(input: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return zeros(tuple(input.shape), dtype=dtype or input.dtype, requires_grad=requires_grad)


def ones_like(input: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return ones(tuple(input.shape), dtype=dtype or input.dtype, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value, dtype=None, requires_grad: bool = False) -> Tensor:
    return full(tuple(input.shape), fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad)


def rand_like(input: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return rand(tuple(input.shape), dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input: Tensor, dtype=None, requires_grad: bool = False) -> Tensor:
    return randn(tuple(input.shape), dtype=dtype or input.dtype, requires_grad=requires_grad)


def eye(n: int, m: int | None = None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    m = n if m is None else m
    return _finish(np.eye(n, m, dtype=_alloc((n, m), dtype)), None, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = max(int(np.ceil((end - start) / step)), 0)
    all_int = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    dt = _alloc((n,), dtype, dtypes.int64 if all_int else None)
    return _finish(np.arange(start, end, step).astype(dt), None, requires_grad)


def linspace(start, end, steps: int, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt = _alloc((steps,), dtype)
    return _finish(np.linspace(start, end, int(steps)).astype(dt), None, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    shape = _size(size)
    dt = _alloc(shape, dtype)
    return _finish(_rng.standard_normal(shape).astype(dt), None, requires_grad)


def rand(*size, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    shape = _size(size)
    dt = _alloc(shape, dtype)
    return _finish(_rng.random(shape).astype(dt), None, requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, requires_grad: bool = False,
            generator=None) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    shape = _size((size,))
    dt = _alloc(shape, dtype, dtypes.int64)
    return _finish(_rng.integers(low, high, shape).astype(dt), None, requires_grad)


def randperm(n: int, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt = _alloc((n,), dtype, dtypes.int64)
    return _finish(_rng.permutation(n).astype(dt), None, requires_grad)


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill ``t`` in place with normal samples (used by nn.init)."""
    t._data[...] = _rng.normal(mean, std, t._data.shape)
    t._vc[0] += 1
    return t


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill ``t`` in place with uniform samples in [a, b) (used by nn.init and nn.Linear)."""
    t._data[...] = _rng.uniform(a, b, t._data.shape)
    t._vc[0] += 1
    return t

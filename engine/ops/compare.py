"""Comparisons and logic: ``eq``, ``lt``, ..., ``logical_and``, ``&``, ``|``, ``~``, ``in``. Not
differentiable, so no table entries: each returns a plain (bool) tensor."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import limits
from .. import trace as _trace
from ..dtypes import scalar_name
from ..tensor import Tensor, _norm_dim
from .table import public
from .wrappers import check_broadcast, reflected


def _operands(fn: str, input, other):
    """The arrays of a comparison or a logical/bitwise op (tensor or number operands), after the
    result's size is checked; None when ``other`` is not a tensor, a number or a numeric array."""
    a = A.tensor(input, fn, "input", 1)._data
    if isinstance(other, Tensor):
        b = other._data
    elif A.is_number(other) or A.kind(other) is A.ARRAY:
        b = other
    else:
        return None
    if isinstance(b, np.ndarray) and a.shape != b.shape:
        limits.check_shape(np.broadcast_shapes(a.shape, b.shape))
    return a, b


def _elementwise(fn: str, ufunc, doc: str):
    """``fn(input, other)``: ``ufunc`` on both operands' arrays, as a plain tensor."""

    def function(input, other) -> Tensor:
        ab = _operands(fn, input, other)
        if ab is None:
            raise TypeError(A.must(fn, "other", 2, "Tensor", other))
        out = Tensor._make(np.asarray(ufunc(*ab)))
        _cut(fn, out, input, other)
        return out

    function.__name__ = function.__qualname__ = fn
    function.__doc__ = doc
    return function


def _cut(fn: str, out: Tensor, *operands) -> None:
    """A recording notes each operand that requires grad as cut off by the comparison."""
    if _trace.ACTIVE is not None:
        for t in operands:
            if isinstance(t, Tensor) and t._requires_grad:
                _trace.note_cut(t, out, "compare", fn)


def _comparison(name: str, ufunc):
    """Publish ``torch.<name>``, ``Tensor.<name>`` and ``Tensor.__<name>__``; returns the function."""
    doc = f"Elementwise ``{ufunc.__name__}`` as a bool tensor (not differentiable)."
    compare = _elementwise(name, ufunc, doc)
    public("Tensor", name=f"__{name}__")(reflected(compare))
    return public("torch", "Tensor")(compare)


eq, ne, lt, le, gt, ge = (_comparison(n, u) for n, u in (
    ("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
    ("ge", np.greater_equal)))

logical_and = public("torch")(_elementwise("logical_and", np.logical_and, "Elementwise logical and."))
logical_or = public("torch")(_elementwise("logical_or", np.logical_or, "Elementwise logical or."))
_bitwise_and = _elementwise("bitwise_and", np.bitwise_and, "Elementwise bitwise and.")
_bitwise_or = _elementwise("bitwise_or", np.bitwise_or, "Elementwise bitwise or.")


@public("torch")
def logical_not(input) -> Tensor:
    """Elementwise logical not."""
    return Tensor._make(np.logical_not(A.tensor(input, "logical_not", "input", 1)._data))


def _and(self: Tensor, other) -> Tensor:
    """``&``: logical for bool tensors, bitwise for integers."""
    if self._data.dtype == np.bool_:
        return logical_and(self, other)
    return _bitwise_and(self, other)


def _or(self: Tensor, other) -> Tensor:
    """``|``: logical for bool tensors, bitwise for integers."""
    if self._data.dtype == np.bool_:
        return logical_or(self, other)
    return _bitwise_or(self, other)


for _name, _method in (("__and__", _and), ("__rand__", _and), ("__or__", _or), ("__ror__", _or)):
    public("Tensor", name=_name)(reflected(_method))


@public("Tensor", name="__invert__")
def _invert(self: Tensor) -> Tensor:
    """``~``: logical for bool tensors, bitwise for integers."""
    if self._data.dtype == np.bool_:
        return logical_not(self)
    return Tensor._make(np.invert(self._data))


@public("Tensor", name="__contains__")
def _contains(self: Tensor, element) -> bool:
    """``element in t``: whether any element equals it (tensors and numbers only, as in torch)."""
    if not (isinstance(element, Tensor) or A.is_number(element)):
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{A.type_name(element)}.")
    return bool(np.any(eq(self, element)._data))


# ---- closeness and truth of whole tensors ---------------------------------------------------------------
def _same_dtype_pair(fn: str, input, other) -> tuple:
    a = A.tensor(input, fn, "input", 1)
    b = A.tensor(other, fn, "other", 2)
    if a._data.dtype != b._data.dtype:

        raise RuntimeError(f"{scalar_name(a.dtype)} did not match {scalar_name(b.dtype)}")
    return a._data, b._data


def _tolerances(fn: str, rtol, atol, equal_nan) -> tuple:
    rtol = A.real(rtol, fn, "rtol")
    atol = A.real(atol, fn, "atol")
    equal_nan = A.flag(equal_nan, fn, "equal_nan")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    return rtol, atol, equal_nan


def _close(fn: str, input, other, rtol, atol, equal_nan) -> np.ndarray:
    a, b = _same_dtype_pair(fn, input, other)
    rtol, atol, equal_nan = _tolerances(fn, rtol, atol, equal_nan)
    if a.shape != b.shape:

        check_broadcast(input, other)
        limits.check_shape(np.broadcast_shapes(a.shape, b.shape))
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@public("torch", "Tensor")
def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input − other| ≤ atol + rtol·|other| elementwise, as a bool tensor."""
    return Tensor._make(np.asarray(_close("isclose", input, other, rtol, atol, equal_nan)))


@public("torch", "Tensor")
def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other``'s (``isclose`` everywhere)."""
    return bool(np.all(_close("allclose", input, other, rtol, atol, equal_nan)))


@public("torch", "Tensor")
def equal(input, other) -> bool:
    """Whether the two tensors have the same shape and the same elements."""
    a = A.tensor(input, "equal", "input", 1)._data
    b = A.tensor(other, "equal", "other", 2)._data
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _truth(fn: str, reduce, input, dim, keepdim) -> Tensor:
    input = A.tensor(input, fn, "input", 1)
    keepdim = A.flag(keepdim, fn, "keepdim")
    arr = input._data
    axis = None
    if dim is not None and arr.ndim:
        axis = tuple(sorted({_norm_dim(d, arr.ndim, fn) for d in A.ints(dim, fn, "dim", 2)}))
    elif dim is not None:
        A.ints(dim, fn, "dim", 2)
    out = np.asarray(reduce(arr != 0, axis=axis, keepdims=keepdim))
    if arr.dtype == np.uint8:  # torch keeps uint8 for uint8 input
        out = out.astype(np.uint8)
    return Tensor._make(out)


@public("torch", "Tensor")
def all(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001 - torch's name
    """Whether every element (along ``dim``) is true (nonzero), as a bool tensor."""
    return _truth("all", np.all, input, dim, keepdim)


@public("torch", "Tensor")
def any(input, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001 - torch's name
    """Whether some element (along ``dim``) is true (nonzero), as a bool tensor."""
    return _truth("any", np.any, input, dim, keepdim)


public("Tensor", name="logical_not")(logical_not)

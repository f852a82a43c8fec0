"""More public ops (max/min, argmax/argmin, maximum/minimum, clamp, cat/stack, var/std, zero_/fill_/
copy_/clamp_), each checking its arguments as PyTorch does and running one table entry."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply, apply_inplace
from ..tensor import Tensor, _norm_dim
from .table import OPS


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


def _extreme(name: str, result_type, input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    input = A.tensor(input, name, "input", 1)
    if isinstance(dim, Tensor):  # torch.max(a, b): elementwise
        return _pairwise("maximum" if name == "max" else "minimum", input, dim)
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


def max(input: Tensor, dim=None, keepdim: bool = False):  # noqa: A001 - torch's name
    """Largest element; or (values, indices) along ``dim``; or ``maximum`` with a tensor."""
    return _extreme("max", MaxResult, input, dim, keepdim)


def min(input: Tensor, dim=None, keepdim: bool = False):  # noqa: A001 - torch's name
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
        return Tensor._make(idx.astype(np.int64))
    d = _norm_dim(dim, input.ndim, fn)
    return Tensor._make(np.asarray(pick(input._data, axis=d, keepdims=keepdim), dtype=np.int64))


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None); not differentiable."""
    return _arg(np.argmax, input, dim, keepdim)


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None); not differentiable."""
    return _arg(np.argmin, input, dim, keepdim)


def _pairwise(name: str, a, b) -> Tensor:
    from .api import _binary

    return _binary(name, a, b)


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (MaximumBackward0)."""
    A.tensor(input, "maximum", "input", 1)
    return _pairwise("maximum", input, A.tensor(other, "maximum", "other", 2))


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum of two tensors (MinimumBackward0)."""
    A.tensor(input, "minimum", "input", 1)
    return _pairwise("minimum", input, A.tensor(other, "minimum", "other", 2))


def _bounds(fn: str, input, min, max) -> tuple:  # noqa: A002
    """clamp's input and number bounds, checked."""
    input = A.tensor(input, fn, "input", 1)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        raise RuntimeError("gradviz supports clamp with number bounds only (not tensors)")
    min = A.optional_number(min, fn, "min")  # noqa: A001
    max = A.optional_number(max, fn, "max")  # noqa: A001
    if type(min) is complex or type(max) is complex:
        raise TypeError("complex numbers are not supported by gradviz")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return input, min, max


def clamp(input: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Limit every element to [min, max] (ClampBackward1)."""
    input, min, max = _bounds("clamp", input, min, max)  # noqa: A001
    return apply(OPS["clamp"], (input,), {"min": min, "max": max})


def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002
    """max(x, min) elementwise (ClampMinBackward0)."""
    input, min, _ = _bounds("clamp_min", input, min, None)  # noqa: A001
    return apply(OPS["clamp_min"], (input,), {"min": min})


def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002
    """min(x, max) elementwise (ClampMaxBackward0)."""
    input, _, max = _bounds("clamp_max", input, None, max)  # noqa: A001
    return apply(OPS["clamp_max"], (input,), {"max": max})


def _seq(tensors, what: str) -> tuple:
    ts = A.tensors(tensors, what)
    if not ts:
        raise RuntimeError(f"{what}(): expected a non-empty list of Tensors")
    return ts


def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (CatBackward0)."""
    ts = _seq(tensors, "cat")
    dim = A.integer(dim, "cat", "dim", 2)
    for i, t in enumerate(ts):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    first = ts[0]
    d = _norm_dim(dim, first.ndim)
    for i, t in enumerate(ts[1:], 1):
        if t.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}")
        for k in range(first.ndim):
            if k != d and t.shape[k] != first.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {first.shape[k]} "
                    f"but got size {t.shape[k]} for tensor number {i} in the list."
                )
    return apply(OPS["cat"], ts, {"dim": d, "sizes": tuple(int(t._data.shape[d]) for t in ts)})


def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim (StackBackward0)."""
    ts = _seq(tensors, "stack")
    dim = A.integer(dim, "stack", "dim", 2)
    first = ts[0]
    for i, t in enumerate(ts[1:], 1):
        if t._data.shape != first._data.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first.shape)} at entry 0 and "
                f"{list(t.shape)} at entry {i}"
            )
    d = _norm_dim(dim, first.ndim + 1)
    return apply(OPS["stack"], ts, {"dim": d})


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
        raise RuntimeError(
            f"{name}(): input dtype should be floating point, but got {input.dtype.name.capitalize()}"
        )
    if dim is not None:
        dim = tuple(sorted(_norm_dim(d, input.ndim, name) for d in A.ints(dim, name, "dim", 1)))
    params = {
        "dim": dim,
        "correction": correction,
        "keepdim": keepdim,
        "shape": tuple(input._data.shape),
    }
    return apply(OPS[name], (input,), params)


def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Variance (Bessel-corrected unless ``unbiased=False`` / ``correction=0``)."""
    return _moments("var", input, dim, unbiased, keepdim, correction)


def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Standard deviation (Bessel-corrected unless ``unbiased=False`` / ``correction=0``)."""
    return _moments("std", input, dim, unbiased, keepdim, correction)


# ---- in place -------------------------------------------------------------------------------
def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (ZeroBackward0)."""
    return apply_inplace(OPS["zero"], A.tensor(self, "zero_", "input", 1), ())


def fill_(self: Tensor, value) -> Tensor:
    """Fill with one value in place (FillBackward2; FillBackward3 for a 0-dim tensor)."""
    self = A.tensor(self, "fill_", "input", 1)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
            )
        return apply_inplace(OPS["fill_tensor"], self, (value,))
    if not A.is_number(value) or type(value) is complex:
        got = A.type_name(value)
        why = f"      didn't match because some of the arguments have invalid types: (!{got}!)\n"
        raise TypeError(f"fill_() received an invalid combination of arguments - got ({got}), but expected "
                        f"one of:\n * (Tensor value)\n{why} * (Number value)\n{why}")
    return apply_inplace(OPS["fill"], self, (), {"value": A.number(value, "fill_", "value", 1)})


def copy_(self: Tensor, src) -> Tensor:
    """Copy ``src`` (broadcast to this shape, cast to this dtype) into this tensor in place."""
    self = A.tensor(self, "copy_", "input", 1)
    if not isinstance(src, Tensor):
        if not A.is_number(src) or type(src) is complex:
            raise TypeError(A.must("copy_", "other", 1, "Tensor", src))
        src = Tensor._make(np.asarray(A.number(src, "copy_", "other", 1), dtype=self._data.dtype))
    try:
        np.broadcast_shapes(src._data.shape, self._data.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self.ndim else 1}) must match the size of "
            f"tensor b ({src._data.shape[-1] if src.ndim else 1}) at non-singleton dimension "
            f"{self.ndim - 1}"
        ) from None
    return apply_inplace(OPS["copy"], self, (src,))


def clamp_(self: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Clamp in place (ClampBackward1)."""
    self, min, max = _bounds("clamp_", self, min, max)  # noqa: A001
    return apply_inplace(OPS["clamp"], self, (), {"min": min, "max": max})


def _attach() -> None:
    T = Tensor
    for fn in (
        max,
        min,
        argmax,
        argmin,
        maximum,
        minimum,
        clamp,
        clamp_min,
        clamp_max,
        var,
        std,
        zero_,
        fill_,
        copy_,
        clamp_,
    ):
        setattr(T, fn.__name__, fn)
    T.clip = clamp
    T.clip_ = clamp_


_attach()

__all__ = [
    "max",
    "min",
    "argmax",
    "argmin",
    "maximum",
    "minimum",
    "clamp",
    "clamp_min",
    "clamp_max",
    "cat",
    "stack",
    "var",
    "std",
    "zero_",
    "fill_",
    "copy_",
    "clamp_",
]

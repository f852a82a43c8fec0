"""dtype objects that print and compare like torch's (``torch.float32`` ...)."""

from __future__ import annotations

import numpy as np

from .errors import read_only
from .naming import torch_path

# What PyTorch's dtype offers: data attributes and methods (none can be set).
_FIELDS = ("abbr", "is_complex", "is_floating_point", "is_signed", "itemsize")
_METHODS = ("to_complex", "to_real")


@torch_path("torch")
class dtype:  # noqa: N801 - named as in torch
    """A tensor element type: wraps a NumPy dtype, prints as ``torch.NAME``.

    The seven instances below are the only ones: as in torch, the class cannot be called
    (``torch.dtype(...)`` is a TypeError), so no caller can make a dtype of its own (an object or
    string dtype would let arbitrary Python objects into an array). Immutable, as in torch: every
    program in the process shares them."""

    __slots__ = ("name", "np", "is_floating_point", "itemsize", "_type_desc")

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.dtype' instances")

    def __setattr__(self, name: str, value) -> None:
        raise read_only("torch.dtype", name, _FIELDS, _METHODS)

    def __delattr__(self, name: str) -> None:
        raise read_only("torch.dtype", name, _FIELDS, _METHODS)

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (from_numpy_dtype, (self.np,))


def _make(name: str, np_dtype, is_floating_point: bool, type_desc: str) -> dtype:
    d = object.__new__(dtype)
    np_type = np.dtype(np_dtype)
    for field, value in (("name", name), ("np", np_type), ("is_floating_point", is_floating_point),
                         ("itemsize", np_type.itemsize), ("_type_desc", type_desc)):
        object.__setattr__(d, field, value)
    return d


float16 = _make("float16", np.float16, True, "torch.HalfTensor")
float32 = _make("float32", np.float32, True, "torch.FloatTensor")
float64 = _make("float64", np.float64, True, "torch.DoubleTensor")
int32 = _make("int32", np.int32, False, "torch.IntTensor")
int64 = _make("int64", np.int64, False, "torch.LongTensor")
uint8 = _make("uint8", np.uint8, False, "torch.ByteTensor")
bool_ = _make("bool", np.bool_, False, "torch.BoolTensor")

half, float_, double, int_, long = float16, float32, float64, int32, int64

_BY_NP = {d.np: d for d in (float16, float32, float64, int32, int64, uint8, bool_)}
_BY_NP[np.dtype(np.int8)] = int32
_BY_NP[np.dtype(np.int16)] = int32
_BY_NP[np.dtype(np.uint16)] = int32
_BY_NP[np.dtype(np.uint32)] = int64
_BY_NP[np.dtype(np.uint64)] = int64
SUPPORTED_NP = frozenset(_BY_NP)  # the NumPy dtypes a tensor's array may have
SUPPORTED_TEXT = ("float64, float32, float16, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                  "and bool")


def from_numpy_dtype(np_dtype) -> dtype:
    """The engine dtype of a NumPy dtype (unsupported widths map to the nearest torch one)."""
    d = _BY_NP.get(np_dtype)  # an array's own dtype object: one lookup, no np.dtype() call
    return d if d is not None else _BY_NP[np.dtype(np_dtype)]


def scalar_name(d: dtype) -> str:
    """torch's ScalarType name of a dtype, as its error messages say it: Float, Double, Long, ..."""
    return d._type_desc[len("torch."):-len("Tensor")]


def category(d: dtype) -> int:
    """0 bool, 1 integer, 2 floating: the order of torch's type promotion categories."""
    if d is bool_:
        return 0
    return 2 if d.is_floating_point else 1


_default_float = float32


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d: dtype) -> None:
    global _default_float
    if type(d) is not dtype:
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d

"""dtype objects that print and compare like torch's (``torch.float32`` ...)."""

from __future__ import annotations

import numpy as np


class dtype:  # noqa: N801 - named as in torch
    """A tensor element type: wraps a NumPy dtype, prints as ``torch.NAME``."""

    __slots__ = ("name", "np", "is_floating_point", "itemsize", "_type_desc")

    def __init__(self, name: str, np_dtype, is_floating_point: bool, type_desc: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = is_floating_point
        self.itemsize = self.np.itemsize
        self._type_desc = type_desc

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (from_numpy_dtype, (self.np,))


float16 = dtype("float16", np.float16, True, "torch.HalfTensor")
float32 = dtype("float32", np.float32, True, "torch.FloatTensor")
float64 = dtype("float64", np.float64, True, "torch.DoubleTensor")
int32 = dtype("int32", np.int32, False, "torch.IntTensor")
int64 = dtype("int64", np.int64, False, "torch.LongTensor")
uint8 = dtype("uint8", np.uint8, False, "torch.ByteTensor")
bool_ = dtype("bool", np.bool_, False, "torch.BoolTensor")

half, float_, double, int_, long = float16, float32, float64, int32, int64

_BY_NP = {d.np: d for d in (float16, float32, float64, int32, int64, uint8, bool_)}
_BY_NP[np.dtype(np.int8)] = int32
_BY_NP[np.dtype(np.int16)] = int32
_BY_NP[np.dtype(np.uint16)] = int32
_BY_NP[np.dtype(np.uint32)] = int64
_BY_NP[np.dtype(np.uint64)] = int64


def from_numpy_dtype(np_dtype) -> dtype:
    """The engine dtype of a NumPy dtype (unsupported widths map to the nearest torch one)."""
    return _BY_NP[np.dtype(np_dtype)]


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
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d

"""The gate for the arguments of the libraries a program may import (engine/runner/libraries.py,
library_math.py): numbers, tensors, numeric arrays and nested lists of numbers only, read through
the engine's argument gate, so no object of the program ever reaches NumPy or runs its own methods;
sizes are checked against the run's limits before anything is allocated, integer results against
its integer limit before they are computed."""

from __future__ import annotations

import numpy as _np

from .. import arguments as A
from .. import limits
from ..errors import LimitError
from ..tensor import Tensor
from .safe_builtins import BuiltinType


def refuse(fn: str):
    """The error for an argument of ``fn`` the gate does not take."""

    def error(value):
        return TypeError(f"{fn}(): unsupported argument of type {A.type_name(value)} (numbers, tensors, "
                         "numeric arrays and lists of numbers only)")

    return error


def array_arg(value, fn: str) -> _np.ndarray:
    """An array argument: a copy of the data of a number, tensor, numeric array or nested list."""
    arr = A.to_array(value, refuse(fn))
    return _np.array(arr, copy=True) if isinstance(value, Tensor) else arr


def number_arg(value, fn: str):
    """A number argument (a one-element tensor or array gives its number)."""
    if A.is_number(value):
        return value
    if isinstance(value, Tensor) or A.kind(value) is A.ARRAY:
        return value  # the library's own conversion (``float(t)``) runs engine code or NumPy's
    raise TypeError(f"must be real number, not {A.type_name(value)}")


def check_int_bits(bits: int) -> None:
    b = limits.ACTIVE
    cap = b.max_int_bits if b is not None else None
    if cap is not None and bits > cap:
        raise LimitError(f"an integer of about {bits:,} bits is over the limit of {cap:,} bits "
                         "(limit: max_int_bits)")


def axis_arg(axis, fn: str):
    if axis is None:
        return None
    if type(axis) in (tuple, list):
        return A.ints(axis, fn, "axis")
    return A.integer(axis, fn, "axis")


DTYPES = {"float64": _np.float64, "float32": _np.float32, "float16": _np.float16, "int64": _np.int64,
           "int32": _np.int32, "int16": _np.int16, "int8": _np.int8, "uint8": _np.uint8, "bool": _np.bool_,
           "float": _np.float64, "int": _np.int64, "double": _np.float64}


def dtype_arg(dtype, fn: str):
    """A ``dtype=`` argument: None, one of the library's numeric dtypes, or its name."""
    if dtype is None:
        return None
    if type(dtype) is str and dtype in DTYPES:
        return DTYPES[dtype]
    if isinstance(dtype, BuiltinType):
        dtype = dtype.pytype
    if dtype in (float, int, bool):
        return {float: _np.float64, int: _np.int64, bool: _np.bool_}[dtype]
    if isinstance(dtype, type) and dtype in DTYPES.values():
        return dtype
    if type(dtype) is _np.dtype and dtype.kind in "biuf":
        return dtype
    raise TypeError(f"{fn}(): dtype {dtype!r} is not one of the numeric dtypes gradviz's numpy offers")


def shape_arg(shape, fn: str) -> tuple:
    dims = A.ints(shape, fn, "shape")
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def check_alloc(shape, dtype=_np.float64) -> None:
    limits.check_alloc(tuple(shape), _np.dtype(dtype).itemsize)

"""Copies and dtype conversions: their table entries (ToCopyBackward0, CloneBackward0), ``to``,
``clone`` and the Tensor's ``float()``, ``double()``, ... and ``type()``."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import dtypes
from ..device import check, is_device
from ..dispatch import apply
from ..tensor import Tensor
from .explain import local
from .table import OPS, public, register

register("to_copy", "ToCopyBackward0", lambda a, dtype: a.astype(dtype),
         [lambda g, s: g],
         ["∂(x.to(dtype))/∂x = 1"], description="dtype conversion",
         jvps=[lambda t, s: t], jvp_formulas=["ẋ (in the new dtype)"],
         explain=local("{0}.to({dtype})", "转换数据类型", 1))
register("clone", "CloneBackward0", lambda a, contiguous=False: np.array(a, order="C" if contiguous else "K"),
         [lambda g, s: g],
         ["∂clone(x)/∂x = 1"], description="copy", jvps=[lambda t, s: t], jvp_formulas=["ẋ"],
         explain=local("{0}.clone()", "复制", 1))


@public("torch", "Tensor")
def clone(input: Tensor) -> Tensor:
    """A copy that keeps the graph (CloneBackward0)."""
    return apply(OPS["clone"], (A.tensor(input, "clone", "input", 1),))


@public("Tensor")
def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Convert to a dtype (a no-op returning ``input`` when it already has it). A device is read
    and must be the CPU (``.to("cuda")`` fails as in a PyTorch without GPUs); another tensor gives
    its dtype. Accepts PyTorch's forms: ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``,
    ``to(device=..., dtype=...)``."""

    input = A.tensor(input, "to", "input", 1)
    dtype = None
    for a in args:
        if type(a) is dtypes.dtype:
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        elif is_device(a):
            check(a)
        elif type(a) is not bool:  # non_blocking / copy given by position
            raise TypeError(A.must("to", "dtype", 1, "torch.dtype", a))
    for key, value in kwargs.items():
        if key == "dtype":
            dtype = A.dtype(value, "to")
        elif key == "device":
            check(value)
        elif key not in ("non_blocking", "copy", "memory_format"):
            raise TypeError(f"to() got an unexpected keyword argument '{key}'")
    if dtype is None or input._data.dtype == dtype.np:
        return input
    return apply(OPS["to_copy"], (input,), {"dtype": dtype.np})


def _to(name: str, dtype: dtypes.dtype) -> None:
    """Publish ``Tensor.<name>()``: ``to(dtype)``."""

    def method(self: Tensor) -> Tensor:
        return to(self, dtype)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``self.to({dtype!r})``."
    public("Tensor")(method)


for _name, _dtype in (("float", dtypes.float32), ("double", dtypes.float64), ("long", dtypes.int64),
                      ("int", dtypes.int32), ("bool", dtypes.bool_)):
    _to(_name, _dtype)


@public("Tensor", name="type")
def _type(self: Tensor, dtype=None):
    """The type name (``torch.FloatTensor``), or a conversion to ``dtype``."""
    return self.dtype._type_desc if dtype is None else to(self, dtype)

"""Copies and dtype conversions: their table entries (ToCopyBackward0, CloneBackward0), ``to``,
``clone`` and the Tensor's ``float()``, ``double()``, ... and ``type()``."""

from __future__ import annotations

from .. import arguments as A
from .. import dtypes
from ..dispatch import apply
from ..tensor import Tensor
from .explain import local
from .table import OPS, public, register

register("to_copy", "ToCopyBackward0", lambda a, dtype: a.astype(dtype),
         [lambda g, s: g],
         ["∂(x.to(dtype))/∂x = 1"], description="dtype conversion",
         explain=local("{0}.to({dtype})", "转换数据类型", 1))
register("clone", "CloneBackward0", lambda a: a.copy(),
         [lambda g, s: g],
         ["∂clone(x)/∂x = 1"], description="copy", explain=local("{0}.clone()", "复制", 1))


@public("torch", "Tensor")
def clone(input: Tensor) -> Tensor:
    """A copy that keeps the graph (CloneBackward0)."""
    return apply(OPS["clone"], (A.tensor(input, "clone", "input", 1),))


@public("Tensor")
def to(input: Tensor, dtype=None, *args, **kwargs) -> Tensor:
    """Convert to ``dtype`` (a no-op returning ``input`` when it already has it); a device name
    (``.to("cpu")``) is ignored, another tensor gives its dtype."""
    input = A.tensor(input, "to", "input", 1)
    if type(dtype) is str:  # .to("cpu")
        dtype = kwargs.get("dtype")
    elif isinstance(dtype, Tensor):
        dtype = dtype.dtype
    dtype = A.dtype(dtype, "to")
    if dtype is None:
        return input
    if input._data.dtype == dtype.np:
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

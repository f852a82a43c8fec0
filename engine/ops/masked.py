"""masked_fill: a number written where a boolean mask holds (MaskedFillBackward0), out of place
and in place. The mask is data, not a graph input (torch's node has one next_function), so it
travels as an aux input like ``where``'s condition; the filled elements get no gradient.
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply, apply_inplace
from ..dtypes import scalar_name
from ..errors import not_supported
from ..tensor import Tensor
from . import explain as E
from .explain import X1, local
from .table import OPS, public, register


def _fill(a, mask, value):
    return np.where(mask, np.asarray(value).astype(a.dtype), a)


def _masked_vjp(g, s):
    """The gradient where the mask does not hold, 0 where it does: ``g.masked_fill(mask, 0)``."""
    mask = s.xp.data(s.b)
    if isinstance(g, Tensor):  # create_graph: torch's rule is itself a masked_fill
        return masked_fill(g, Tensor._make(np.asarray(mask)), 0.0)
    return np.where(mask, np.zeros((), g.dtype), g)


register("masked_fill", "MaskedFillBackward0", _fill,
         [_masked_vjp], ["∂/∂x = 0 where mask, else 1"], saves=("b",), aux=1,
         description="masked_fill(mask, value)",
         jvps=[_masked_vjp], jvp_formulas=["ẋ where not mask, else 0"],
         explain=local("{0}.masked_fill({1}, {value})", "在掩码为真处填入一个数，其余保持不变",
                       E.where(X1, 0, 1)))


_C_TYPES = (("int64", "long int"), ("int32", "int"), ("int16", "short int"), ("int8", "signed char"),
            ("uint8", "unsigned char"), ("float32", "float"), ("float64", "double"))


def _arguments(fn: str, input, mask, value) -> tuple[Tensor, Tensor, float]:
    input = A.tensor(input, fn, "input", 1)
    mask = A.tensor(mask, fn, "mask", 2)
    if mask._data.dtype != np.bool_:
        # torch's check is in masked_fill_ (out of place runs it too) and names the C++ type
        name = dict(_C_TYPES).get(mask._data.dtype.name, scalar_name(mask.dtype))
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {name}")
    if isinstance(value, Tensor):
        raise not_supported("masked_fill with a tensor value")
    value = A.real(value, fn, "value", 3, "Number")
    shape = input._data.shape
    try:
        full = np.broadcast_shapes(shape, mask._data.shape)
    except ValueError:
        full = None
    if full != shape:
        raise RuntimeError(f"The expanded size of the mask ({list(mask._data.shape)}) must match the size "
                           f"of the input ({list(shape)})")
    return input, mask, value


@public("torch", "Tensor")
def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """A copy of ``input`` with ``value`` where the boolean ``mask`` (broadcast to it) holds."""
    input, mask, value = _arguments("masked_fill", input, mask, value)
    return apply(OPS["masked_fill"], (input, mask), {"value": value})


@public("Tensor")
def masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    """``value`` written in place where the boolean ``mask`` (broadcast to self) holds."""
    self, mask, value = _arguments("masked_fill_", self, mask, value)
    return apply_inplace(OPS["masked_fill"], self, (mask,), {"value": value})

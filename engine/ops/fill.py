"""The ops that only exist in place and overwrite their target: zero_, fill_, copy_ (table
entries and Tensor methods).

They run through ``dispatch.apply_inplace``, so the target's old history is their first input,
as in PyTorch; the old values get no gradient (they were overwritten).
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply_inplace
from ..tensor import Tensor
from .explain import local
from .table import OPS, public, register


def _nothing(g, s):
    return g * 0.0


def _copy(a, b):
    return np.broadcast_to(b, a.shape).astype(a.dtype)


register("zero", "ZeroBackward0", np.zeros_like,
         [_nothing], ["∂(x.zero_())/∂x = 0"], description="fill with zeros in place",
         jvps=[_nothing], jvp_formulas=["0"],
         explain=local("{0}.zero_()", "原地填充为 0", 0))
register("fill", "FillBackward2", lambda a, value: np.full_like(a, value),
         [_nothing], ["∂(x.fill_(v))/∂x = 0"], description="fill with a number in place",
         jvps=[_nothing], jvp_formulas=["0"],
         explain=local("{0}.fill_({value})", "原地填充为一个数", 0))
register("fill_tensor", "FillBackward3", lambda a, b: np.full_like(a, b),
         [_nothing, lambda g, s: g],
         ["∂(x.fill_(v))/∂x = 0", "∂(x.fill_(v))/∂v = Σ g"], description="fill with a 0-dim tensor in place",
         jvps=[_nothing, lambda t, s: t], jvp_formulas=["0", "v̇ everywhere"],
         explain=local("{0}.fill_({1})", "原地填充为一个 0 维张量的值", 0, 1))
register("copy", "torch::autograd::CopyBackwards", _copy,
         [_nothing, lambda g, s: g],
         ["∂(x.copy_(src))/∂x = 0", "∂(x.copy_(src))/∂src = 1"], description="copy src into x in place",
         jvps=[_nothing, lambda t, s: t], jvp_formulas=["0", "ṡrc"],
         explain=local("{0}.copy_({1})", "把 src 原地复制到 x", 0, 1))


@public("Tensor")
def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (ZeroBackward0)."""
    return apply_inplace(OPS["zero"], A.tensor(self, "zero_", "input", 1), ())


@public("Tensor")
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


@public("Tensor")
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

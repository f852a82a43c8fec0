"""``torch.autograd.Variable``: the legacy wrapper, which is a tensor since PyTorch 0.4.
``Variable(t, requires_grad=True)`` gives a leaf sharing ``t``'s data, and every tensor is an
instance of ``Variable``."""

from __future__ import annotations

import warnings

from .. import arguments as A
from ..factory import tensor
from ..naming import torch_path
from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


@torch_path("torch.autograd.variable")
class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)``: a tensor (a new leaf sharing ``data``'s storage)."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if A.flag(volatile, "Variable", "volatile", 3, strict=False):
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:

            return tensor([])
        data = A.tensor(data, "Variable", "data", 1)
        requires_grad = A.flag(requires_grad, "Variable", "requires_grad", 2)
        leaf = Tensor._make(data._data, False, data._vc)
        return leaf.requires_grad_(requires_grad) if requires_grad else leaf

"""``nn.Parameter``: a leaf Tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from .. import errors
from ..arguments import flag
from ..factory import empty
from ..naming import torch_path
from ..tensor import Tensor


@torch_path("torch.nn.parameter")
class Parameter(Tensor):
    """A Tensor marked as a module parameter: a leaf that requires grad by default.

    It shares storage with the tensor it wraps, as ``torch.nn.Parameter`` does.
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, but got {type(data).__name__}")
        if type(requires_grad) is not bool:

            requires_grad = flag(requires_grad, "Parameter", "requires_grad", 2, strict=False)
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(errors.ONLY_FLOAT_GRAD)
        p = cls._make(data._data, bool(requires_grad), data._vc)
        p._is_param = True
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        pass  # everything happened in __new__ (Tensor.__init__ refuses direct construction)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

"""``torch.autograd.forward_ad``: forward-mode AD with dual tensors.

Inside ``with dual_level():``, ``make_dual(primal, tangent)`` gives a tensor that carries a tangent;
every op run on it pushes the tangent forward with the op's forward-mode rule (the ``jvps`` of its
table entry, applied in ``engine.tangents``), and ``unpack_dual(t)`` reads the primal and the
tangent back. Leaving the level forgets every tangent, as in PyTorch.
"""

from __future__ import annotations

from collections import namedtuple

from .. import arguments as A
from .. import tangents as _tangents
from ..ops.shape import view
from ..tensor import Tensor

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"


def enter_dual_level() -> int:
    """Open a dual level (only one at a time, as in PyTorch); returns its index."""
    if _tangents.ACTIVE is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _tangents.ACTIVE = _tangents.Level(0)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the dual level: every tangent made inside it is forgotten."""
    _tangents.ACTIVE = None


class dual_level:  # noqa: N801 - torch's name
    """``with dual_level():`` forward mode is on inside the block."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> bool:
        exit_dual_level()
        return False


def _need_level(what: str) -> _tangents.Level:
    level = _tangents.ACTIVE
    if level is None:
        raise RuntimeError(f"Trying to {what} for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    return level


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` that carries ``tangent`` (same shape) in the open dual level."""
    tensor = A.tensor(tensor, "make_dual", "tensor", 1)
    tangent = A.tensor(tangent, "make_dual", "tangent", 2)
    lvl = _need_level("create a dual Tensor")
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not tangent.dtype.is_floating_point:
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            f"this is not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient "
            f"is of size {list(tangent.shape)}.")

    dual = view(tensor, tuple(tensor._data.shape))  # a view, as torch's make_dual gives
    lvl.set(dual, tangent._data.astype(tensor._data.dtype, copy=True))
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor``: the primal as a tensor without tangent sharing its data
    and history, and the tangent (None when it has none, or outside a dual level)."""
    tensor = A.tensor(tensor, "unpack_dual", "tensor", 1)
    tangent = _tangents.tangent_of(tensor)
    primal = Tensor._make(tensor._data, tensor._requires_grad, tensor._vc)
    primal._grad_fn = tensor._grad_fn
    primal._base = tensor._base
    if tensor._base is not None:
        primal._gv = getattr(tensor, "_gv", tensor._vc[0])
    return UnpackedDualTensor(primal, None if tangent is None else Tensor._make(tangent))

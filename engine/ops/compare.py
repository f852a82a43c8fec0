"""Comparisons and logic: ``eq``, ``lt``, ..., ``logical_and``, ``&``, ``|``, ``~``. Not
differentiable, so no table entries: each returns a plain (bool) tensor."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .table import public


def _raw(x):
    return x._data if isinstance(x, Tensor) else x


def _comparison(name: str, ufunc) -> None:
    """Publish ``torch.<name>``, ``Tensor.<name>`` and ``Tensor.__<name>__``."""

    def compare(input, other) -> Tensor:
        return Tensor._make(np.asarray(ufunc(_raw(input), _raw(other))))

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"Elementwise ``{ufunc.__name__}`` as a bool tensor (not differentiable)."
    public("torch", "Tensor")(compare)
    public("Tensor", name=f"__{name}__")(compare)


for _name, _ufunc in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                      ("gt", np.greater), ("ge", np.greater_equal)):
    _comparison(_name, _ufunc)


@public("torch")
def logical_and(input, other) -> Tensor:
    return Tensor._make(np.logical_and(_raw(input), _raw(other)))


@public("torch")
def logical_or(input, other) -> Tensor:
    return Tensor._make(np.logical_or(_raw(input), _raw(other)))


@public("torch")
def logical_not(input) -> Tensor:
    return Tensor._make(np.logical_not(_raw(input)))


@public("Tensor", name="__and__")
def _and(self: Tensor, other) -> Tensor:
    """``&``: logical for bool tensors, bitwise for integers."""
    if self._data.dtype == np.bool_:
        return logical_and(self, other)
    return Tensor._make(np.bitwise_and(self._data, _raw(other)))


@public("Tensor", name="__or__")
def _or(self: Tensor, other) -> Tensor:
    """``|``: logical for bool tensors, bitwise for integers."""
    if self._data.dtype == np.bool_:
        return logical_or(self, other)
    return Tensor._make(np.bitwise_or(self._data, _raw(other)))


@public("Tensor", name="__invert__")
def _invert(self: Tensor) -> Tensor:
    """``~``: logical for bool tensors, bitwise for integers."""
    if self._data.dtype == np.bool_:
        return logical_not(self)
    return Tensor._make(np.invert(self._data))

"""The shapes of public function most ops share, built from a table entry: one tensor in
(``unary``), two operands with numbers wrapped and broadcasting checked (``binary``,
``operator``), and what every public function does to its operands first."""

from __future__ import annotations

import numbers

from .. import dtypes
from ..dispatch import apply
from ..tensor import Tensor, as_tensor_like
from .convert import to
from .table import OPS, OpDef, public


def to_float(input: Tensor) -> Tensor:
    """``input``, cast to the default dtype unless it is floating already (torch's rule for
    functions such as exp on integers)."""
    return input if input._data.dtype.kind == "f" else to(input, dtypes.get_default_dtype())


def is_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def operand(x, like: Tensor) -> Tensor:
    """``x`` as a tensor operand next to ``like`` (a Python number becomes a wrapped number)."""
    return x if isinstance(x, Tensor) else as_tensor_like(x, like)


def check_broadcast(a: Tensor, b: Tensor) -> None:
    """PyTorch's error when two shapes do not broadcast."""
    sa, sb = a._data.shape, b._data.shape
    if sa == sb or not sa or not sb:
        return
    for i in range(1, min(len(sa), len(sb)) + 1):
        x, y = sa[-i], sb[-i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                f"dimension {max(len(sa), len(sb)) - i}")


def binary(name: str, a, b) -> Tensor:
    """Table op ``name`` on two operands (either may be a number), broadcast."""
    if not isinstance(a, Tensor):
        a = as_tensor_like(a, b)
    if not isinstance(b, Tensor):
        b = as_tensor_like(b, a)
    sa, sb = a._data.shape, b._data.shape
    if sa != sb and sa and sb:
        check_broadcast(a, b)
    return apply(OPS[name], (a, b))


def operator(name: str):
    """``Tensor.__mul__`` and friends: ``binary`` for one op, in a single Python frame (every
    ``x * y`` of every program runs it)."""
    op = OPS[name]

    def method(self: Tensor, other) -> Tensor:
        if not isinstance(other, Tensor):
            other = as_tensor_like(other, self)
        sa, sb = self._data.shape, other._data.shape
        if sa != sb and sa and sb:
            check_broadcast(self, other)
        return apply(op, (self, other))

    method.__name__ = f"__{name}__"
    return method


def unary(op: OpDef, floats: bool = False):
    """Publish ``torch.<op>`` and ``Tensor.<op>``: ``op`` applied to one tensor (with ``floats``,
    an integer tensor is cast to the default dtype first). Returns the function."""
    if floats:
        def function(input: Tensor) -> Tensor:
            return apply(op, (to_float(input),))
    else:
        def function(input: Tensor) -> Tensor:
            return apply(op, (input,))

    function.__name__ = function.__qualname__ = op.name
    function.__doc__ = f"{op.description} (grad_fn {op.grad_fn})."
    return public("torch", "Tensor")(function)

"""The shapes of public function most ops share, built from a table entry: one tensor in
(``unary``), two operands with numbers wrapped and broadcasting checked (``binary``,
``operator``), and what every public function does to its operands first. Each passes its
operands through the argument gate (``engine.arguments``) before anything reads them, so every
function derived here is checked in this one place."""

from __future__ import annotations

from .. import arguments as A
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
    """A Python or NumPy number (by exact type: never a tensor, never a look-alike)."""
    return A.is_number(x)


def operand(x, like: Tensor, fn: str = "add", arg: str = "other", pos: int | None = 2) -> Tensor:
    """``x`` as a tensor operand next to ``like``: a tensor, or a number wrapped as torch wraps it
    (a numeric array becomes a tensor); anything else is refused as ``fn``'s argument ``arg``."""
    if isinstance(x, Tensor):
        return x
    t = as_tensor_like(x, like)
    if t is None:
        raise TypeError(A.must(fn, arg, pos, "Tensor", x))
    return t


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
    """Table op ``name`` on two operands (either may be a number, not both), broadcast."""
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            raise TypeError(A.must(name, "input", 1, "Tensor", a))
        a = operand(a, b, name, "input", 1)
    if not isinstance(b, Tensor):
        b = operand(b, a, name, "other", 2)
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
            if other is None:
                return NotImplemented  # Python then says "unsupported operand type(s)", as with torch
        sa, sb = self._data.shape, other._data.shape
        if sa != sb and sa and sb:
            check_broadcast(self, other)
        return apply(op, (self, other))

    method.__name__ = f"__{name}__"
    return method


def reflected(f):
    """The operator form of ``f`` (``__eq__``, ``__rpow__``, ``__iadd__``, ...): NotImplemented for
    operands that are not tensors, numbers or numeric arrays, so Python falls back as it does with
    torch (``t == "a"`` is False, ``t < "a"`` a TypeError)."""
    def method(self, other):
        if not (isinstance(other, Tensor) or A.is_number(other) or A.kind(other) is A.ARRAY):
            return NotImplemented
        return f(self, other)

    return method


def unary(op: OpDef, floats: bool = False):
    """Publish ``torch.<op>`` and ``Tensor.<op>``: ``op`` applied to one tensor (with ``floats``,
    an integer tensor is cast to the default dtype first). Returns the function."""
    name = op.name
    if floats:
        def function(input: Tensor) -> Tensor:
            if not isinstance(input, Tensor):
                raise TypeError(A.must(name, "input", 1, "Tensor", input))
            return apply(op, (to_float(input),))
    else:
        def function(input: Tensor) -> Tensor:
            if not isinstance(input, Tensor):
                raise TypeError(A.must(name, "input", 1, "Tensor", input))
            return apply(op, (input,))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"{op.description} (grad_fn {op.grad_fn})."
    return public("torch", "Tensor")(function)

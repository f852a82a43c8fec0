"""The one gate between the values callers pass and the engine's NumPy code.

Every public entry point reads the arguments it is given through these checks before it compares
them, iterates them, converts them or hands them to NumPy. They admit values of known types only,
decided by the value's exact type (never by asking the value itself):

- numbers: Python ``bool``/``int``/``float``/``complex`` and NumPy's numeric scalars;
- tensors;
- NumPy arrays (exactly ``np.ndarray``) of a bool or numeric dtype;
- lists, tuples and ``torch.Size`` nesting those (tensor data), rebuilt leaf by leaf before NumPy
  sees them, so NumPy only ever converts lists of plain numbers;
- the engine's dtypes, strings, flags and integers where a signature asks for them.

Anything else is refused with PyTorch's error before any of its methods can run. Why so strict:
NumPy trusts the objects it converts (``__array_interface__`` makes it read any memory address the
object names, ``__array__``, ``__len__`` or ``__float__`` run the object's own code), so an object
of a type the engine does not know must never reach it, nor a ``bool()``, ``int()``, ``len()`` or
``iter()`` of it.
"""

from __future__ import annotations

import types
from collections import OrderedDict

import numpy as np

from . import dtypes, limits
from .errors import LimitError
from .tensor import Size, Tensor

MAX_DIMS = 64  # NumPy's limit on dimensions
NUMERIC_KINDS = "biufc"  # bool, signed, unsigned, floating, complex: the dtypes an array may have
_PY_NUMBERS = frozenset((bool, int, float, complex))
_NP_NUMBERS = frozenset(t for t in set(np.sctypeDict.values())
                        if issubclass(t, np.generic) and np.dtype(t).kind in NUMERIC_KINDS)
_SEQUENCES = frozenset((list, tuple, Size))
_NAMED = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)
# Iterables the engine may walk (their iteration is Python's own or the engine's code).
_ITERABLES = frozenset((list, tuple, Size, range, dict, OrderedDict, types.GeneratorType,
                        type({}.keys()), type({}.values()), type({}.items()),
                        type(OrderedDict().keys()), type(OrderedDict().values()),
                        type(OrderedDict().items()), type(iter([])), type(iter(())), map, filter, zip,
                        enumerate, reversed))

# The kinds of admitted data.
NUMBER = "number"
TENSOR = "tensor"
ARRAY = "array"
NESTED = "nested"
ALL_DATA = frozenset((NUMBER, TENSOR, ARRAY, NESTED))


def type_name(value) -> str:
    """The short type name PyTorch puts in argument errors (``int``, ``Tensor``, ``H``)."""
    if isinstance(value, Tensor):
        return "Parameter" if value._is_param else "Tensor"
    return type(value).__name__


def qualified_name(value) -> str:
    """``torch.typename``: ``torch.FloatTensor`` for a tensor, else the type's qualified name
    (``__main__.Net``; ``dict`` for builtins). Read from the type, never from the value."""
    if isinstance(value, Tensor):
        return value.dtype._type_desc
    named = value if isinstance(value, _NAMED) else type(value)  # functions and classes by their own name
    module, qualname = named.__module__, named.__qualname__
    if not isinstance(module, str) or module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def must(fn: str, arg: str, pos: int | None, expected: str, value) -> str:
    """PyTorch's ``fn(): argument 'arg' (position n) must be X, not Y``."""
    where = f" (position {pos})" if pos is not None else ""
    return f"{fn}(): argument '{arg}'{where} must be {expected}, not {type_name(value)}"


def is_number(value) -> bool:
    """A Python or NumPy number (by exact type)."""
    t = type(value)
    return t in _PY_NUMBERS or t in _NP_NUMBERS


def kind(value) -> str | None:
    """Which admitted kind of data ``value`` is, or None for anything else."""
    t = type(value)
    if t in _PY_NUMBERS or t in _NP_NUMBERS:
        return NUMBER
    if t is np.ndarray:
        return ARRAY if value.dtype.kind in NUMERIC_KINDS else None
    if isinstance(value, Tensor):
        return TENSOR
    if t in _SEQUENCES:
        return NESTED
    return None


def to_array(value, refuse, accept=ALL_DATA) -> np.ndarray:
    """The gate for tensor data: ``value`` as an ndarray if its kind is in ``accept``, else
    ``raise refuse(value)``. A tensor gives its own array and an ndarray itself (callers copy when
    they keep it); nested lists are rebuilt from admitted leaves first (``rebuild``)."""
    k = kind(value)
    if k is None or k not in accept:
        raise refuse(value)
    if k is TENSOR:
        return value._data
    if k is ARRAY:
        return value
    if k is NUMBER:
        return np.asarray(value)
    nested, _ = rebuild(value, refuse)
    return np.array(nested)


def rebuild(value, refuse) -> tuple[list, set]:
    """Nested lists/tuples as plain nested lists of numbers, and the dtype kinds of their leaves.

    A leaf may be a number, a one-element tensor (its number, as ``torch.tensor`` reads it) or an
    array of a numeric dtype (its list); any other leaf raises ``refuse(leaf)``. The walk is
    iterative and counts every item against the element limit (shared sub-lists can make a small
    object describe an enormous one)."""
    root: list = []
    kinds: set = set()
    stack = [(value, root, 1)]
    budget = limits.ACTIVE
    cap = budget.max_elements if budget is not None else None
    count = 0
    while stack:
        src, dst, depth = stack.pop()
        if depth > MAX_DIMS:
            raise LimitError(f"nested lists more than {MAX_DIMS} levels deep (a tensor has at most "
                             f"{MAX_DIMS} dimensions) (limit: max_nesting)")
        count += len(src)
        if cap is not None and count > cap:
            raise LimitError(f"nested lists of more than {cap:,} elements (limit: max_tensor_elements)")
        for item in src:
            t = type(item)
            if t in _PY_NUMBERS:
                kinds.add("b" if t is bool else "i" if t is int else "f" if t is float else "c")
                dst.append(item)
            elif t in _NP_NUMBERS:
                kinds.add(item.dtype.kind)
                dst.append(item)
            elif t in _SEQUENCES:
                sub: list = []
                dst.append(sub)
                stack.append((item, sub, depth + 1))
            elif isinstance(item, Tensor):
                if item._data.size != 1:
                    raise ValueError("only one element tensors can be converted to Python scalars")
                kinds.add(item._data.dtype.kind)
                dst.append(item._data.reshape(()).item())
            elif t is np.ndarray and item.dtype.kind in NUMERIC_KINDS:
                kinds.add(item.dtype.kind)
                dst.append(item.tolist())
            else:
                raise refuse(item)
    return root, kinds


# ---- scalars, flags, names -----------------------------------------------------------------------
def number(value, fn: str, arg: str, pos: int | None = None):
    """A Number argument (a one-element tensor gives its number) as a Python number."""
    t = type(value)
    if t in _PY_NUMBERS:
        return value
    if t in _NP_NUMBERS:
        return value.item()
    if isinstance(value, Tensor):
        if value._data.size != 1:
            raise RuntimeError(f"a Tensor with {value._data.size} elements cannot be converted to Scalar")
        return value._data.reshape(()).item()
    raise TypeError(must(fn, arg, pos, "Number", value))


def optional_number(value, fn: str, arg: str, pos: int | None = None):
    return None if value is None else number(value, fn, arg, pos)


def real(value, fn: str, arg: str, pos: int | None = None, expected: str = "float"):
    """A real-number argument, as a Python int or float: PyTorch's ``double`` ("float" in its
    errors) or, with ``expected="Number"``, a ``Scalar`` that may not be complex here."""
    t = type(value)
    if t is complex or not (t in _PY_NUMBERS or t in _NP_NUMBERS or isinstance(value, Tensor)):
        raise TypeError(must(fn, arg, pos, expected, value))
    v = number(value, fn, arg, pos)
    if type(v) is complex:
        raise TypeError(must(fn, arg, pos, expected, value))
    return v


def integer(value, fn: str, arg: str, pos: int | None = None) -> int:
    """An int argument: a Python/NumPy integer or a one-element integer tensor."""
    t = type(value)
    if t is int or t is bool:
        return int(value)
    if t in _NP_NUMBERS and value.dtype.kind in "biu":
        return int(value)
    if isinstance(value, Tensor) and value._data.size == 1 and value._data.dtype.kind in "biu":
        return int(value._data.reshape(()).item())
    raise TypeError(must(fn, arg, pos, "int", value))


def optional_integer(value, fn: str, arg: str, pos: int | None = None):
    return None if value is None else integer(value, fn, arg, pos)


def ints(value, fn: str, arg: str, pos: int | None = None) -> tuple[int, ...]:
    """A "tuple of ints" argument (an int alone counts as a tuple of one)."""
    if type(value) in _SEQUENCES:
        out = []
        for i, v in enumerate(value):
            try:
                out.append(integer(v, fn, arg, pos))
            except TypeError:
                raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {i + 1} with "
                                f"error \"type must be tuple of ints,but got {type_name(v)}\"") from None
        return tuple(out)
    try:
        return (integer(value, fn, arg, pos),)
    except TypeError:
        raise TypeError(must(fn, arg, pos, "tuple of ints", value)) from None


def shape_args(size: tuple, fn: str, arg: str = "size") -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])``: the sizes given as ``*size``."""
    if len(size) == 1 and type(size[0]) in _SEQUENCES:
        return ints(size[0], fn, arg, 1)
    out = []
    for i, v in enumerate(size):
        try:
            out.append(integer(v, fn, arg, 1))
        except TypeError:
            if len(size) == 1:
                raise TypeError(must(fn, arg, 1, "tuple of ints", v)) from None
            raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {i + 1} with "
                            f"error \"type must be tuple of ints,but got {type_name(v)}\"") from None
    return tuple(out)


def flag(value, fn: str, arg: str, pos: int | None = None, *, strict: bool = True) -> bool:
    """A bool argument. ``strict`` (PyTorch's C++ signatures) takes bools only; the Python-level
    APIs of torch (layers, optimizers) take any truth value, which here means any integer."""
    t = type(value)
    if t is bool or t is np.bool_:
        return bool(value)
    if not strict and (t is int or (t in _NP_NUMBERS and value.dtype.kind in "iu")):
        return bool(value)
    raise TypeError(must(fn, arg, pos, "bool", value))


def dtype(value, fn: str):
    """A ``dtype=`` argument: None or one of the engine's dtypes."""
    if value is None or type(value) is dtypes.dtype:
        return value
    raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {type_name(value)}")


def string(value, fn: str, arg: str, pos: int | None = None) -> str:
    if type(value) is str:
        return value
    raise TypeError(must(fn, arg, pos, "str", value))


def tensor(value, fn: str, arg: str, pos: int | None = None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    raise TypeError(must(fn, arg, pos, "Tensor", value))


def optional_tensor(value, fn: str, arg: str, pos: int | None = None):
    return None if value is None else tensor(value, fn, arg, pos)


def tensors(value, fn: str, arg: str = "tensors", pos: int | None = 1) -> tuple:
    """A "tuple of Tensors" argument (a list or tuple of tensors)."""
    if type(value) not in (list, tuple):
        raise TypeError(must(fn, arg, pos, "tuple of Tensors", value))
    for i, t in enumerate(value):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type_name(t)}")
    return tuple(value)


def items(value, refuse) -> list:
    """The items of an iterable of a known type (lists, tuples, dicts and their views, ranges,
    generators, Python's own iterators), or ``raise refuse(value)``."""
    if type(value) in _ITERABLES:
        return list(value)
    raise refuse(value)

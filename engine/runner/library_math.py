"""gradviz's read-only subset of Python's ``math`` module, as a program imports it (``math.pi``,
``math.exp``, ``math.factorial``): each function reads its arguments through the library gate
(engine/runner/library_gate.py) and checks integer results against the run's limit."""

from __future__ import annotations

import inspect
import math as _math
import types

from .. import arguments as A
from .library_gate import check_int_bits, number_arg, refuse

_MATH_FLOAT = ("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "copysign", "cos", "cosh",
               "degrees", "erf", "erfc", "exp", "expm1", "fabs", "floor", "fmod", "frexp", "gamma", "hypot",
               "isfinite", "isinf", "isnan", "lgamma", "log", "log10", "log1p", "log2", "modf", "pow",
               "radians", "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "isclose", "ldexp",
               "copysign", "dist", "exp2", "cbrt")


def _math_function(name: str):
    real = getattr(_math, name)

    def function(*args, **kwargs):
        args = [number_arg(a, name) if not isinstance(a, (list, tuple)) else a for a in args]
        kwargs = {k: number_arg(v, name) for k, v in kwargs.items()}
        if name == "ldexp" and len(args) == 2 and type(args[1]) is int and args[1] > 100_000:
            raise OverflowError("math range error")
        if name == "dist":
            args = [[number_arg(v, name) for v in A.items(a, refuse(name))] for a in args]
        return real(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = real.__doc__
    try:
        function.__signature__ = inspect.signature(real)  # the real one's parameters, for readers and tools
    except (TypeError, ValueError):
        pass
    return function


def _nonnegative_int(value, fn: str) -> int:
    value = A.integer(value, fn, "n")
    if value < 0:
        raise ValueError(f"{fn}() not defined for negative values")
    return value


def factorial(n):
    n = _nonnegative_int(n, "factorial")
    check_int_bits(int(n * _math.log2(n + 1)) if n > 1 else 1)
    return _math.factorial(n)


def comb(n, k):
    n, k = _nonnegative_int(n, "comb"), _nonnegative_int(k, "comb")
    check_int_bits(n)
    return _math.comb(n, k)


def perm(n, k=None):
    n = _nonnegative_int(n, "perm")
    check_int_bits(int(n * _math.log2(n + 1)) if n > 1 else 1)
    return _math.perm(n, k if k is None else _nonnegative_int(k, "perm"))


def _ints(values, fn: str) -> list:
    return [A.integer(v, fn, "integers") for v in values]


def gcd(*integers):
    return _math.gcd(*_ints(integers, "gcd"))


def lcm(*integers):
    values = _ints(integers, "lcm")
    check_int_bits(sum(abs(v).bit_length() for v in values))
    return _math.lcm(*values)


def isqrt(n):
    return _math.isqrt(_nonnegative_int(n, "isqrt"))


def prod(iterable, *, start=1):
    """The product of the items (numbers), with the integer limit checked at each step."""
    total = number_arg(start, "prod")
    for v in A.items(iterable, refuse("prod")):
        v = number_arg(v, "prod")
        if type(total) is int and type(v) is int:
            check_int_bits(total.bit_length() + v.bit_length())
        total = total * v
    return total


def fsum(iterable):
    return _math.fsum(number_arg(v, "fsum") for v in A.items(iterable, refuse("fsum")))


def math_module() -> types.ModuleType:
    """A new module object holding the subset."""
    mod = types.ModuleType("math", "gradviz's read-only subset of Python's math module")
    for name in _MATH_FLOAT:
        if hasattr(_math, name):
            setattr(mod, name, _math_function(name))
    for fn in (factorial, comb, perm, gcd, lcm, isqrt, prod, fsum):
        setattr(mod, fn.__name__, fn)
    for name in ("pi", "e", "tau", "inf", "nan"):
        setattr(mod, name, getattr(_math, name))
    return mod

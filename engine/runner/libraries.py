"""The standard libraries a program may import besides torch: read-only subsets of ``math`` and
``numpy`` (and of ``random``, in ``library_random``), as course code uses them (``math.pi``,
``math.exp``; ``np.array``, ``np.linspace``, ``np.sin``, ``np.allclose``, ...).

Each is a module object of its own holding only listed names, so a program never reaches the real
modules (no ``np.load``, ``np.ctypeslib``, ``np.lib``, no object arrays, no memory addresses). Every
function here reads its arguments through the engine's argument gate first: numbers, tensors,
numeric arrays and nested lists of numbers only, so no object of the program ever reaches NumPy
or runs its own methods; sizes are checked against the run's limits before anything is allocated
and integer results against its integer limit before they are computed.

Here: the ``numpy`` subset (with ``numpy.random`` and ``numpy.linalg``) and the index of both
(``LIBRARIES``, ``CALLABLES``, ``library_has``); the ``math`` subset is in library_math.py, the
gate for their arguments in library_gate.py.
"""

from __future__ import annotations

import inspect
import math as _math
import random as _py_random
import types

import numpy as _np

from .. import arguments as A
from .. import limits
from ..tensor import Tensor
from .library_gate import array_arg, axis_arg, check_alloc, dtype_arg, number_arg, refuse, shape_arg
from .library_math import math_module
from .library_random import RANDOM
from .safe_builtins import BuiltinType


# ---- numpy ------------------------------------------------------------------------------------------------
def _ufunc(name: str, arity: int = 1):
    """An elementwise NumPy function of arrays (broadcast, size-checked)."""
    real = getattr(_np, name)

    def function(*args, dtype=None):
        if len(args) != arity:
            raise TypeError(f"{name}() takes {arity} positional argument{'s' if arity > 1 else ''} but "
                            f"{len(args)} were given")
        arrays = [array_arg(a, name) for a in args]
        if arity > 1:
            limits.check_shape(_np.broadcast_shapes(*(a.shape for a in arrays)))
        out = real(*arrays)
        return out if dtype is None else _np.asarray(out).astype(dtype_arg(dtype, name))

    function.__name__ = function.__qualname__ = name
    names = ("x",) if arity == 1 else ("x1", "x2")
    params = [inspect.Parameter(p, inspect.Parameter.POSITIONAL_ONLY) for p in names]
    params.append(inspect.Parameter("dtype", inspect.Parameter.KEYWORD_ONLY, default=None))
    function.__signature__ = inspect.Signature(params)
    return function


def _reduction(name: str):
    real = getattr(_np, name)

    def function(a, axis=None, keepdims=False, **kwargs):
        extra = {}
        if "ddof" in kwargs:
            extra["ddof"] = A.integer(kwargs.pop("ddof"), name, "ddof")
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        keepdims = A.flag(keepdims, name, "keepdims")
        return real(array_arg(a, name), axis=axis_arg(axis, name), keepdims=keepdims, **extra)

    function.__name__ = function.__qualname__ = name
    return function


def cumsum(a, axis=None):
    return _np.cumsum(array_arg(a, "cumsum"), axis=axis_arg(axis, "cumsum"))


def array(object, dtype=None, copy=True, ndmin=0):  # noqa: A002 - NumPy's argument name
    """A new array of the data (numbers, nested lists, tensors or arrays)."""
    arr = array_arg(object, "array")
    dt = dtype_arg(dtype, "array")
    return _np.array(arr, dtype=dt, copy=True)


def asarray(a, dtype=None):
    return array(a, dtype)


def _filled(fn: str, fill, shape, dtype):
    dims = shape_arg(shape, fn)
    dt = dtype_arg(dtype, fn) or _np.float64
    check_alloc(dims, dt)
    return _np.full(dims, fill, dtype=dt)


def zeros(shape, dtype=None):
    return _filled("zeros", 0, shape, dtype)


def ones(shape, dtype=None):
    return _filled("ones", 1, shape, dtype)


def empty(shape, dtype=None):
    return _filled("empty", 0, shape, dtype)


def full(shape, fill_value, dtype=None):
    value = number_arg(fill_value, "full")
    dims = shape_arg(shape, "full")
    dt = dtype_arg(dtype, "full")
    check_alloc(dims, dt or _np.float64)
    return _np.full(dims, value, dtype=dt)


def _like(fn: str, fill, a, dtype):
    arr = array_arg(a, fn)
    dt = dtype_arg(dtype, fn) or arr.dtype
    check_alloc(arr.shape, dt)
    return _np.full(arr.shape, fill, dtype=dt)


def zeros_like(a, dtype=None):
    return _like("zeros_like", 0, a, dtype)


def ones_like(a, dtype=None):
    return _like("ones_like", 1, a, dtype)


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - NumPy's names
    n = A.integer(N, "eye", "N")
    m = n if M is None else A.integer(M, "eye", "M")
    dt = dtype_arg(dtype, "eye") or _np.float64
    check_alloc((n, m), dt)
    return _np.eye(n, m, A.integer(k, "eye", "k"), dtype=dt)


def arange(start, stop=None, step=1, dtype=None):
    start, step = number_arg(start, "arange"), number_arg(step, "arange")
    if stop is not None:
        stop = number_arg(stop, "arange")
    lo, hi = (0, start) if stop is None else (start, stop)
    if step == 0:
        raise ZeroDivisionError("division by zero")
    n = max(int(_math.ceil((hi - lo) / step)), 0)
    dt = dtype_arg(dtype, "arange")
    check_alloc((n,), dt or _np.float64)
    return _np.arange(lo, hi, step, dtype=dt)


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    num = A.integer(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = dtype_arg(dtype, "linspace")
    check_alloc((num,), dt or _np.float64)
    return _np.linspace(number_arg(start, "linspace"), number_arg(stop, "linspace"), num,
                        endpoint=A.flag(endpoint, "linspace", "endpoint"), dtype=dt)


def _product(fn: str, a, b):
    x, y = array_arg(a, fn), array_arg(b, fn)
    if x.ndim >= 2 and y.ndim >= 2:
        limits.check_shape(_np.broadcast_shapes(x.shape[:-2], y.shape[:-2]) + (x.shape[-2], y.shape[-1]))
    elif x.ndim == 0 or y.ndim == 0:
        limits.check_shape(_np.broadcast_shapes(x.shape, y.shape))
    return getattr(_np, fn)(x, y)


def dot(a, b):
    return _product("dot", a, b)


def matmul(a, b):
    return _product("matmul", a, b)


def outer(a, b):
    x, y = array_arg(a, "outer").ravel(), array_arg(b, "outer").ravel()
    limits.check_shape((x.size, y.size))
    return _np.outer(x, y)


def _joined(fn: str, arrays, axis=0):
    parts = [array_arg(a, fn) for a in A.items(arrays, refuse(fn))]
    limits.check_shape((sum(p.size for p in parts),))
    return getattr(_np, fn)(parts, axis=A.integer(axis, fn, "axis")) if fn in ("concatenate", "stack") \
        else getattr(_np, fn)(parts)


def concatenate(arrays, axis=0):
    return _joined("concatenate", arrays, axis)


def stack(arrays, axis=0):
    return _joined("stack", arrays, axis)


def vstack(tup):
    return _joined("vstack", tup)


def hstack(tup):
    return _joined("hstack", tup)


def reshape(a, newshape):
    return array_arg(a, "reshape").reshape(A.ints(newshape, "reshape", "newshape"))


def transpose(a, axes=None):
    return array_arg(a, "transpose").transpose(None if axes is None else A.ints(axes, "transpose", "axes"))


def where(condition, x, y):
    c, a, b = array_arg(condition, "where"), array_arg(x, "where"), array_arg(y, "where")
    limits.check_shape(_np.broadcast_shapes(c.shape, a.shape, b.shape))
    return _np.where(c, a, b)


def clip(a, a_min, a_max):
    return _np.clip(array_arg(a, "clip"), None if a_min is None else number_arg(a_min, "clip"),
                    None if a_max is None else number_arg(a_max, "clip"))


def round(a, decimals=0):  # noqa: A001 - NumPy's name
    return _np.round(array_arg(a, "round"), A.integer(decimals, "round", "decimals"))


def _close(fn: str, a, b, rtol, atol, equal_nan):
    x, y = array_arg(a, fn), array_arg(b, fn)
    limits.check_shape(_np.broadcast_shapes(x.shape, y.shape))
    return getattr(_np, fn)(x, y, rtol=A.real(rtol, fn, "rtol"), atol=A.real(atol, fn, "atol"),
                            equal_nan=A.flag(equal_nan, fn, "equal_nan"))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(_close("allclose", a, b, rtol, atol, equal_nan))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _close("isclose", a, b, rtol, atol, equal_nan)


def array_equal(a1, a2):
    return bool(_np.array_equal(array_arg(a1, "array_equal"), array_arg(a2, "array_equal")))


def sort(a, axis=-1):
    return _np.sort(array_arg(a, "sort"), axis=axis_arg(axis, "sort"))


def argsort(a, axis=-1):
    return _np.argsort(array_arg(a, "argsort"), axis=axis_arg(axis, "argsort"))


def _seed(seed=None):
    _RANDOM_STATE[0] = _np.random.default_rng(None if seed is None else A.integer(seed, "seed", "seed"))


def _random_shape(args, fn: str) -> tuple:
    dims = shape_arg(args[0] if len(args) == 1 and type(args[0]) in (tuple, list) else args, fn)
    check_alloc(dims)
    return dims


def _rand(*d):
    return _RANDOM_STATE[0].random(_random_shape(d, "rand"))


def _randn(*d):
    return _RANDOM_STATE[0].standard_normal(_random_shape(d, "randn"))


def _random_sized(fn: str, size):
    return () if size is None else _random_shape((size,), fn)


def _uniform(low=0.0, high=1.0, size=None):
    low, high = number_arg(low, "uniform"), number_arg(high, "uniform")
    return _RANDOM_STATE[0].uniform(low, high, _random_sized("uniform", size))


def _normal(loc=0.0, scale=1.0, size=None):
    loc, scale = number_arg(loc, "normal"), number_arg(scale, "normal")
    return _RANDOM_STATE[0].normal(loc, scale, _random_sized("normal", size))


def _randint(low, high=None, size=None):
    low = A.integer(low, "randint", "low")
    high = None if high is None else A.integer(high, "randint", "high")
    lo, hi = (0, low) if high is None else (low, high)
    return _RANDOM_STATE[0].integers(lo, hi, _random_sized("randint", size))


def _random_module() -> types.ModuleType:
    mod = types.ModuleType("numpy.random", "gradviz's numpy.random: seed, rand, randn, randint, uniform, "
                                           "normal")
    for name, fn in (("seed", _seed), ("rand", _rand), ("randn", _randn), ("randint", _randint),
                     ("uniform", _uniform), ("normal", _normal)):
        fn.__name__ = fn.__qualname__ = name
        setattr(mod, name, fn)
    return mod


_RANDOM_STATE = [_np.random.default_rng(0)]  # numpy.random's generator: seed 0 at the start of every run


def _norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    arr = array_arg(x, "norm")
    if ord is not None and type(ord) is not str:
        ord = number_arg(ord, "norm")  # noqa: A001
    elif ord is not None and ord not in ("fro",):
        raise ValueError(f"Invalid norm order '{ord}' for gradviz's numpy")
    keepdims = A.flag(keepdims, "norm", "keepdims")
    return _np.linalg.norm(arr, ord=ord, axis=axis_arg(axis, "norm"), keepdims=keepdims)


def _linalg_module() -> types.ModuleType:
    mod = types.ModuleType("numpy.linalg", "gradviz's numpy.linalg: norm")
    _norm.__name__ = _norm.__qualname__ = "norm"
    mod.norm = _norm
    return mod


_UNARY = ("exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "square", "sin", "cos", "tan", "arcsin",
          "arccos", "arctan", "sinh", "cosh", "tanh", "abs", "absolute", "sign", "floor", "ceil", "negative",
          "isnan", "isinf", "isfinite", "reciprocal", "rint", "trunc")
_BINARY = ("maximum", "minimum", "power", "add", "subtract", "multiply", "divide", "arctan2", "hypot",
           "greater", "less", "equal", "logical_and", "logical_or", "fmod", "mod")
_REDUCTIONS = ("sum", "mean", "std", "var", "max", "min", "amax", "amin", "argmax", "argmin", "prod",
               "all", "any", "median")


def _no_ndarray(*args, **kwargs):
    raise TypeError("numpy.ndarray(...) is not available in gradviz: make arrays with np.array, np.zeros, "
                    "...")


def _scalar_type(name: str) -> BuiltinType:
    """``np.float32`` and friends: the real type for ``isinstance`` and ``dtype=``; calling it makes
    a NumPy number of a number (through the gate)."""
    real = getattr(_np, name)

    def make(value=0):
        return real(number_arg(value, name) if not isinstance(value, Tensor) else float(value))

    return BuiltinType(f"numpy.{name}", real, make)


def _numpy_module() -> types.ModuleType:
    mod = types.ModuleType("numpy", "gradviz's read-only subset of NumPy (numeric arrays only)")
    for name in _UNARY:
        setattr(mod, name, _ufunc(name))
    for name in _BINARY:
        setattr(mod, name, _ufunc(name, 2))
    for name in _REDUCTIONS:
        setattr(mod, name, _reduction(name))
    for fn in (cumsum, array, asarray, zeros, ones, empty, full, zeros_like, ones_like, eye, arange, linspace,
               dot, matmul, outer, concatenate, stack, vstack, hstack, reshape, transpose, where, clip, round,
               allclose, isclose, array_equal, sort, argsort):
        setattr(mod, fn.__name__, fn)
    for name in ("pi", "e", "inf", "nan", "newaxis"):
        setattr(mod, name, getattr(_np, name))
    mod.ndarray = BuiltinType("numpy.ndarray", _np.ndarray, _no_ndarray)  # for isinstance; made by np.array
    for name in ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool_"):
        setattr(mod, name, _scalar_type(name))
    mod.random = _random_module()
    mod.linalg = _linalg_module()
    return mod


MATH = math_module()
NUMPY = _numpy_module()
LIBRARIES = {"math": MATH, "numpy": NUMPY, "numpy.random": NUMPY.random, "numpy.linalg": NUMPY.linalg,
             "random": RANDOM}


def _callables() -> frozenset:
    out = set()
    for mod in LIBRARIES.values():
        for value in vars(mod).values():
            if isinstance(value, (types.FunctionType, BuiltinType)):
                out.add(value)
    return frozenset(out)


CALLABLES = _callables()  # every function the libraries hold: the call policy treats them as engine code


def library_has(mod, name: str) -> bool:
    """Whether the real library ``mod`` stands for has ``name`` (gradviz then says it is not
    supported, rather than that it does not exist)."""
    real = {"math": _math, "numpy": _np, "numpy.random": _np.random, "numpy.linalg": _np.linalg,
            "random": _py_random}.get(
        getattr(mod, "__name__", None)) if mod in LIBRARIES.values() else None
    return real is not None and hasattr(real, name)

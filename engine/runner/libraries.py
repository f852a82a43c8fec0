"""The two standard libraries a program may import besides torch: read-only subsets of ``math`` and
``numpy``, as course code uses them (``math.pi``, ``math.exp``; ``np.array``, ``np.linspace``,
``np.sin``, ``np.allclose``, ...).

Each is a module object of its own holding only listed names, so a program never reaches the real
modules (no ``np.load``, ``np.ctypeslib``, ``np.lib``, no object arrays, no memory addresses). Every
function here reads its arguments through the engine's argument gate first: numbers, tensors,
numeric arrays and nested lists of numbers only, so no object of the program ever reaches NumPy
or runs its own methods; sizes are checked against the run's limits before anything is allocated
and integer results against its integer limit before they are computed.
"""

from __future__ import annotations

import inspect
import math as _math
import types

import numpy as _np

from .. import arguments as A
from .. import limits
from ..errors import LimitError
from ..tensor import Tensor
from .safe_builtins import BuiltinType

# ---- the gate for library arguments -------------------------------------------------------------------


def _refuse(fn: str):
    def refuse(value):
        return TypeError(f"{fn}(): unsupported argument of type {A.type_name(value)} (numbers, tensors, "
                         "numeric arrays and lists of numbers only)")

    return refuse


def _array(value, fn: str) -> _np.ndarray:
    """An array argument: a copy of the data of a number, tensor, numeric array or nested list."""
    arr = A.to_array(value, _refuse(fn))
    return _np.array(arr, copy=True) if isinstance(value, Tensor) else arr


def _number(value, fn: str):
    """A number argument (a one-element tensor or array gives its number)."""
    if A.is_number(value):
        return value
    if isinstance(value, Tensor) or A.kind(value) is A.ARRAY:
        return value  # the library's own conversion (``float(t)``) runs engine code or NumPy's
    raise TypeError(f"must be real number, not {A.type_name(value)}")


def _int_bits(bits: int) -> None:
    b = limits.ACTIVE
    cap = b.max_int_bits if b is not None else None
    if cap is not None and bits > cap:
        raise LimitError(f"an integer of about {bits:,} bits is over the limit of {cap:,} bits "
                         "(limit: max_int_bits)")


def _axis(axis, fn: str):
    if axis is None:
        return None
    if type(axis) in (tuple, list):
        return A.ints(axis, fn, "axis")
    return A.integer(axis, fn, "axis")


_DTYPES = {"float64": _np.float64, "float32": _np.float32, "float16": _np.float16, "int64": _np.int64,
           "int32": _np.int32, "int16": _np.int16, "int8": _np.int8, "uint8": _np.uint8, "bool": _np.bool_,
           "float": _np.float64, "int": _np.int64, "double": _np.float64}


def _dtype(dtype, fn: str):
    """A ``dtype=`` argument: None, one of the library's numeric dtypes, or its name."""
    if dtype is None:
        return None
    if type(dtype) is str and dtype in _DTYPES:
        return _DTYPES[dtype]
    if isinstance(dtype, BuiltinType):
        dtype = dtype.pytype
    if dtype in (float, int, bool):
        return {float: _np.float64, int: _np.int64, bool: _np.bool_}[dtype]
    if isinstance(dtype, type) and dtype in _DTYPES.values():
        return dtype
    if type(dtype) is _np.dtype and dtype.kind in "biuf":
        return dtype
    raise TypeError(f"{fn}(): dtype {dtype!r} is not one of the numeric dtypes gradviz's numpy offers")


def _shape(shape, fn: str) -> tuple:
    dims = A.ints(shape, fn, "shape")
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def _alloc(shape, dtype=_np.float64) -> None:
    limits.check_alloc(tuple(shape), _np.dtype(dtype).itemsize)


# ---- math -----------------------------------------------------------------------------------------------
_MATH_FLOAT = ("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "copysign", "cos", "cosh",
               "degrees", "erf", "erfc", "exp", "expm1", "fabs", "floor", "fmod", "frexp", "gamma", "hypot",
               "isfinite", "isinf", "isnan", "lgamma", "log", "log10", "log1p", "log2", "modf", "pow",
               "radians", "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "isclose", "ldexp",
               "copysign", "dist", "exp2", "cbrt")


def _math_function(name: str):
    real = getattr(_math, name)

    def function(*args, **kwargs):
        args = [_number(a, name) if not isinstance(a, (list, tuple)) else a for a in args]
        kwargs = {k: _number(v, name) for k, v in kwargs.items()}
        if name == "ldexp" and len(args) == 2 and type(args[1]) is int and args[1] > 100_000:
            raise OverflowError("math range error")
        if name == "dist":
            args = [[_number(v, name) for v in A.items(a, _refuse(name))] for a in args]
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
    _int_bits(int(n * _math.log2(n + 1)) if n > 1 else 1)
    return _math.factorial(n)


def comb(n, k):
    n, k = _nonnegative_int(n, "comb"), _nonnegative_int(k, "comb")
    _int_bits(n)
    return _math.comb(n, k)


def perm(n, k=None):
    n = _nonnegative_int(n, "perm")
    _int_bits(int(n * _math.log2(n + 1)) if n > 1 else 1)
    return _math.perm(n, k if k is None else _nonnegative_int(k, "perm"))


def _ints(values, fn: str) -> list:
    return [A.integer(v, fn, "integers") for v in values]


def gcd(*integers):
    return _math.gcd(*_ints(integers, "gcd"))


def lcm(*integers):
    values = _ints(integers, "lcm")
    _int_bits(sum(abs(v).bit_length() for v in values))
    return _math.lcm(*values)


def isqrt(n):
    return _math.isqrt(_nonnegative_int(n, "isqrt"))


def prod(iterable, *, start=1):
    """The product of the items (numbers), with the integer limit checked at each step."""
    total = _number(start, "prod")
    for v in A.items(iterable, _refuse("prod")):
        v = _number(v, "prod")
        if type(total) is int and type(v) is int:
            _int_bits(total.bit_length() + v.bit_length())
        total = total * v
    return total


def fsum(iterable):
    return _math.fsum(_number(v, "fsum") for v in A.items(iterable, _refuse("fsum")))


def _math_module() -> types.ModuleType:
    mod = types.ModuleType("math", "gradviz's read-only subset of Python's math module")
    for name in _MATH_FLOAT:
        if hasattr(_math, name):
            setattr(mod, name, _math_function(name))
    for fn in (factorial, comb, perm, gcd, lcm, isqrt, prod, fsum):
        setattr(mod, fn.__name__, fn)
    for name in ("pi", "e", "tau", "inf", "nan"):
        setattr(mod, name, getattr(_math, name))
    return mod


# ---- numpy ------------------------------------------------------------------------------------------------
def _ufunc(name: str, arity: int = 1):
    """An elementwise NumPy function of arrays (broadcast, size-checked)."""
    real = getattr(_np, name)

    def function(*args, dtype=None):
        if len(args) != arity:
            raise TypeError(f"{name}() takes {arity} positional argument{'s' if arity > 1 else ''} but "
                            f"{len(args)} were given")
        arrays = [_array(a, name) for a in args]
        if arity > 1:
            limits.check_shape(_np.broadcast_shapes(*(a.shape for a in arrays)))
        out = real(*arrays)
        return out if dtype is None else _np.asarray(out).astype(_dtype(dtype, name))

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
        return real(_array(a, name), axis=_axis(axis, name), keepdims=A.flag(keepdims, name, "keepdims"),
                    **extra)

    function.__name__ = function.__qualname__ = name
    return function


def cumsum(a, axis=None):
    return _np.cumsum(_array(a, "cumsum"), axis=_axis(axis, "cumsum"))


def array(object, dtype=None, copy=True, ndmin=0):  # noqa: A002 - NumPy's argument name
    """A new array of the data (numbers, nested lists, tensors or arrays)."""
    arr = _array(object, "array")
    dt = _dtype(dtype, "array")
    return _np.array(arr, dtype=dt, copy=True)


def asarray(a, dtype=None):
    return array(a, dtype)


def _filled(fn: str, fill, shape, dtype):
    dims = _shape(shape, fn)
    dt = _dtype(dtype, fn) or _np.float64
    _alloc(dims, dt)
    return _np.full(dims, fill, dtype=dt)


def zeros(shape, dtype=None):
    return _filled("zeros", 0, shape, dtype)


def ones(shape, dtype=None):
    return _filled("ones", 1, shape, dtype)


def empty(shape, dtype=None):
    return _filled("empty", 0, shape, dtype)


def full(shape, fill_value, dtype=None):
    value = _number(fill_value, "full")
    dims = _shape(shape, "full")
    dt = _dtype(dtype, "full")
    _alloc(dims, dt or _np.float64)
    return _np.full(dims, value, dtype=dt)


def _like(fn: str, fill, a, dtype):
    arr = _array(a, fn)
    dt = _dtype(dtype, fn) or arr.dtype
    _alloc(arr.shape, dt)
    return _np.full(arr.shape, fill, dtype=dt)


def zeros_like(a, dtype=None):
    return _like("zeros_like", 0, a, dtype)


def ones_like(a, dtype=None):
    return _like("ones_like", 1, a, dtype)


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - NumPy's names
    n = A.integer(N, "eye", "N")
    m = n if M is None else A.integer(M, "eye", "M")
    dt = _dtype(dtype, "eye") or _np.float64
    _alloc((n, m), dt)
    return _np.eye(n, m, A.integer(k, "eye", "k"), dtype=dt)


def arange(start, stop=None, step=1, dtype=None):
    start, step = _number(start, "arange"), _number(step, "arange")
    if stop is not None:
        stop = _number(stop, "arange")
    lo, hi = (0, start) if stop is None else (start, stop)
    if step == 0:
        raise ZeroDivisionError("division by zero")
    n = max(int(_math.ceil((hi - lo) / step)), 0)
    dt = _dtype(dtype, "arange")
    _alloc((n,), dt or _np.float64)
    return _np.arange(lo, hi, step, dtype=dt)


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    num = A.integer(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = _dtype(dtype, "linspace")
    _alloc((num,), dt or _np.float64)
    return _np.linspace(_number(start, "linspace"), _number(stop, "linspace"), num,
                        endpoint=A.flag(endpoint, "linspace", "endpoint"), dtype=dt)


def _product(fn: str, a, b):
    x, y = _array(a, fn), _array(b, fn)
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
    x, y = _array(a, "outer").ravel(), _array(b, "outer").ravel()
    limits.check_shape((x.size, y.size))
    return _np.outer(x, y)


def _joined(fn: str, arrays, axis=0):
    parts = [_array(a, fn) for a in A.items(arrays, _refuse(fn))]
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
    return _array(a, "reshape").reshape(A.ints(newshape, "reshape", "newshape"))


def transpose(a, axes=None):
    return _array(a, "transpose").transpose(None if axes is None else A.ints(axes, "transpose", "axes"))


def where(condition, x, y):
    c, a, b = _array(condition, "where"), _array(x, "where"), _array(y, "where")
    limits.check_shape(_np.broadcast_shapes(c.shape, a.shape, b.shape))
    return _np.where(c, a, b)


def clip(a, a_min, a_max):
    return _np.clip(_array(a, "clip"), None if a_min is None else _number(a_min, "clip"),
                    None if a_max is None else _number(a_max, "clip"))


def round(a, decimals=0):  # noqa: A001 - NumPy's name
    return _np.round(_array(a, "round"), A.integer(decimals, "round", "decimals"))


def _close(fn: str, a, b, rtol, atol, equal_nan):
    x, y = _array(a, fn), _array(b, fn)
    limits.check_shape(_np.broadcast_shapes(x.shape, y.shape))
    return getattr(_np, fn)(x, y, rtol=A.real(rtol, fn, "rtol"), atol=A.real(atol, fn, "atol"),
                            equal_nan=A.flag(equal_nan, fn, "equal_nan"))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(_close("allclose", a, b, rtol, atol, equal_nan))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _close("isclose", a, b, rtol, atol, equal_nan)


def array_equal(a1, a2):
    return bool(_np.array_equal(_array(a1, "array_equal"), _array(a2, "array_equal")))


def sort(a, axis=-1):
    return _np.sort(_array(a, "sort"), axis=_axis(axis, "sort"))


def argsort(a, axis=-1):
    return _np.argsort(_array(a, "argsort"), axis=_axis(axis, "argsort"))


def _seed(seed=None):
    _RANDOM_STATE[0] = _np.random.default_rng(None if seed is None else A.integer(seed, "seed", "seed"))


def _random_shape(args, fn: str) -> tuple:
    dims = _shape(args[0] if len(args) == 1 and type(args[0]) in (tuple, list) else args, fn)
    _alloc(dims)
    return dims


def _rand(*d):
    return _RANDOM_STATE[0].random(_random_shape(d, "rand"))


def _randn(*d):
    return _RANDOM_STATE[0].standard_normal(_random_shape(d, "randn"))


def _random_sized(fn: str, size):
    return () if size is None else _random_shape((size,), fn)


def _uniform(low=0.0, high=1.0, size=None):
    low, high = _number(low, "uniform"), _number(high, "uniform")
    return _RANDOM_STATE[0].uniform(low, high, _random_sized("uniform", size))


def _normal(loc=0.0, scale=1.0, size=None):
    loc, scale = _number(loc, "normal"), _number(scale, "normal")
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
    arr = _array(x, "norm")
    if ord is not None and type(ord) is not str:
        ord = _number(ord, "norm")  # noqa: A001
    elif ord is not None and ord not in ("fro",):
        raise ValueError(f"Invalid norm order '{ord}' for gradviz's numpy")
    keepdims = A.flag(keepdims, "norm", "keepdims")
    return _np.linalg.norm(arr, ord=ord, axis=_axis(axis, "norm"), keepdims=keepdims)


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
        return real(_number(value, name) if not isinstance(value, Tensor) else float(value))

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


MATH = _math_module()
NUMPY = _numpy_module()
LIBRARIES = {"math": MATH, "numpy": NUMPY, "numpy.random": NUMPY.random, "numpy.linalg": NUMPY.linalg}


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
    real = {"math": _math, "numpy": _np, "numpy.random": _np.random, "numpy.linalg": _np.linalg}.get(
        getattr(mod, "__name__", None)) if mod in LIBRARIES.values() else None
    return real is not None and hasattr(real, name)

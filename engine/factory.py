"""Tensor creation: ``tensor, zeros, ones, full, eye, arange, linspace, randn, rand, randint, ...``.

Random numbers come from PyTorch's generator, reproduced in ``engine.generator``: after the same
``manual_seed`` (or from the same ``torch.Generator``) they are the numbers PyTorch prints.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import arguments as A
from . import dtypes, errors, limits
from . import generator as G
from .device import check as _device
from .errors import not_supported
from .generator import manual_seed, seed  # noqa: F401  (torch.manual_seed and torch.seed live here too)
from .tensor import Tensor


def _finish(arr: np.ndarray, dtype, requires_grad: bool) -> Tensor:
    if dtype is not None:
        arr = arr.astype(dtype.np, copy=False)
    t = Tensor._make(arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise RuntimeError(errors.ONLY_FLOAT_GRAD)
        t._requires_grad = True
    return t


def _refuse_data(value) -> Exception:
    """torch.tensor's errors for data it cannot read."""
    if type(value) is str:
        return TypeError("new(): invalid data type 'str'")
    return RuntimeError(f"Could not infer dtype of {A.type_name(value)}")


def _supported(arr: np.ndarray, what: str) -> np.ndarray:
    if arr.dtype not in dtypes.SUPPORTED_NP:
        raise TypeError(f"can't convert {what} of type numpy.{arr.dtype.type.__name__}. The only supported "
                        f"types are: {dtypes.SUPPORTED_TEXT}.")
    return arr


def _infer(data, dtype=None) -> np.ndarray:
    """Tensor data (a number, nested lists, a tensor or an array) -> a new ndarray with torch's
    default dtypes (or ``dtype``, cast once). Only what ``arguments`` admits is read."""
    k = A.kind(data)
    if k is None:
        raise _refuse_data(data)
    if k is A.TENSOR:
        return data._data.copy()
    if k is A.ARRAY:
        return _supported(data, "np.ndarray").copy()
    if k is A.NUMBER:
        py, kinds = data, {np.asarray(data).dtype.kind}
    else:
        py, kinds = A.rebuild(data, _refuse_data)
    if "c" in kinds:
        raise not_supported("complex numbers")
    try:
        arr = np.array(py)
    except ValueError as exc:
        raise ValueError(f"expected sequence of equal-length lists: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError("expected a sequence of numbers of equal lengths")
    if dtype is not None:
        return arr.astype(dtype.np)
    if "f" in kinds or arr.dtype.kind == "f":
        return arr.astype(dtypes.get_default_dtype().np)
    if "i" in kinds or "u" in kinds or arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.size == 0 and not kinds:
        return arr.astype(dtypes.get_default_dtype().np)
    return arr.astype(np.bool_)


def tensor(data, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (a number, nested lists, or a tensor)."""
    dtype = A.dtype(dtype, "tensor")
    _device(device, "tensor")
    if isinstance(data, Tensor):

        warnings.warn(errors.COPY_CONSTRUCT, UserWarning, stacklevel=2)
    requires_grad = A.flag(requires_grad, "tensor", "requires_grad")
    arr = _infer(data, dtype)
    limits.check_alloc(arr.shape, (dtype.np if dtype is not None else arr.dtype).itemsize)
    return _finish(arr, dtype, requires_grad)


def legacy_tensor(args: tuple, kwargs: dict) -> Tensor:
    """``torch.Tensor(...)``: data as floats of the default dtype, or a shape (zeros here; PyTorch
    leaves the memory uninitialised), or nothing (an empty tensor)."""
    if set(kwargs) - {"device"}:
        given = [A.type_name(a) for a in args] + [f"{k}={A.type_name(v)}" for k, v in kwargs.items()]
        raise TypeError(f"new() received an invalid combination of arguments - got ({', '.join(given)}), but "
                        "expected one of:\n * (*, torch.device device = None)\n * (torch.Storage storage)\n"
                        " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
                        " * (object data, *, torch.device device = None)\n")
    _device(kwargs.get("device"), "Tensor")
    default = dtypes.get_default_dtype()
    if not args:
        return Tensor._make(np.zeros((0,), default.np))
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        return Tensor._make(first._data, False, first._vc)  # the same storage, as PyTorch's new(other)
    if len(args) == 1 and type(first) in (list, tuple) or A.kind(first) is A.ARRAY:
        return tensor(first, dtype=default)
    if len(args) == 1 and type(first) is str:
        raise TypeError("new(): invalid data type 'str'")
    shape = _size(args, "Tensor")
    return Tensor._make(np.zeros(shape, _alloc(shape, default)))


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` as a tensor: a tensor of the right dtype is returned as it is, else a copy."""
    _device(device, "as_tensor")
    if isinstance(data, Tensor):
        dtype = A.dtype(dtype, "as_tensor")
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    return tensor(data, dtype=dtype)


def from_numpy(arr: np.ndarray) -> Tensor:
    """A tensor sharing the memory of a NumPy array of a numeric or bool dtype."""
    if type(arr) is not np.ndarray:
        raise TypeError(f"expected np.ndarray (got {A.type_name(arr)})")
    _supported(arr, "np.ndarray")
    limits.check_shape(arr.shape)
    return Tensor._make(arr)


def _size(size, fn: str, keyword=None) -> tuple[int, ...]:
    """The shape of a factory call: its positional sizes, or ``size=`` given by keyword (d2l's
    ``torch.randn(size=(), requires_grad=True)``), with PyTorch's errors for both or an int."""
    if keyword is not None:
        if size:
            raise TypeError(f"{fn}() received an invalid combination of arguments - got positional sizes "
                            "and size=")
        if not isinstance(keyword, (tuple, list)):
            raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not {type(keyword).__name__}")
        size = (keyword,)
    shape = A.shape_args(size, fn)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape


def _size_keyword(fn: str, keywords: dict):
    """``size=`` among a factory's keywords (the only one it takes beyond its named ones)."""
    for name in keywords:
        if name != "size":
            raise TypeError(f"{fn}() got an unexpected keyword argument '{name}'")
    return keywords.get("size")


def _alloc(shape, dtype, default=None) -> np.dtype:
    dt = (dtype or default or dtypes.get_default_dtype()).np
    limits.check_alloc(shape, dt.itemsize)
    return dt


def _filled(fn: str, make, size, dtype, requires_grad, device=None, keyword=None) -> Tensor:
    dtype = A.dtype(dtype, fn)
    _device(device, fn)
    requires_grad = A.flag(requires_grad, fn, "requires_grad")
    shape = _size(size, fn, keyword)
    return _finish(make(shape, _alloc(shape, dtype)), None, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad: bool = False, **keywords) -> Tensor:
    return _filled("zeros", np.zeros, size, dtype, requires_grad, device, _size_keyword("zeros", keywords))


def ones(*size, dtype=None, device=None, requires_grad: bool = False, **keywords) -> Tensor:
    return _filled("ones", np.ones, size, dtype, requires_grad, device, _size_keyword("ones", keywords))


def empty(*size, dtype=None, device=None, requires_grad: bool = False, **keywords) -> Tensor:
    return _filled("empty", np.zeros, size, dtype, requires_grad, device, _size_keyword("empty", keywords))


def full(size, fill_value, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape = _size((A.ints(size, "full", "size", 1),), "full")
    value = A.number(fill_value, "full", "fill_value", 2)
    dtype = A.dtype(dtype, "full")
    _device(device, "full")
    requires_grad = A.flag(requires_grad, "full", "requires_grad")
    if dtype is None:
        if type(value) is bool:
            dtype = dtypes.bool_
        elif type(value) is int:
            dtype = dtypes.int64
    return _finish(np.full(shape, value, _alloc(shape, dtype)), None, requires_grad)


def _like(fn: str, input, dtype, device=None):
    input = A.tensor(input, fn, "input", 1)
    _device(device, fn)
    return tuple(input._data.shape), A.dtype(dtype, fn) or input.dtype


def zeros_like(input: Tensor, dtype=None, requires_grad: bool = False, device=None) -> Tensor:
    shape, dt = _like("zeros_like", input, dtype, device)
    return zeros(shape, dtype=dt, requires_grad=requires_grad)


def ones_like(input: Tensor, dtype=None, requires_grad: bool = False, device=None) -> Tensor:
    shape, dt = _like("ones_like", input, dtype, device)
    return ones(shape, dtype=dt, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value, dtype=None, requires_grad: bool = False, device=None) -> Tensor:
    shape, dt = _like("full_like", input, dtype, device)
    return full(shape, fill_value, dtype=dt, requires_grad=requires_grad)


def rand_like(input: Tensor, dtype=None, requires_grad: bool = False, device=None, generator=None) -> Tensor:
    shape, dt = _like("rand_like", input, dtype, device)
    return rand(shape, dtype=dt, requires_grad=requires_grad, generator=generator)


def randn_like(input: Tensor, dtype=None, requires_grad: bool = False, device=None, generator=None) -> Tensor:
    shape, dt = _like("randn_like", input, dtype, device)
    return randn(shape, dtype=dt, requires_grad=requires_grad, generator=generator)


def eye(n: int, m: int | None = None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    n = A.integer(n, "eye", "n", 1)
    m = n if m is None else A.integer(m, "eye", "m", 2)
    for k, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"{k} must be greater or equal to 0, got {v}")
    dtype = A.dtype(dtype, "eye")
    _device(device, "eye")
    requires_grad = A.flag(requires_grad, "eye", "requires_grad")
    return _finish(np.eye(n, m, dtype=_alloc((n, m), dtype)), None, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if end is None:
        start, end = 0, A.number(start, "arange", "end", 1)
    else:
        start, end = A.number(start, "arange", "start", 1), A.number(end, "arange", "end", 2)
    step = A.number(step, "arange", "step", 3)
    dtype = A.dtype(dtype, "arange")
    _device(device, "arange")
    requires_grad = A.flag(requires_grad, "arange", "requires_grad")
    if any(type(v) is complex for v in (start, end, step)):
        raise not_supported("complex numbers in arange()")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = max(int(np.ceil((end - start) / step)), 0)
    all_int = all(type(v) in (int, bool) for v in (start, end, step))
    dt = _alloc((n,), dtype, dtypes.int64 if all_int else None)
    return _finish(np.arange(start, end, step).astype(dt), None, requires_grad)


def linspace(start, end, steps: int, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    start = A.real(start, "linspace", "start", 1)
    end = A.real(end, "linspace", "end", 2)
    steps = A.integer(steps, "linspace", "steps", 3)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = A.dtype(dtype, "linspace")
    _device(device, "linspace")
    requires_grad = A.flag(requires_grad, "linspace", "requires_grad")
    dt = _alloc((steps,), dtype)
    return _finish(np.linspace(start, end, steps).astype(dt), None, requires_grad)


def _float_kind(np_dtype: np.dtype, kernel: str) -> None:
    """PyTorch's error for a random floating-point fill of a tensor of another kind."""
    if np_dtype.kind != "f":
        name = dtypes.scalar_name(dtypes.from_numpy_dtype(np_dtype))
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _random(fn: str, kernel: str, draw, size, dtype, requires_grad, device, generator,
            keyword=None) -> Tensor:
    _device(device, fn)
    shape = _size(size, fn, keyword)
    dtype = A.dtype(dtype, fn)
    requires_grad = A.flag(requires_grad, fn, "requires_grad")
    gen = G.pick(generator, fn)
    dt = _alloc(shape, dtype)
    _float_kind(dt, kernel)
    n = int(np.prod(shape, dtype=np.int64))
    return _finish(draw(gen, n, dt).reshape(shape), None, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False, **keywords) -> Tensor:
    """N(0, 1) samples, PyTorch's for the same generator state."""
    return _random("randn", "normal_kernel_cpu", lambda g, n, dt: G.normal(g, n, dt, 0.0, 1.0), size, dtype,
                   requires_grad, device, generator, _size_keyword("randn", keywords))


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False, **keywords) -> Tensor:
    """U[0, 1) samples, PyTorch's for the same generator state."""
    return _random("rand", "check_uniform_bounds", lambda g, n, dt: G.uniform(g, n, dt, 0.0, 1.0), size,
                   dtype, requires_grad, device, generator, _size_keyword("rand", keywords))


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """``torch.normal``: numbers mean and std with a size (N(mean, std²) samples), or tensors of
    means and/or stds (standard normals of the broadcast shape, times std, plus mean)."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        return _normal_tensors(mean, std, generator)
    mean = A.real(mean, "normal", "mean", 1)
    std = A.real(std, "normal", "std", 2)
    if size is None:
        raise TypeError("normal() missing required argument 'size' when mean and std are numbers")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    return _random("normal", "normal_kernel_cpu", lambda g, n, dt: G.normal(g, n, dt, mean, std),
                   (A.ints(size, "normal", "size", 3),), dtype, requires_grad, device, generator)


def _g(x: float) -> str:
    return f"{x:g}"


def _normal_tensors(mean, std, generator) -> Tensor:
    """torch.normal(Tensor mean, Tensor std): PyTorch fills standard normals of the broadcast shape,
    multiplies by std and adds mean (each its own rounding in the result's dtype)."""
    gen = G.pick(generator, "normal")
    mean_t = mean if isinstance(mean, Tensor) else None
    std_t = std if isinstance(std, Tensor) else None
    m = mean_t._data if mean_t is not None else A.real(mean, "normal", "mean", 1)
    s = std_t._data if std_t is not None else A.real(std, "normal", "std", 2)
    ref = (mean_t if mean_t is not None else std_t)._data
    _float_kind(ref.dtype, "normal_kernel_cpu")
    if np.any(np.asarray(s) < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    n = int(np.prod(shape, dtype=np.int64))
    limits.check_alloc(shape, ref.dtype.itemsize)
    z = G.normal(gen, n, ref.dtype, 0.0, 1.0).reshape(shape)
    out = (z * np.asarray(s, ref.dtype)).astype(ref.dtype) + np.asarray(m, ref.dtype)
    return Tensor._make(out.astype(ref.dtype, copy=False))


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """Integers uniform in [low, high), PyTorch's for the same generator state."""
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    low = A.integer(low, "randint", "low", 1)
    high = A.integer(high, "randint", "high", 2)
    shape = _size((A.ints(size, "randint", "size", 3),), "randint")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dtype = A.dtype(dtype, "randint")
    _device(device, "randint")
    requires_grad = A.flag(requires_grad, "randint", "requires_grad")
    gen = G.pick(generator, "randint")
    dt = _alloc(shape, dtype, dtypes.int64)
    n = int(np.prod(shape, dtype=np.int64))
    return _finish(G.random_from_to(gen, n, dt, low, high).reshape(shape), None, requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A random permutation of 0..n-1, PyTorch's for the same generator state."""
    n = A.integer(n, "randperm", "n", 1)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    dtype = A.dtype(dtype, "randperm")
    _device(device, "randperm")
    requires_grad = A.flag(requires_grad, "randperm", "requires_grad")
    gen = G.pick(generator, "randperm")
    dt = _alloc((n,), dtype, dtypes.int64)
    return _finish(G.randperm(gen, n).astype(dt), None, requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """0/1 samples: each element 1 with the probability ``input`` holds there (or ``p``)."""
    input = A.tensor(input, "bernoulli", "input", 1)
    gen = G.pick(generator, "bernoulli")
    data = input._data
    if p is None:
        _float_kind(data.dtype, "bernoulli_tensor_cpu_p_")
        if np.any((data < 0) | (data > 1)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return Tensor._make(G.bernoulli_tensor(gen, data).astype(data.dtype))
    p = A.real(p, "bernoulli", "p", 2)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    return Tensor._make(G.bernoulli_scalar(gen, data.size, p).reshape(data.shape).astype(data.dtype))


def _fill(t: Tensor, values: np.ndarray) -> Tensor:
    t._data[...] = values.reshape(t._data.shape)
    t._vc[0] += 1
    return t


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill ``t`` in place with N(mean, std²) samples, without recording (nn.init, Tensor.normal_)."""
    gen = G.pick(generator, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    _float_kind(t._data.dtype, "normal_kernel_cpu")
    data = t._data
    return _fill(t, G.normal(gen, data.size, data.dtype, mean, std, data.flags.c_contiguous))


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill ``t`` in place with U[a, b) samples, without recording (nn.init, nn.Linear, Tensor.uniform_)."""
    gen = G.pick(generator, "uniform_")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(a)} > "
                           f"to={_g(b)}")
    _float_kind(t._data.dtype, "check_uniform_bounds")
    return _fill(t, G.uniform(gen, t._data.size, t._data.dtype, a, b))

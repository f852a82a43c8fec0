"""The public op functions (``torch.add``, ``torch.exp``, ...) and the Tensor methods and
operators built on them. Each function checks its arguments the way PyTorch does, then runs
one table entry through ``dispatch.apply``."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import dtypes, limits
from ..dispatch import apply, apply_inplace
from ..tensor import Tensor, _norm_dim, as_tensor_like
from . import (  # noqa: F401  (they fill the table)
    combine,
    elementwise,
    index_ops,
    inplace_ops,
    linalg,
    nn_ops,  # softmax, log_softmax and the losses of torch.nn
    reduce,
)
from . import shape as _shape_ops  # noqa: F401
from .api_extra import (  # noqa: F401  (public ops re-exported from here)
    argmax,
    argmin,
    cat,
    clamp,
    clamp_,
    clamp_max,
    clamp_min,
    copy_,
    fill_,
    maximum,
    minimum,
    stack,
    std,
    var,
    zero_,
)
from .indexing import getitem, index_put, setitem  # noqa: F401
from .table import OPS


def _t(x, like: Tensor, fn: str = "add", arg: str = "other", pos: int | None = 2) -> Tensor:
    """``x`` as a tensor for an op with ``like``: a tensor, or a number wrapped as torch wraps it."""
    if isinstance(x, Tensor):
        return x
    t = as_tensor_like(x, like)
    if t is None:
        raise TypeError(A.must(fn, arg, pos, "Tensor", x))
    return t


def _is_number(x) -> bool:
    return A.is_number(x)


def _broadcast_check(a: Tensor, b: Tensor) -> None:
    sa, sb = a._data.shape, b._data.shape
    if sa == sb or not sa or not sb:
        return
    for i in range(1, min(len(sa), len(sb)) + 1):
        x, y = sa[-i], sb[-i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                f"dimension {max(len(sa), len(sb)) - i}")


def _binary(name: str, a, b) -> Tensor:
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):
            raise TypeError(A.must(name, "input", 1, "Tensor", a))
        a = _t(a, b, name, "input", 1)
    if not isinstance(b, Tensor):
        b = _t(b, a, name, "other", 2)
    sa, sb = a._data.shape, b._data.shape
    if sa != sb and sa and sb:
        _broadcast_check(a, b)
    return apply(OPS[name], (a, b))


def _operator(name: str):
    """``Tensor.__mul__`` and friends: ``_binary`` for one op, in a single Python frame (hot path)."""
    op = OPS[name]

    def operator(self: Tensor, other) -> Tensor:
        if not isinstance(other, Tensor):
            other = as_tensor_like(other, self)
            if other is None:
                return NotImplemented  # Python then says "unsupported operand type(s)", as with torch
        sa, sb = self._data.shape, other._data.shape
        if sa != sb and sa and sb:
            _broadcast_check(self, other)
        return apply(op, (self, other))

    operator.__name__ = f"__{name}__"
    return operator


# ---- arithmetic -------------------------------------------------------------------------
def _alpha(fn: str, input, other, alpha) -> tuple | None:
    """The operands of ``fn(input, other, alpha=...)`` when alpha is not 1, or None."""
    if type(alpha) is int and alpha == 1:
        return None
    alpha = A.number(alpha, fn, "alpha")
    if alpha == 1:
        return None
    if not isinstance(input, Tensor):
        raise TypeError(A.must(fn, "input", 1, "Tensor", input))
    return _t(input, other, fn, "input", 1), _t(other, input, fn), alpha


def add(input, other, *, alpha=1) -> Tensor:
    """input + alpha * other, with broadcasting."""
    ops = _alpha("add", input, other, alpha)
    if ops is not None:
        a, b, alpha = ops
        _broadcast_check(a, b)
        return apply(OPS["add_alpha"], (a, b), {"alpha": alpha})
    return _binary("add", input, other)


def sub(input, other, *, alpha=1) -> Tensor:
    """input - alpha * other, with broadcasting."""
    ops = _alpha("sub", input, other, alpha)
    if ops is not None:
        a, b, alpha = ops
        _broadcast_check(a, b)
        return apply(OPS["sub_alpha"], (a, b), {"alpha": alpha})
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return rsub(other, input)
    return _binary("sub", input, other)


def rsub(input: Tensor, other) -> Tensor:
    """other - input (``number - tensor``: RsubBackward1)."""
    input = A.tensor(input, "rsub", "input", 1)
    if _is_number(other):
        if A.kind(other) is A.NUMBER and type(other) is complex:
            raise TypeError("complex numbers are not supported by gradviz")
        return apply(OPS["rsub_scalar"], (input,), {"other": A.number(other, "rsub", "other", 2)})
    return _binary("sub", other, input)


def mul(input, other) -> Tensor:
    return _binary("mul", input, other)


def div(input, other, *, rounding_mode=None) -> Tensor:
    if rounding_mode is not None:
        raise RuntimeError("div with rounding_mode is not supported by gradviz")
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return mul(reciprocal(other), A.number(input, "div", "input", 1))
    return _binary("div", input, other)


def true_divide(input, other) -> Tensor:
    return div(input, other)


def reciprocal(input: Tensor) -> Tensor:
    input = A.tensor(input, "reciprocal", "input", 1)
    if not input.dtype.is_floating_point:
        input = to(input, dtypes.get_default_dtype())
    return apply(OPS["reciprocal"], (input,))


def neg(input: Tensor) -> Tensor:
    return apply(OPS["neg"], (A.tensor(input, "neg", "input", 1),))


def pow(input, exponent) -> Tensor:  # noqa: A001 - torch's name
    """input ** exponent for tensor/number in either position."""
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise TypeError(A.must("pow", "input", 1, "Tensor", input))
        base = A.number(input, "pow", "self", 1)
        if type(base) is complex:
            raise TypeError("complex numbers are not supported by gradviz")
        ex = exponent if exponent.dtype.is_floating_point or isinstance(base, int) else \
            to(exponent, dtypes.get_default_dtype())
        return apply(OPS["rpow_scalar"], (ex,), {"base": base})
    if isinstance(exponent, Tensor):
        return _binary("pow", input, exponent)
    exponent = A.number(exponent, "pow", "exponent", 2)
    if type(exponent) is complex:
        raise TypeError("complex numbers are not supported by gradviz")
    x = input
    if isinstance(exponent, float) and not x.dtype.is_floating_point:
        x = to(x, dtypes.get_default_dtype())
    return apply(OPS["pow_scalar"], (x,), {"exponent": exponent})


def _unary(name: str):
    op = OPS[name]

    def f(input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(A.must(name, "input", 1, "Tensor", input))
        if not input._data.dtype.kind == "f":
            input = to(input, dtypes.get_default_dtype())
        return apply(op, (input,))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise {op.description} (grad_fn {op.grad_fn})."
    return f


exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")


def abs(input: Tensor) -> Tensor:  # noqa: A001
    return apply(OPS["abs"], (A.tensor(input, "abs", "input", 1),))


def relu(input: Tensor) -> Tensor:
    return apply(OPS["relu"], (A.tensor(input, "relu", "input", 1),))


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    input = A.tensor(input, "leaky_relu", "input", 1)
    negative_slope = A.real(negative_slope, "leaky_relu", "negative_slope", 2, "Number")
    return apply(OPS["leaky_relu"], (input,), {"negative_slope": negative_slope})


def _softmax_input(input: Tensor, dtype, kernel: str) -> Tensor:
    fn = kernel.split("_lastdim")[0]
    input = A.tensor(input, fn, "input", 1)
    dtype = A.dtype(dtype, fn)
    if dtype is not None:
        return to(input, dtype)
    if not input.dtype.is_floating_point:
        scalar = input.dtype._type_desc[len("torch."):-len("Tensor")]  # torch's ScalarType name, e.g. Long
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar}\'')
    return input


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / Σ exp(x) along ``dim`` (SoftmaxBackward0)."""
    input = _softmax_input(input, dtype, "softmax_lastdim_kernel_impl")
    return apply(OPS["softmax"], (input,), {"dim": _norm_dim(dim, input.ndim, "softmax")})


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """x − log Σ exp(x) along ``dim`` (LogSoftmaxBackward0)."""
    input = _softmax_input(input, dtype, "log_softmax_lastdim_kernel_impl")
    return apply(OPS["log_softmax"], (input,), {"dim": _norm_dim(dim, input.ndim, "log_softmax")})


# ---- reductions ---------------------------------------------------------------------------
def _dims(dim, ndim: int, fn: str) -> tuple[int, ...]:
    dims = tuple(sorted(_norm_dim(d, ndim, fn) for d in A.ints(dim, fn, "dim", 1)))
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 / -1 and has nothing to reduce


def _reduction_args(fn: str, input, keepdim, dtype) -> tuple:
    input = A.tensor(input, fn, "input", 1)
    keepdim = A.flag(keepdim, fn, "keepdim")
    dtype = A.dtype(dtype, fn)
    return input, keepdim, dtype


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum of all elements, or along ``dim`` (an int or a tuple)."""
    input, keepdim, dtype = _reduction_args("sum", input, keepdim, dtype)
    if dtype is not None:
        input = to(input, dtype)
    elif input._data.dtype.kind in "biu":
        input = to(input, dtypes.int64)
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["sum"], (input,), {"shape": shape})
    params = {"shape": shape, "dim": _dims(dim, input.ndim, "sum"), "keepdim": keepdim}
    return apply(OPS["sum_dim"], (input,), params)


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements, or along ``dim``."""
    input, keepdim, dtype = _reduction_args("mean", input, keepdim, dtype)
    if dtype is not None:
        input = to(input, dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input.dtype.name.capitalize()}")
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["mean"], (input,), {"shape": shape})
    params = {"shape": shape, "dim": _dims(dim, input.ndim, "mean"), "keepdim": keepdim}
    return apply(OPS["mean_dim"], (input,), params)


# ---- matrix products -------------------------------------------------------------------------
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``@``: dot (1-D·1-D), mv (2-D·1-D), mm (2-D·2-D), batched otherwise, as torch dispatches."""
    a, b = A.tensor(input, "matmul", "input", 1), A.tensor(other, "matmul", "other", 2)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        if a.shape[0] != b.shape[0]:
            n, m = a.shape[0], b.shape[0]
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the "
                               f"same number of elements, but got {n} and {m} elements respectively")
        return apply(OPS["dot"], (a, b))
    if a.ndim == 2 and b.ndim == 1:
        _mm_check(a.shape, (b.shape[0], 1), "mat and vec")
        return apply(OPS["mv"], (a, b))
    if a.ndim == 1 and b.ndim == 2:
        # torch squeezes in place here (squeeze_.dims): SqueezeBackward4
        out = mm(unsqueeze(a, 0), b)
        shp = tuple(out.shape)
        return apply(OPS["squeeze_dims"], (out,), {"shape": shp[1:], "in_shape": shp})
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim >= 3 and b.ndim <= 2:
        # torch folds the batch into rows: view -> mm -> unsafe view.
        lead = tuple(a.shape[:-1])
        flat = reshape(a, (-1, a.shape[-1]))
        if b.ndim == 1:
            out = apply(OPS["mv"], (flat, b))
            return apply(OPS["unsafe_view"], (out,), {"shape": lead, "in_shape": tuple(out.shape)})
        out = mm(flat, b)
        params = {"shape": lead + (b.shape[-1],), "in_shape": tuple(out.shape)}
        return apply(OPS["unsafe_view"], (out,), params)
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[-1]}] but got: [{b.shape[0]}, {b.shape[-2]}].")
    out = apply(OPS["bmm"], (a, b))
    return apply(OPS["unsafe_view"], (out,), {"shape": tuple(out.shape), "in_shape": tuple(out.shape)})


def _mm_check(sa, sb, what="mat1 and mat2") -> None:
    if sa[-1] != sb[0]:
        raise RuntimeError(f"{what} shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    input, mat2 = A.tensor(input, "mm", "input", 1), A.tensor(mat2, "mm", "mat2", 2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_check(input.shape, mat2.shape)
    return apply(OPS["mm"], (input, mat2))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    input = A.tensor(input, "addmm", "input", 1)
    mat1, mat2 = A.tensor(mat1, "addmm", "mat1", 2), A.tensor(mat2, "addmm", "mat2", 3)
    _mm_check(mat1._data.shape, mat2._data.shape)
    return apply(OPS["addmm"], (input, mat1, mat2))


# ---- shapes -------------------------------------------------------------------------------------
def _infer_shape(shape, numel: int, fn: str = "reshape") -> tuple[int, ...]:
    shape = A.shape_args(shape, fn, "shape")
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


def reshape(input: Tensor, *shape) -> Tensor:
    """A tensor with the same data and a new shape (ViewBackward0)."""
    input = A.tensor(input, "reshape", "input", 1)
    new = _infer_shape(shape, input._data.size)
    return apply(OPS["view"], (input,), {"shape": new, "in_shape": tuple(input._data.shape)})


def view(input: Tensor, *shape) -> Tensor:
    input = A.tensor(input, "view", "input", 1)
    return apply(OPS["view"], (input,), {"shape": _infer_shape(shape, input._data.size, "view"),
                                        "in_shape": tuple(input._data.shape)})


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    input = A.tensor(input, "flatten", "input", 1)
    start_dim = A.integer(start_dim, "flatten", "start_dim", 2)
    end_dim = A.integer(end_dim, "flatten", "end_dim", 3)
    nd = input.ndim
    if nd == 0:
        return reshape(input, 1)
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    if s == e:
        return input
    shp = input._data.shape
    new = shp[:s] + (int(np.prod(shp[s:e + 1])),) + shp[e + 1:]
    return reshape(input, new)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    input = A.tensor(input, "transpose", "input", 1)
    d0 = A.integer(dim0, "transpose", "dim0", 1)
    d1 = A.integer(dim1, "transpose", "dim1", 2)
    nd = input.ndim
    perm = list(range(nd))
    d0, d1 = _norm_dim(d0, nd), _norm_dim(d1, nd)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return apply(OPS["transpose"], (input,), {"perm": tuple(perm)})


_T_PERM = {0: (), 1: (0,), 2: (1, 0)}


def t(input: Tensor) -> Tensor:
    nd = A.tensor(input, "t", "input", 1)._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return apply(OPS["t"], (input,), {"perm": _T_PERM[nd]})


def permute(input: Tensor, *dims) -> Tensor:
    input = A.tensor(input, "permute", "input", 1)
    dims = A.shape_args(dims, "permute", "dims")
    nd = input.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            "the desired ordering of dimensions i.e. input.dim() = "
            f"{nd} is not equal to len(dims) = {len(dims)}")
    perm = tuple(_norm_dim(d, nd) for d in dims)
    return apply(OPS["permute"], (input,), {"perm": perm})


def _T(input: Tensor) -> Tensor:
    return apply(OPS["permute"], (input,), {"perm": tuple(reversed(range(input.ndim)))})


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    input = A.tensor(input, "unsqueeze", "input", 1)
    nd = input.ndim
    d = _norm_dim(A.integer(dim, "unsqueeze", "dim", 1), nd + 1)
    shp = input._data.shape
    return apply(OPS["unsqueeze"], (input,), {"shape": shp[:d] + (1,) + shp[d:], "in_shape": shp})


def squeeze(input: Tensor, dim=None) -> Tensor:
    input = A.tensor(input, "squeeze", "input", 1)
    shp = input._data.shape
    if dim is None:
        return apply(OPS["squeeze"], (input,), {"shape": tuple(s for s in shp if s != 1), "in_shape": shp})
    if type(dim) in (tuple, list):
        ds = {_norm_dim(d, input.ndim) for d in A.ints(dim, "squeeze", "dim", 1)}
        new = tuple(n for i, n in enumerate(shp) if not (i in ds and n == 1))
        return apply(OPS["squeeze_tuple"], (input,), {"shape": new, "in_shape": shp})
    d = _norm_dim(dim, input.ndim)
    new = shp[:d] + shp[d + 1:] if input.ndim and shp[d] == 1 else shp
    return apply(OPS["squeeze_dim"], (input,), {"shape": new, "in_shape": shp})


def expand(input: Tensor, *sizes) -> Tensor:
    input = A.tensor(input, "expand", "input", 1)
    sizes = A.shape_args(sizes, "expand", "size")
    shp = input._data.shape
    lead = len(sizes) - len(shp)
    new = tuple(shp[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(sizes))
    return apply(OPS["expand"], (input,), {"shape": new, "in_shape": shp})


# ---- copies and dtypes -----------------------------------------------------------------------------
def clone(input: Tensor) -> Tensor:
    return apply(OPS["clone"], (A.tensor(input, "clone", "input", 1),))


def to(input: Tensor, dtype=None, *args, **kwargs) -> Tensor:
    """Convert to ``dtype`` (a no-op returning ``input`` when it already has it); a device name
    (``.to("cpu")``) is ignored, another tensor gives its dtype."""
    input = A.tensor(input, "to", "input", 1)
    if type(dtype) is str:  # .to("cpu")
        dtype = kwargs.get("dtype")
    elif isinstance(dtype, Tensor):
        dtype = dtype.dtype
    dtype = A.dtype(dtype, "to")
    if dtype is None:
        return input
    if input._data.dtype == dtype.np:
        return input
    return apply(OPS["to_copy"], (input,), {"dtype": dtype.np})


# ---- comparisons (not differentiable: plain bool tensors) ---------------------------------------------
def _operands(fn: str, input, other):
    """The arrays of a comparison or a logical/bitwise op (tensor or number operands), after the
    result's size is checked; None when ``other`` is not a tensor or a number."""
    a = A.tensor(input, fn, "input", 1)._data
    if isinstance(other, Tensor):
        b = other._data
    elif A.is_number(other) or A.kind(other) is A.ARRAY:
        b = other
    else:
        return None
    if isinstance(b, np.ndarray) and a.shape != b.shape:
        limits.check_shape(np.broadcast_shapes(a.shape, b.shape))
    return a, b


def _elementwise(fn: str, ufunc):
    def f(input, other) -> Tensor:
        ab = _operands(fn, input, other)
        if ab is None:
            raise TypeError(A.must(fn, "other", 2, "Tensor", other))
        return Tensor._make(np.asarray(ufunc(*ab)))

    f.__name__ = f.__qualname__ = fn
    return f


def _reflected(f):
    """The operator form of ``f``: NotImplemented for operands that are not tensors, numbers or
    numeric arrays, so Python falls back as it does with torch (``t == "a"`` is False, ``t < "a"``
    a TypeError)."""
    def op(self, other):
        if not (isinstance(other, Tensor) or A.is_number(other) or A.kind(other) is A.ARRAY):
            return NotImplemented
        return f(self, other)

    return op


def _contains(self: Tensor, element) -> bool:
    """``element in t``: whether any element equals it (tensors and numbers only, as in torch)."""
    if not (isinstance(element, Tensor) or A.is_number(element)):
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{A.type_name(element)}.")
    return bool(np.any(eq(self, element)._data))


eq, ne, lt, le, gt, ge = (_elementwise(n, u) for n, u in (
    ("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
    ("ge", np.greater_equal)))
logical_and = _elementwise("logical_and", np.logical_and)
logical_or = _elementwise("logical_or", np.logical_or)
_bitwise_and = _elementwise("bitwise_and", np.bitwise_and)
_bitwise_or = _elementwise("bitwise_or", np.bitwise_or)


def logical_not(input) -> Tensor:
    return Tensor._make(np.logical_not(A.tensor(input, "logical_not", "input", 1)._data))


# ---- in place ---------------------------------------------------------------------------------------------
def _inplace(name: str):
    def f(self: Tensor, other, *, alpha=1) -> Tensor:
        o = _t(other, self, name + "_", "other", 1)
        if not (type(alpha) is int and alpha == 1):
            alpha = A.number(alpha, name + "_", "alpha")
            if alpha != 1:
                return apply_inplace(OPS[name + "_alpha"], self, (o,), {"alpha": alpha})
        return apply_inplace(OPS[name], self, (o,))

    f.__name__ = f.__qualname__ = name + "_"
    return f


def _inplace_operator(name: str):
    f = _inplace(name)

    def op(self: Tensor, other) -> Tensor:
        if not (isinstance(other, Tensor) or A.is_number(other) or A.kind(other) is A.ARRAY):
            return NotImplemented
        return f(self, other)

    return op


# ---- the Tensor's methods and operators -------------------------------------------------------------
def _tensor_only(f):
    def op(self, other):
        return f(self, other) if isinstance(other, Tensor) else NotImplemented

    return op


def _attach() -> None:
    T = Tensor
    T.__add__ = _operator("add")
    T.__radd__ = T.__add__
    T.__sub__ = _operator("sub")
    T.__rsub__ = _reflected(lambda self, o: rsub(self, o))
    T.__mul__ = _operator("mul")
    T.__rmul__ = T.__mul__
    T.__truediv__ = _operator("div")
    T.__rtruediv__ = _reflected(lambda self, o: mul(reciprocal(self), o))
    T.__pow__ = _reflected(lambda self, o: pow(self, o))
    T.__rpow__ = _reflected(lambda self, o: pow(o, self))
    T.__neg__ = lambda self: neg(self)
    T.__pos__ = lambda self: self
    T.__abs__ = lambda self: abs(self)
    T.__matmul__ = _tensor_only(lambda self, o: matmul(self, o))
    T.__rmatmul__ = _tensor_only(lambda self, o: matmul(o, self))
    T.__eq__ = _reflected(eq)
    T.__ne__ = _reflected(ne)
    T.__lt__ = _reflected(lt)
    T.__le__ = _reflected(le)
    T.__gt__ = _reflected(gt)
    T.__ge__ = _reflected(ge)
    T.__and__ = T.__rand__ = _reflected(lambda self, o: logical_and(self, o) if self._data.dtype == np.bool_
                                        else _bitwise_and(self, o))
    T.__or__ = T.__ror__ = _reflected(lambda self, o: logical_or(self, o) if self._data.dtype == np.bool_
                                      else _bitwise_or(self, o))
    T.__contains__ = _contains
    T.__invert__ = lambda self: logical_not(self) if self._data.dtype == np.bool_ else \
        Tensor._make(np.invert(self._data))
    T.__iadd__ = _inplace_operator("add")
    T.__isub__ = _inplace_operator("sub")
    T.__imul__ = _inplace_operator("mul")
    T.__itruediv__ = _inplace_operator("div")

    for name in ("add", "sub", "mul", "div", "pow", "exp", "log", "sqrt", "abs", "sin", "cos", "tanh",
                 "sigmoid", "relu", "neg", "reciprocal", "sum", "mean", "matmul", "mm", "reshape", "view",
                 "flatten", "transpose", "t", "permute", "unsqueeze", "squeeze", "expand", "clone", "to",
                 "eq", "ne", "lt", "le", "gt", "ge", "true_divide"):
        setattr(T, name, globals()[name])
    T.softmax = softmax
    T.log_softmax = log_softmax
    T.T = property(_T)
    T.mT = property(lambda self: transpose(self, -2, -1))
    T.add_ = _inplace("add")
    T.sub_ = _inplace("sub")
    T.mul_ = _inplace("mul")
    T.div_ = _inplace("div")
    T.float = lambda self: to(self, dtypes.float32)
    T.double = lambda self: to(self, dtypes.float64)
    T.long = lambda self: to(self, dtypes.int64)
    T.int = lambda self: to(self, dtypes.int32)
    T.bool = lambda self: to(self, dtypes.bool_)
    T.type = lambda self, dtype=None: self.dtype._type_desc if dtype is None else to(self, dtype)


_attach()


def where(condition, input=None, other=None) -> Tensor:
    """Elementwise choice: ``input`` where ``condition`` holds, ``other`` elsewhere."""
    if input is None and other is None:
        raise RuntimeError("where(condition) with one argument is not supported by gradviz")
    cond = A.tensor(condition, "where", "condition", 1)
    if cond._data.dtype == np.uint8:
        cond = Tensor._make(cond._data.astype(np.bool_))
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{cond.dtype.name.capitalize()}")
    like = input if isinstance(input, Tensor) else other
    if not isinstance(like, Tensor):
        raise TypeError(A.must("where", "input", 2, "Tensor", input))
    a, b = _t(input, like, "where", "input", 2), _t(other, like, "where", "other", 3)
    if a._data.dtype != b._data.dtype:
        from ..dispatch import _cast, promote_types

        target = promote_types((a, b))
        a = a if a._data.dtype == target else _cast(a, target)
        b = b if b._data.dtype == target else _cast(b, target)
    return apply(OPS["where"], (a, b, cond))


# Indexing and the ops of api_extra attach themselves to Tensor here, after the basics above.
Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem

"""The public op functions (``torch.add``, ``torch.exp``, ...) and the Tensor methods and
operators built on them. Each function checks its arguments the way PyTorch does, then runs
one table entry through ``dispatch.apply``."""

from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes
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


def _t(x, like: Tensor) -> Tensor:
    return x if isinstance(x, Tensor) else as_tensor_like(x, like)


def _is_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


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
        a = as_tensor_like(a, b)
    if not isinstance(b, Tensor):
        b = as_tensor_like(b, a)
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
        sa, sb = self._data.shape, other._data.shape
        if sa != sb and sa and sb:
            _broadcast_check(self, other)
        return apply(op, (self, other))

    operator.__name__ = f"__{name}__"
    return operator


# ---- arithmetic -------------------------------------------------------------------------
def add(input, other, *, alpha=1) -> Tensor:
    """input + alpha * other, with broadcasting."""
    if alpha != 1:
        a, b = _t(input, other), _t(other, input)
        _broadcast_check(a, b)
        return apply(OPS["add_alpha"], (a, b), {"alpha": alpha})
    return _binary("add", input, other)


def sub(input, other, *, alpha=1) -> Tensor:
    """input - alpha * other, with broadcasting."""
    if alpha != 1:
        a, b = _t(input, other), _t(other, input)
        _broadcast_check(a, b)
        return apply(OPS["sub_alpha"], (a, b), {"alpha": alpha})
    if not isinstance(input, Tensor):
        return rsub(other, input)
    return _binary("sub", input, other)


def rsub(input: Tensor, other) -> Tensor:
    """other - input (``number - tensor``: RsubBackward1)."""
    if _is_number(other):
        return apply(OPS["rsub_scalar"], (input,), {"other": other})
    return _binary("sub", other, input)


def mul(input, other) -> Tensor:
    return _binary("mul", input, other)


def div(input, other, *, rounding_mode=None) -> Tensor:
    if rounding_mode is not None:
        raise RuntimeError("div with rounding_mode is not supported by gradviz")
    if not isinstance(input, Tensor):
        return mul(reciprocal(other), input)
    return _binary("div", input, other)


def true_divide(input, other) -> Tensor:
    return div(input, other)


def reciprocal(input: Tensor) -> Tensor:
    if not input.dtype.is_floating_point:
        input = to(input, dtypes.get_default_dtype())
    return apply(OPS["reciprocal"], (input,))


def neg(input: Tensor) -> Tensor:
    return apply(OPS["neg"], (input,))


def pow(input, exponent) -> Tensor:  # noqa: A001 - torch's name
    """input ** exponent for tensor/number in either position."""
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise TypeError("pow() needs at least one tensor")
        base = input
        ex = exponent if exponent.dtype.is_floating_point or isinstance(base, int) else \
            to(exponent, dtypes.get_default_dtype())
        return apply(OPS["rpow_scalar"], (ex,), {"base": base})
    if isinstance(exponent, Tensor):
        return _binary("pow", input, exponent)
    x = input
    if isinstance(exponent, float) and not x.dtype.is_floating_point:
        x = to(x, dtypes.get_default_dtype())
    return apply(OPS["pow_scalar"], (x,), {"exponent": exponent})


def _unary(name: str):
    op = OPS[name]

    def f(input: Tensor) -> Tensor:
        if not input._data.dtype.kind == "f":
            input = to(input, dtypes.get_default_dtype())
        return apply(op, (input,))

    f.__name__ = name
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
    return apply(OPS["abs"], (input,))


def relu(input: Tensor) -> Tensor:
    return apply(OPS["relu"], (input,))


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return apply(OPS["leaky_relu"], (input,), {"negative_slope": negative_slope})


def _softmax_input(input: Tensor, dtype, kernel: str) -> Tensor:
    if dtype is not None:
        return to(input, dtype)
    if not input.dtype.is_floating_point:
        scalar = input.dtype._type_desc[len("torch."):-len("Tensor")]  # torch's ScalarType name, e.g. Long
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar}\'')
    return input


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / Σ exp(x) along ``dim`` (SoftmaxBackward0)."""
    input = _softmax_input(input, dtype, "softmax_lastdim_kernel_impl")
    return apply(OPS["softmax"], (input,), {"dim": _norm_dim(dim, input.ndim)})


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """x − log Σ exp(x) along ``dim`` (LogSoftmaxBackward0)."""
    input = _softmax_input(input, dtype, "log_softmax_lastdim_kernel_impl")
    return apply(OPS["log_softmax"], (input,), {"dim": _norm_dim(dim, input.ndim)})


# ---- reductions ---------------------------------------------------------------------------
def _dims(dim, ndim: int) -> tuple[int, ...]:
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(sorted(_norm_dim(d, ndim) for d in dim))
    return dims if ndim else ()  # a 0-dim tensor accepts dim 0 / -1 and has nothing to reduce


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    """Sum of all elements, or along ``dim`` (an int or a tuple)."""
    if dtype is not None:
        input = to(input, dtype)
    elif input._data.dtype.kind in "biu":
        input = to(input, dtypes.int64)
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["sum"], (input,), {"shape": shape})
    params = {"shape": shape, "dim": _dims(dim, input.ndim), "keepdim": keepdim}
    return apply(OPS["sum_dim"], (input,), params)


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements, or along ``dim``."""
    if dtype is not None:
        input = to(input, dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {input.dtype.name.capitalize()}")
    shape = tuple(input._data.shape)
    if dim is None:
        return apply(OPS["mean"], (input,), {"shape": shape})
    params = {"shape": shape, "dim": _dims(dim, input.ndim), "keepdim": keepdim}
    return apply(OPS["mean_dim"], (input,), params)


# ---- matrix products -------------------------------------------------------------------------
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``@``: dot (1-D·1-D), mv (2-D·1-D), mm (2-D·2-D), batched otherwise, as torch dispatches."""
    a, b = input, other
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
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_check(input.shape, mat2.shape)
    return apply(OPS["mm"], (input, mat2))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    _mm_check(mat1._data.shape, mat2._data.shape)
    return apply(OPS["addmm"], (input, mat1, mat2))


# ---- shapes -------------------------------------------------------------------------------------
def _infer_shape(shape, numel: int) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
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
    new = _infer_shape(shape, input._data.size)
    return apply(OPS["view"], (input,), {"shape": new, "in_shape": tuple(input._data.shape)})


def view(input: Tensor, *shape) -> Tensor:
    return reshape(input, *shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
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
    nd = input.ndim
    perm = list(range(nd))
    d0, d1 = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return apply(OPS["transpose"], (input,), {"perm": tuple(perm)})


_T_PERM = {0: (), 1: (0,), 2: (1, 0)}


def t(input: Tensor) -> Tensor:
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return apply(OPS["t"], (input,), {"perm": _T_PERM[nd]})


def permute(input: Tensor, *dims) -> Tensor:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
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
    nd = input.ndim
    d = _norm_dim(dim, nd + 1)
    shp = input._data.shape
    return apply(OPS["unsqueeze"], (input,), {"shape": shp[:d] + (1,) + shp[d:], "in_shape": shp})


def squeeze(input: Tensor, dim=None) -> Tensor:
    shp = input._data.shape
    if dim is None:
        return apply(OPS["squeeze"], (input,), {"shape": tuple(s for s in shp if s != 1), "in_shape": shp})
    if isinstance(dim, (tuple, list)):
        ds = {_norm_dim(d, input.ndim) for d in dim}
        new = tuple(n for i, n in enumerate(shp) if not (i in ds and n == 1))
        return apply(OPS["squeeze_tuple"], (input,), {"shape": new, "in_shape": shp})
    d = _norm_dim(dim, input.ndim)
    new = shp[:d] + shp[d + 1:] if input.ndim and shp[d] == 1 else shp
    return apply(OPS["squeeze_dim"], (input,), {"shape": new, "in_shape": shp})


def expand(input: Tensor, *sizes) -> Tensor:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    shp = input._data.shape
    lead = len(sizes) - len(shp)
    new = tuple(shp[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(sizes))
    return apply(OPS["expand"], (input,), {"shape": new, "in_shape": shp})


# ---- copies and dtypes -----------------------------------------------------------------------------
def clone(input: Tensor) -> Tensor:
    return apply(OPS["clone"], (input,))


def to(input: Tensor, dtype=None, *args, **kwargs) -> Tensor:
    """Convert to ``dtype`` (a no-op returning ``input`` when it already has it)."""
    if isinstance(dtype, str):  # .to("cpu")
        dtype = kwargs.get("dtype")
    if dtype is None:
        return input
    if input._data.dtype == dtype.np:
        return input
    return apply(OPS["to_copy"], (input,), {"dtype": dtype.np})


# ---- comparisons (not differentiable: plain bool tensors) ---------------------------------------------
def _compare(ufunc):
    def f(input, other) -> Tensor:
        a = input._data if isinstance(input, Tensor) else input
        b = other._data if isinstance(other, Tensor) else other
        return Tensor._make(np.asarray(ufunc(a, b)))

    return f


eq, ne, lt, le, gt, ge = (_compare(u) for u in (np.equal, np.not_equal, np.less, np.less_equal,
                                                 np.greater, np.greater_equal))


def logical_and(input, other) -> Tensor:
    return Tensor._make(np.logical_and(_raw(input), _raw(other)))


def logical_or(input, other) -> Tensor:
    return Tensor._make(np.logical_or(_raw(input), _raw(other)))


def logical_not(input) -> Tensor:
    return Tensor._make(np.logical_not(_raw(input)))


def _raw(x):
    return x._data if isinstance(x, Tensor) else x


# ---- in place ---------------------------------------------------------------------------------------------
def _inplace(name: str):
    def f(self: Tensor, other, *, alpha=1) -> Tensor:
        o = _t(other, self)
        if alpha != 1:
            return apply_inplace(OPS[name + "_alpha"], self, (o,), {"alpha": alpha})
        return apply_inplace(OPS[name], self, (o,))

    return f


# ---- the Tensor's methods and operators -------------------------------------------------------------
def _attach() -> None:
    T = Tensor
    T.__add__ = _operator("add")
    T.__radd__ = T.__add__
    T.__sub__ = _operator("sub")
    T.__rsub__ = lambda self, o: rsub(self, o)
    T.__mul__ = _operator("mul")
    T.__rmul__ = T.__mul__
    T.__truediv__ = _operator("div")
    T.__rtruediv__ = lambda self, o: mul(reciprocal(self), o)
    T.__pow__ = lambda self, o: pow(self, o)
    T.__rpow__ = lambda self, o: pow(o, self)
    T.__neg__ = lambda self: neg(self)
    T.__pos__ = lambda self: self
    T.__abs__ = lambda self: abs(self)
    T.__matmul__ = lambda self, o: matmul(self, o)
    T.__rmatmul__ = lambda self, o: matmul(o, self)
    T.__eq__ = lambda self, o: eq(self, o)
    T.__ne__ = lambda self, o: ne(self, o)
    T.__lt__ = lambda self, o: lt(self, o)
    T.__le__ = lambda self, o: le(self, o)
    T.__gt__ = lambda self, o: gt(self, o)
    T.__ge__ = lambda self, o: ge(self, o)
    T.__and__ = lambda self, o: logical_and(self, o) if self._data.dtype == np.bool_ else \
        Tensor._make(np.bitwise_and(self._data, _raw(o)))
    T.__or__ = lambda self, o: logical_or(self, o) if self._data.dtype == np.bool_ else \
        Tensor._make(np.bitwise_or(self._data, _raw(o)))
    T.__invert__ = lambda self: logical_not(self) if self._data.dtype == np.bool_ else \
        Tensor._make(np.invert(self._data))
    T.__iadd__ = lambda self, o: _inplace("add")(self, o)
    T.__isub__ = lambda self, o: _inplace("sub")(self, o)
    T.__imul__ = lambda self, o: _inplace("mul")(self, o)
    T.__itruediv__ = lambda self, o: _inplace("div")(self, o)

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
    cond = condition if isinstance(condition, Tensor) else Tensor._make(np.asarray(condition))
    if cond._data.dtype == np.uint8:
        cond = Tensor._make(cond._data.astype(np.bool_))
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{cond.dtype.name.capitalize()}")
    like = input if isinstance(input, Tensor) else other
    a, b = _t(input, like), _t(other, like)
    if a._data.dtype != b._data.dtype:
        from ..dispatch import _cast, promote_types

        target = promote_types((a, b))
        a = a if a._data.dtype == target else _cast(a, target)
        b = b if b._data.dtype == target else _cast(b, target)
    return apply(OPS["where"], (a, b, cond))


# Indexing and the ops of api_extra attach themselves to Tensor here, after the basics above.
Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem

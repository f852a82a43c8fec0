"""Shape ops: view/reshape, transpose, permute, unsqueeze, squeeze, expand. Their table entries,
then their public functions and the Tensor's ``T`` and ``mT``."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply
from ..tensor import Tensor, _norm_dim
from .explain import G, permute_back, reshape_back, sum_back, vjp
from .table import OPS, public, register


def inverse_permutation(perm):
    """The permutation that undoes ``permute(perm)``."""
    if len(perm) <= 2:  # t(): every permutation of at most two dims is its own inverse
        return perm
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def _reshape_back(g, s):
    return s.xp.reshape(g, s.p["in_shape"])


def _reshape_tangent(t, s):
    return s.xp.reshape(t, s.p["shape"])


def _unsqueeze_back(g, s):  # PyTorch's squeeze(dim) of the gradient (a reshape on arrays)
    return s.xp.squeeze_to(g, s.p["in_shape"])


def _squeeze_back(g, s):  # PyTorch's unsqueeze_to: the removed dims put back one by one
    return s.xp.unsqueeze_to(g, s.p["in_shape"])


def _reshape_op(name: str, grad_fn: str, formula: str, description: str, about_zh: str,
                view: bool = True, back=_reshape_back) -> None:
    """An op that only changes the shape: forward reshapes, backward reshapes the gradient back
    (``back``: as PyTorch's formula does it, which a create_graph pass records), forward mode
    reshapes the tangent the same way."""
    register(name, grad_fn, lambda a, shape, in_shape: a.reshape(shape), [back], [formula],
             view=view, description=description, jvps=[_reshape_tangent],
             jvp_formulas=["ẋ reshaped like the output"],
             explain=vjp("{0}.reshape{shape}", about_zh, reshape_back(G)))


_reshape_op("view", "ViewBackward0", "reshape back to the input's shape", "view / reshape",
            "改变形状（view / reshape），数据不变")
_reshape_op("unsafe_view", "UnsafeViewBackward0", "reshape back to the input's shape",
            "reshape of a fresh result", "把新算出的结果改成另一个形状", view=False)
_reshape_op("reshape_alias", "ReshapeAliasBackward0", "reshape back to the input's shape",
            "reshape of a non-contiguous tensor whose strides allow it (a view)",
            "改变一个不连续张量的形状（步长允许时为视图）")
_reshape_op("unsqueeze", "UnsqueezeBackward0", "squeeze the inserted dim", "insert a dim of size 1",
            "插入一个大小为 1 的维度", back=_unsqueeze_back)
_reshape_op("squeeze", "SqueezeBackward0", "unsqueeze the removed dims", "remove dims of size 1",
            "去掉大小为 1 的维度", back=_squeeze_back)
_reshape_op("squeeze_dim", "SqueezeBackward1", "unsqueeze the removed dim", "remove one dim of size 1",
            "去掉一个大小为 1 的维度", back=_squeeze_back)
_reshape_op("squeeze_tuple", "SqueezeBackward2", "unsqueeze the removed dims",
            "remove the listed dims of size 1", "去掉列出的大小为 1 的维度", back=_squeeze_back)
_reshape_op("squeeze_dims", "SqueezeBackward4", "unsqueeze the removed dims",
            "remove dims of size 1 (squeeze_ in matmul and F.linear)",
            "去掉大小为 1 的维度（matmul 与 F.linear 内部的 squeeze_）", back=_squeeze_back)


def _permute_back(g, s):
    return s.xp.transpose(g, inverse_permutation(s.p["perm"]))


def _permute_tangent(t, s):
    return s.xp.transpose(t, s.p["perm"])


def _permute_op(name: str, grad_fn: str, formula: str, description: str, forward: str, about_zh: str) -> None:
    """An op that reorders dims: forward permutes, backward applies the inverse permutation,
    forward mode permutes the tangent the same way."""
    register(name, grad_fn, lambda a, perm: a.transpose(perm), [_permute_back], [formula], view=True,
             description=description, jvps=[_permute_tangent],
             jvp_formulas=["ẋ with its dims permuted the same way"],
             explain=vjp(forward, about_zh, permute_back(G)))


_permute_op("transpose", "TransposeBackward0", "swap the two dims back", "transpose", "{0}.permute{perm}",
            "交换两个维度（转置）")
_permute_op("t", "TBackward0", "transpose back", "matrix transpose", "{0}ᵀ", "矩阵转置")
_permute_op("permute", "PermuteBackward0", "permute back by the inverse permutation", "permute dims",
            "{0}.permute{perm}", "重新排列维度")
register(
    "expand",
    "ExpandBackward0",
    lambda a, shape, in_shape: np.broadcast_to(a, shape),
    [lambda g, s: s.xp.sum_to(g, s.p["in_shape"])],
    ["sum over the expanded dims"],
    view=True,
    description="broadcast to a larger shape",
    jvps=[lambda t, s: s.xp.broadcast_to(t, s.p["shape"])],
    jvp_formulas=["ẋ broadcast to the larger shape"],
    explain=vjp("{0}.expand{shape}", "广播（扩展）到更大的形状", sum_back(G)),
)


# ---- functions -----------------------------------------------------------------------------------------
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


VIEW_STRIDES = ("view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use .reshape(...) instead.")


def viewable(arr: np.ndarray, shape: tuple) -> bool:
    """Whether ``arr`` can take ``shape`` without moving its data (PyTorch's rule for ``view``: the
    new dims must fit the strides; NumPy's no-copy reshape decides the same way)."""
    try:
        arr.reshape(shape, copy=False)
    except ValueError:
        return False
    return True


@public("torch", "Tensor")
def reshape(input: Tensor, *shape) -> Tensor:
    """A tensor with the same data and a new shape, as PyTorch makes it: a view of a contiguous
    tensor (ViewBackward0), a strided alias of a non-contiguous one whose strides allow it
    (ReshapeAliasBackward0), else a contiguous copy viewed (CloneBackward0, UnsafeViewBackward0)."""
    input = A.tensor(input, "reshape", "input", 1)
    new = _infer_shape(shape, input._data.size)
    in_shape = tuple(input._data.shape)
    if input._data.flags.c_contiguous:
        return apply(OPS["view"], (input,), {"shape": new, "in_shape": in_shape})
    if viewable(input._data, new):
        return apply(OPS["reshape_alias"], (input,), {"shape": new, "in_shape": in_shape})
    copy = apply(OPS["clone"], (input,), {"contiguous": True})
    return apply(OPS["unsafe_view"], (copy,), {"shape": new, "in_shape": in_shape})


@public("Tensor")
def view(input: Tensor, *shape) -> Tensor:
    """The same data with a new shape (ViewBackward0); PyTorch's error when the strides do not allow
    it (a transposed tensor: use ``reshape`` or ``contiguous()`` first)."""
    input = A.tensor(input, "view", "input", 1)
    new = _infer_shape(shape, input._data.size, "view")
    if not viewable(input._data, new):
        raise RuntimeError(VIEW_STRIDES)
    return apply(OPS["view"], (input,), {"shape": new, "in_shape": tuple(input._data.shape)})


@public("Tensor")
def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.shape)``."""
    return view(A.tensor(input, "view_as", "input", 1), tuple(A.tensor(other, "view_as", "other", 2).shape))


@public("Tensor")
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.reshape(other.shape)``."""
    return reshape(A.tensor(input, "reshape_as", "input", 1),
                   tuple(A.tensor(other, "reshape_as", "other", 2).shape))


@public("Tensor")
def is_contiguous(input: Tensor, memory_format=None) -> bool:
    """Whether the elements lie in memory in row-major order without gaps."""
    return bool(A.tensor(input, "is_contiguous", "input", 1)._data.flags.c_contiguous)


@public("Tensor")
def contiguous(input: Tensor, memory_format=None) -> Tensor:
    """``input`` itself when contiguous, else a row-major copy (CloneBackward0)."""
    input = A.tensor(input, "contiguous", "input", 1)
    if input._data.flags.c_contiguous:
        return input
    return apply(OPS["clone"], (input,), {"contiguous": True})


@public("torch", "Tensor")
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dims ``start_dim`` to ``end_dim`` merged into one."""
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


@public("torch", "Tensor")
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Dims ``dim0`` and ``dim1`` swapped (TransposeBackward0)."""
    input = A.tensor(input, "transpose", "input", 1)
    d0 = A.integer(dim0, "transpose", "dim0", 1)
    d1 = A.integer(dim1, "transpose", "dim1", 2)
    nd = input.ndim
    perm = list(range(nd))
    d0, d1 = _norm_dim(d0, nd), _norm_dim(d1, nd)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return apply(OPS["transpose"], (input,), {"perm": tuple(perm)})


_T_PERM = {0: (), 1: (0,), 2: (1, 0)}


@public("torch", "Tensor")
def t(input: Tensor) -> Tensor:
    """The transpose of a matrix (a vector or a number is returned as it is) (TBackward0)."""
    nd = A.tensor(input, "t", "input", 1)._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return apply(OPS["t"], (input,), {"perm": _T_PERM[nd]})


@public("torch", "Tensor")
def permute(input: Tensor, *dims) -> Tensor:
    """The dims reordered (PermuteBackward0)."""
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


public("Tensor", name="T")(property(
    lambda self: apply(OPS["permute"], (self,), {"perm": tuple(reversed(range(self.ndim)))}),
    doc="All dims reversed (PermuteBackward0)."))
public("Tensor", name="mT")(property(lambda self: transpose(self, -2, -1), doc="The last two dims swapped."))


@public("torch", "Tensor")
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """A dim of size 1 inserted at ``dim`` (UnsqueezeBackward0)."""
    input = A.tensor(input, "unsqueeze", "input", 1)
    nd = input.ndim
    d = _norm_dim(A.integer(dim, "unsqueeze", "dim", 1), nd + 1)
    shp = input._data.shape
    return apply(OPS["unsqueeze"], (input,), {"shape": shp[:d] + (1,) + shp[d:], "in_shape": shp})


@public("torch", "Tensor")
def squeeze(input: Tensor, dim=None) -> Tensor:
    """Dims of size 1 removed (all, one, or those listed)."""
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


@public("Tensor")
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.expand(other.shape)``."""
    return expand(A.tensor(input, "expand_as", "input", 1),
                  tuple(A.tensor(other, "expand_as", "other", 2).shape))


@public("Tensor")
def expand(input: Tensor, *sizes) -> Tensor:
    """A broadcast view of ``input`` at a larger shape (-1 keeps a dim) (ExpandBackward0)."""
    input = A.tensor(input, "expand", "input", 1)
    sizes = A.shape_args(sizes, "expand", "size")
    shp = input._data.shape
    lead = len(sizes) - len(shp)
    new = tuple(shp[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(sizes))
    for i, s in enumerate(sizes):
        if i < lead and s == -1:
            raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a leading, "
                               f"non-existing dimension {i}")
        if i >= lead and s != -1 and shp[i - lead] not in (1, s):
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({shp[i - lead]}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shp)}")
    return apply(OPS["expand"], (input,), {"shape": new, "in_shape": shp})

"""Reading and writing along a dim by index tensors: index_select, gather, scatter, diag, and the
ordering ops topk, sort and argsort. Their table entries, then their public functions.

Every read here is an advanced index of its input (``x[key]``, the key kept encoded in the op's
params, as ``engine.ops.indexing`` keeps its keys): ``gather(x, 1, i)`` is ``x[rows, i]``,
``diag(m)`` is ``m[r, c]``, the values of ``topk`` are ``x`` gathered at its indices. So their
backward is the one "put the gradient back where it was read, repeats adding up" of indexing
(``xp.scatter_add``), their forward mode picks the tangent at the same key, and the page explains
them with the same words (``place``, ``pick``, ``unless_written``).
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply, apply_inplace
from ..errors import not_supported
from ..tensor import Tensor, _norm_dim
from .explain import G, pick, place, unless_written, vjp
from .indexing import _put_self_vjp, _put_values_jvp, _put_values_vjp
from .keys import decode_key, encode_key
from .reduce import _ReturnType
from .table import OPS, public, register

_FULL = slice(None)


def _read_op(name: str, grad_fn: str, description: str, forward: str, about_zh: str) -> None:
    """An op whose output is its input at an index key: backward puts the gradient back there."""
    register(name, grad_fn, lambda a, key, in_shape, **_: a[decode_key(key)],
             [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], decode_key(s.p["key"]))],
             ["∂x[idx]/∂x: each position read gets its gradient (repeats add up)"],
             saves=("indices",), description=description,
             jvps=[lambda t, s: s.xp.getitem(t, decode_key(s.p["key"]))],
             jvp_formulas=["ẋ at the same indices"],
             explain=vjp(forward, about_zh, place(G)))


_read_op("index_select", "IndexSelectBackward0", "the entries at the listed indices along a dim",
         "{0}.index_select({dim}, idx)", "沿一个维度取出所列下标处的切片")
_read_op("gather", "GatherBackward0", "out[i][j] = x[i][index[i][j]] along a dim",
         "{0}.gather({dim}, idx)", "沿一个维度按下标张量逐个取值")
_read_op("diagonal", "DiagonalBackward0_copy", "the diagonal of a matrix (diag)", "diag({0}, {diagonal})",
         "取矩阵的对角线（diag）")
_read_op("topk", "TopkBackward0", "the k largest (or smallest) entries along a dim",
         "{0}.topk({k}, dim={dim})", "沿一个维度取最大（或最小）的 k 个元素")
_read_op("sort", "SortBackward0", "the entries sorted along a dim", "{0}.sort(dim={dim})", "沿一个维度排序")


def _embed(a, key, shape, **_):
    out = np.zeros(shape, dtype=a.dtype)
    out[decode_key(key)] = a
    return out


register("diag_embed", "DiagEmbedBackward0", _embed,
         [lambda g, s: s.xp.getitem(g, decode_key(s.p["key"]))],
         ["∂diag(v)/∂v = 1 on the diagonal"], description="a square matrix with the vector on a diagonal",
         jvps=[lambda t, s: _embed(s.xp.data(t), s.p["key"], s.p["shape"])],
         jvp_formulas=["v̇ on the same diagonal"],
         explain=vjp("diag({0}, {diagonal})", "以向量为对角线构造方阵", pick(G)))


def _scatter(a, b, key, accumulate, **_):
    out = a.copy()
    out[decode_key(key)] = b
    return out


def _scatter_value(a, key, value, **_):
    out = a.copy()
    out[decode_key(key)] = value
    return out


register("scatter", "ScatterBackward0", _scatter, [_put_self_vjp, _put_values_vjp],
         ["∂/∂x = 1 where nothing was written, 0 where src was", "∂/∂src = 1 where it was written"],
         saves=("indices",), description="x with src written at index along a dim",
         jvps=[_put_self_vjp, _put_values_jvp],
         jvp_formulas=["ẋ where nothing was written", "ṡrc where written"],
         explain=vjp("{0}.scatter({dim}, idx, {1})", "沿一个维度把 src 按下标写入 x",
                     unless_written(G), pick(G)))
register("scatter_value", "ScatterBackward1", _scatter_value, [_put_self_vjp],
         ["∂/∂x = 1 where nothing was written, 0 where the value was"], saves=("indices",),
         description="x with a number written at index along a dim",
         jvps=[_put_self_vjp], jvp_formulas=["ẋ where nothing was written"],
         explain=vjp("{0}.scatter({dim}, idx, {value})", "沿一个维度把一个数按下标写入 x", unless_written(G)))


# ---- keys ----------------------------------------------------------------------------------------------
def along_key(index: np.ndarray, dim: int) -> tuple:
    """The advanced index that reads ``x.gather(dim, index)``: ``index`` on ``dim``, the position itself
    on every other dim."""
    nd = index.ndim
    return tuple(index if d == dim else np.arange(n).reshape([-1 if k == d else 1 for k in range(nd)])
                 for d, n in enumerate(index.shape))


def _index_tensor(index, fn: str, pos: int, dtypes_ok=("int64",)) -> np.ndarray:
    index = A.tensor(index, fn, "index", pos)
    if index._data.dtype.name not in dtypes_ok:
        raise RuntimeError(f"{fn}(): Expected dtype {' or '.join(dtypes_ok)} for index")
    return index._data.astype(np.int64)


def _check_along(fn: str, shape: tuple, index: np.ndarray, dim: int) -> None:
    """torch's checks of a gather/scatter index: as many dims as the input, no larger elsewhere, in range."""
    if index.ndim != max(len(shape), 1) and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, n in enumerate(index.shape):
        if d != dim and n > shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} "
                               f"to be no larger than self {list(shape)} apart from dimension {dim}")
    size = shape[dim] if shape else 1
    bad = (index < 0) | (index >= size)
    if bad.any():
        v = int(index[bad].reshape(-1)[0])
        raise RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {size}")


# ---- functions ------------------------------------------------------------------------------------------
@public("torch", "Tensor")
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` at the listed ``index`` along ``dim`` (IndexSelectBackward0)."""
    input = A.tensor(input, "index_select", "input", 1)
    dim = _norm_dim(A.integer(dim, "index_select", "dim", 2), input.ndim)
    idx = _index_tensor(index, "index_select", 3, ("int32", "int64"))
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    idx = idx.reshape(-1)
    size = input._data.shape[dim] if input.ndim else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        if dim == 0:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
    key = (_FULL,) * dim + (idx,)
    if not input.ndim:
        key = ()
    return apply(OPS["index_select"], (input,), {"key": encode_key(key), "in_shape": tuple(input._data.shape),
                                                 "dim": dim})


@public("torch", "Tensor")
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` for ``dim=1`` (GatherBackward0)."""
    input = A.tensor(input, "gather", "input", 1)
    dim = _norm_dim(A.integer(dim, "gather", "dim", 2), input.ndim)
    idx = _index_tensor(index, "gather", 3, ("int32", "int64"))
    shape = tuple(input._data.shape)
    _check_along("gather", shape, idx, dim)
    key = along_key(idx, dim) if shape else ()
    return apply(OPS["gather"], (input,), {"key": encode_key(key), "in_shape": shape, "dim": dim})


def _scatter_args(fn: str, input, dim, index, src, value, reduce):
    input = A.tensor(input, fn, "input", 1)
    dim = _norm_dim(A.integer(dim, fn, "dim", 2), input.ndim)
    idx = _index_tensor(index, fn, 3)
    if reduce is not None:

        raise not_supported(f"{fn}(reduce=...)")
    shape = tuple(input._data.shape)
    _check_along("scatter", shape, idx, dim)
    key = encode_key(along_key(idx, dim))
    if src is not None and value is None and isinstance(src, Tensor):
        if tuple(src._data.shape) != tuple(idx.shape):

            raise not_supported(f"{fn} with src of another shape than index")
        return input, (src,), {"key": key, "accumulate": False, "dim": dim}
    value = A.number(value if value is not None else src, fn, "value", 4)
    return input, (), {"key": key, "value": value, "accumulate": False, "dim": dim}


@public("torch", "Tensor")
def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """``input`` with ``src`` (a tensor shaped like ``index``, or a number) written at ``index`` along
    ``dim`` (ScatterBackward0 / ScatterBackward1)."""
    input, others, params = _scatter_args("scatter", input, dim, index, src, value, reduce)
    op = OPS["scatter"] if others else OPS["scatter_value"]
    return apply(op, (input, *others), params)


@public("Tensor")
def scatter_(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """``scatter`` in place."""
    input, others, params = _scatter_args("scatter_", input, dim, index, src, value, reduce)
    return apply_inplace(OPS["scatter"] if others else OPS["scatter_value"], input, others, params)


def _diagonal_key(rows: int, cols: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    m = max(min(rows, cols - k) if k >= 0 else min(rows + k, cols), 0)
    r = np.arange(m) + max(-k, 0)
    return r, r + k


@public("torch", "Tensor")
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector's square matrix with it on a diagonal (DiagEmbedBackward0), or a matrix's diagonal
    (DiagonalBackward0_copy); ``diagonal`` above (> 0) or below (< 0) the main one."""
    input = A.tensor(input, "diag", "input", 1)
    k = A.integer(diagonal, "diag", "diagonal", 2)
    shape = tuple(input._data.shape)
    if len(shape) == 1:
        n = shape[0] + abs(k)
        key = encode_key(_diagonal_key(n, n, k))
        return apply(OPS["diag_embed"], (input,), {"key": key, "shape": (n, n), "diagonal": k})
    if len(shape) != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{len(shape)}D")
    key = encode_key(_diagonal_key(*shape, k))
    return apply(OPS["diagonal"], (input,), {"key": key, "in_shape": shape, "diagonal": k})


# ---- ordering ---------------------------------------------------------------------------------------------
TopkResult = type("topk", (_ReturnType,), {"_name": "topk", "__slots__": ()})
SortResult = type("sort", (_ReturnType,), {"_name": "sort", "__slots__": ()})


def _order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Indices that sort ``a`` along ``dim`` (stable; NaN counts as the largest, as torch's sort)."""
    if descending:
        keys = np.where(np.isnan(a), -np.inf, -a) if a.dtype.kind == "f" else -a.astype(np.int64)
        nan_first = np.isnan(a) if a.dtype.kind == "f" else None
        if nan_first is not None and nan_first.any():
            order = np.argsort(keys, axis=dim, kind="stable")
            nans = np.take_along_axis(nan_first, order, axis=dim)
            return np.take_along_axis(order, np.argsort(~nans, axis=dim, kind="stable"), axis=dim)
        return np.argsort(keys, axis=dim, kind="stable")
    return np.argsort(a, axis=dim, kind="stable")


def _ordered(op: str, result, input: Tensor, idx: np.ndarray, dim: int, params: dict):
    shape = tuple(input._data.shape)
    values = apply(OPS[op], (input,), {"key": encode_key(along_key(idx, dim)), "in_shape": shape,
                                       "dim": dim, **params})
    return result(values, Tensor._make(idx.astype(np.int64)))


@public("torch", "Tensor")
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    """(values, indices) sorted along ``dim`` (SortBackward0)."""
    input = A.tensor(input, "sort", "input", 1)
    dim = _norm_dim(A.integer(dim, "sort", "dim", 2), input.ndim)
    descending = A.flag(descending, "sort", "descending")
    A.flag(stable, "sort", "stable")
    idx = _order(input._data, dim, descending) if input.ndim else np.zeros((), np.int64)
    return _ordered("sort", SortResult, input, idx, dim, {})


@public("torch", "Tensor")
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    input = A.tensor(input, "argsort", "input", 1)
    dim = _norm_dim(A.integer(dim, "argsort", "dim", 2), input.ndim)
    descending = A.flag(descending, "argsort", "descending")
    A.flag(stable, "argsort", "stable")
    if not input.ndim:
        return Tensor._make(np.zeros((), np.int64))
    return Tensor._make(_order(input._data, dim, descending).astype(np.int64))


@public("torch", "Tensor")
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """(values, indices) of the ``k`` largest (``largest=False``: smallest) along ``dim``
    (TopkBackward0)."""
    input = A.tensor(input, "topk", "input", 1)
    k = A.integer(k, "topk", "k", 2)
    dim = _norm_dim(A.integer(dim, "topk", "dim", 3), input.ndim)
    largest = A.flag(largest, "topk", "largest")
    A.flag(sorted, "topk", "sorted")
    size = input._data.shape[dim] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if not input.ndim:
        return _ordered("topk", TopkResult, input, np.zeros((), np.int64), dim, {"k": k})
    idx = np.take(_order(input._data, dim, largest), np.arange(k), axis=dim)
    return _ordered("topk", TopkResult, input, idx, dim, {"k": k})

"""The Tensor world of the rules: the same functions as ``table.NP``, built from differentiable
engine ops, so that ``create_graph=True`` records the backward pass as a graph of its own."""

from __future__ import annotations

import numpy as np

from ..dispatch import apply
from ..tensor import Tensor
from .elementwise import cos, exp, log, sin, sqrt, where
from .fused_backward import (
    log_softmax_backward_data,
    mse_loss_backward,
    mul_scalar,
    sigmoid_backward,
    softmax_backward_data,
    tanh_backward,
    threshold_backward,
)
from .indexing import encode_key
from .linalg import matmul
from .reduce import sum as _sum
from .shape import expand, permute, reshape, transpose
from .table import OPS


def _tensor(x, like: Tensor) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor._make(np.asarray(x, dtype=like._data.dtype))


def _removed_dims(full: tuple, short: tuple) -> list:
    """The positions in ``full`` of the size-1 dims that ``short`` (``full`` squeezed) lacks."""
    removed, j, need = [], 0, len(full) - len(short)
    for i, n in enumerate(full):
        if need and n == 1 and (j >= len(short) or short[j] != 1):
            removed.append(i)
            need -= 1
        else:
            j += 1
    return removed


class TX:
    """Differentiable twins of ``NP``'s functions."""

    exp = staticmethod(exp)
    log = staticmethod(log)
    sqrt = staticmethod(sqrt)
    sin = staticmethod(sin)
    cos = staticmethod(cos)
    matmul = staticmethod(matmul)
    tanh_backward = staticmethod(tanh_backward)
    sigmoid_backward = staticmethod(sigmoid_backward)
    threshold_backward = staticmethod(threshold_backward)
    mul_scalar = staticmethod(mul_scalar)
    mse_loss_backward = staticmethod(mse_loss_backward)
    softmax_backward_data = staticmethod(softmax_backward_data)
    log_softmax_backward_data = staticmethod(log_softmax_backward_data)

    @staticmethod
    def sign(x: Tensor) -> Tensor:
        return Tensor._make(np.sign(x._data))  # piecewise constant: no gradient

    @staticmethod
    def where(cond, a, b) -> Tensor:
        like = a if isinstance(a, Tensor) else b
        cond = cond if isinstance(cond, Tensor) else Tensor._make(np.asarray(cond))
        a, b = _tensor(a, like), _tensor(b, like)
        return where(cond, a, b)

    @staticmethod
    def sum(x: Tensor, axis=None, keepdims=False) -> Tensor:
        return _sum(x, axis, keepdims) if axis is not None else _sum(x)

    @staticmethod
    def sum_to(g: Tensor, shape) -> Tensor:
        shape = tuple(shape)
        gs = tuple(g._data.shape)
        if gs == shape:
            return g
        lead = len(gs) - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, n in enumerate(shape) if n == 1 and gs[i + lead] != 1)
        if axes:
            g = _sum(g, axes, True)
        return reshape(g, shape) if tuple(g._data.shape) != shape else g

    @staticmethod
    def broadcast_to(x: Tensor, shape) -> Tensor:
        shape = tuple(shape)
        if tuple(x._data.shape) == shape:
            return x
        if x.ndim < len(shape):
            x = reshape(x, (1,) * (len(shape) - x.ndim) + tuple(x._data.shape))
        return expand(x, shape)

    @staticmethod
    def reshape(x: Tensor, shape) -> Tensor:
        return reshape(x, tuple(shape))

    @staticmethod
    def unsqueeze_to(x: Tensor, shape) -> Tensor:
        """``x`` with the size-1 dims of ``shape`` it lacks put back, one unsqueeze each."""
        shape = tuple(shape)
        for d in _removed_dims(shape, tuple(x._data.shape)):
            have = tuple(x._data.shape)
            x = apply(OPS["unsqueeze"], (x,), {"shape": have[:d] + (1,) + have[d:], "in_shape": have})
        return x

    @staticmethod
    def squeeze_to(x: Tensor, shape) -> Tensor:
        """``x`` with the one size-1 dim that ``shape`` lacks removed (squeeze(dim))."""
        shape, have = tuple(shape), tuple(x._data.shape)
        if len(have) != len(shape) + 1:
            return reshape(x, shape)
        return apply(OPS["squeeze_dim"], (x,), {"shape": shape, "in_shape": have})

    @staticmethod
    def transpose(x: Tensor, axes) -> Tensor:
        return permute(x, tuple(axes))

    @staticmethod
    def const(x, like) -> Tensor:
        return Tensor._make(np.asarray(x, dtype=like.dtype))

    @staticmethod
    def data(x):
        return x._data if isinstance(x, Tensor) else np.asarray(x)

    @staticmethod
    def getitem(x: Tensor, key) -> Tensor:
        return apply(OPS["index"], (x,), {"key": encode_key(key), "in_shape": tuple(x._data.shape)})

    @staticmethod
    def scatter_add(g: Tensor, shape, key) -> Tensor:
        zeros = Tensor._make(np.zeros(tuple(shape), dtype=g._data.dtype))
        return apply(OPS["index_put"], (zeros, g), {"key": encode_key(key), "accumulate": True})

    @staticmethod
    def mT(x: Tensor) -> Tensor:
        if x._data.ndim == 2:  # PyTorch's formulas transpose a matrix with t() (TBackward0)
            return apply(OPS["t"], (x,), {"perm": (1, 0)})
        return transpose(x, -2, -1)

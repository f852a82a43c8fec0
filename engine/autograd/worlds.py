"""The two worlds a backward pass runs its table rules in (engine/autograd/__init__.py chooses one
per pass): ``ArrayWorld``, NumPy arrays and ``NP`` for a first-order pass, and ``TensorWorld``,
engine Tensors and ``TX`` for ``create_graph=True``, where the rules themselves are recorded so
gradients can be differentiated again."""

from __future__ import annotations

from sys import getrefcount

import numpy as np

from .. import tangents as _tangents
from ..dispatch import _cast, apply, apply_inplace
from ..function import Node
from ..ops.table import NP, OPS, Saved, sum_to_shape
from ..ops.tensor_xp import TX
from ..tensor import Tensor

_make = Tensor._make  # bound once: every leaf's .grad of every pass is made here
_NO_PARAMS: dict = {}  # shared, never written: what a rule sees as ``s.p`` for an op without params


class ArrayWorld:
    """A first-order pass: gradients and saved values are NumPy arrays, rules use ``NP``."""

    @staticmethod
    def data(g) -> np.ndarray:
        """The array of gradient ``g`` (``g`` itself)."""
        return g

    @staticmethod
    def saved(fn: Node) -> Saved:
        """What ``fn``'s rules see: its saved arrays, params, extras and ``NP``."""
        s = Saved(NP, fn.params or _NO_PARAMS, fn.extras)
        if fn.op.saves:
            if fn.released:
                fn.checked_saves()  # raises PyTorch's "backward through the graph a second time"
            for key, t, version in fn._saved:  # Node.checked_saves, inline: once per node of every pass
                if t._vc[0] != version:
                    raise fn._modified(key, t, version)
                setattr(s, key, t._data)
        return s

    @staticmethod
    def fit(g, shape: tuple, dtype) -> np.ndarray:
        """A rule's result as the gradient of an input: an array, broadcasting undone, cast."""
        if type(g) is not np.ndarray:
            g = np.asarray(g)
        if g.shape != shape:
            g = sum_to_shape(g, shape)
        if g.dtype is not dtype and g.dtype != dtype:
            g = g.astype(dtype)
        return g

    @staticmethod
    def join(fn, parts: list) -> np.ndarray:
        """The gradient of a multi-output node's whole value from its outputs' (zeros where none
        arrived), as PyTorch's unbind_backward (a stack) and split_backward (a cat) build it."""
        dtype = fn._meta[1]
        arrays = [np.zeros(shape, dtype) if g is None else g for g, shape in zip(parts, fn.piece_shapes())]
        dim = fn.params["dim"]
        return np.stack(arrays, dim) if fn.params["sizes"] is None else np.concatenate(arrays, dim)

    @staticmethod
    def added(before: Tensor | None, g: np.ndarray) -> Tensor:
        """``.grad`` after adding ``g``: before + g, or the first time ``g`` itself when nothing
        else can see it (PyTorch's AccumulateGrad steals it too), else a copy."""
        if before is not None:
            return _make(np.asarray(before._data + g))  # 0-d arrays add up to NumPy scalars
        # References to g while the walk adds it: _execute's, _accumulate's, this call's and
        # getrefcount's argument. One more means a buffer, a capture or a record still holds it.
        if type(g) is np.ndarray and getrefcount(g) == 4 and _own_memory(g):
            return _make(g)
        return _make(np.array(g, copy=True))


def _own_memory(g: np.ndarray) -> bool:
    """Is ``g``'s memory its own (or that of a base only ``g`` holds, as a transposed matmul
    result), writable and compact, so that ``.grad`` may be changed in place?"""
    flags = g.flags
    if not flags.writeable or not (flags.c_contiguous or flags.f_contiguous):
        return False
    base = g.base
    # References to base: ``g``'s, this local's and getrefcount's argument.
    return base is None or (type(base) is np.ndarray and base.base is None and base.size == g.size
                            and getrefcount(base) == 3)


class TensorWorld:
    """A ``create_graph=True`` pass: gradients and saved values are Tensors, rules use ``TX``, so
    every rule is recorded as ops of its own."""

    @staticmethod
    def data(g: Tensor) -> np.ndarray:
        """The array of gradient ``g``."""
        return g._data

    @staticmethod
    def saved(fn: Node) -> Saved:
        """What ``fn``'s rules see: its saved tensors (its own output re-attached to it, see
        ``function._output_alias``), params, extras and ``TX``."""
        s = Saved(TX, fn.params or {}, fn.extras)
        if fn.op.saves:
            for key, t, _ in fn.checked_saves():
                if key == "out":
                    kept, t = t, Tensor._make(t._data, True, t._vc)
                    t._grad_fn = fn
                    if _tangents.ACTIVE is not None:  # forward over reverse: the output's tangent
                        _tangents.ACTIVE.set(t, _tangents.ACTIVE.get(kept))
                setattr(s, key, t)
        return s

    @staticmethod
    def fit(g: Tensor, shape: tuple, dtype) -> Tensor:
        """A rule's result as the gradient of an input: broadcasting undone, cast (both recorded)."""
        g = TX.sum_to(g, shape)
        return g if g._data.dtype == dtype else _cast(g, dtype)

    @staticmethod
    def join(fn, parts: list) -> Tensor:
        """``ArrayWorld.join`` recorded: the outputs' gradients stacked (unbind) or concatenated (split)."""
        dtype = fn._meta[1]
        ts = [Tensor._make(np.zeros(shape, dtype)) if g is None else g
              for g, shape in zip(parts, fn.piece_shapes())]
        dim = fn.params["dim"]
        if fn.params["sizes"] is None:
            return apply(OPS["stack"], tuple(ts), {"dim": dim})
        return apply(OPS["cat"], tuple(ts), {"dim": dim, "sizes": tuple(int(t._data.shape[dim]) for t in ts)})

    @staticmethod
    def added(before: Tensor | None, g: Tensor) -> Tensor:
        """``.grad`` after adding ``g``: the first time a copy of ``g`` that keeps its graph (PyTorch's
        CopyBackwards), else before + g."""
        if before is not None:
            return before + g
        if not g._requires_grad:
            return g
        return apply_inplace(OPS["copy"], Tensor._make(np.zeros_like(g._data)), (g,))

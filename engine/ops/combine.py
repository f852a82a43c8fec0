"""Joining tensors: cat and stack, their table entries (any number of inputs, one rule for all:
the rule for input ``i``, ``s.i``, picks that input's part out of the gradient) and functions.
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply
from ..tensor import Tensor, _norm_dim
from .explain import G, part, vjp
from .table import OPS, public, register

_FULL = slice(None)


def _cat_vjp(g, s):
    dim, sizes = s.p["dim"], s.p["sizes"]
    start = sum(sizes[:s.i])
    return s.xp.getitem(g, (_FULL,) * dim + (slice(start, start + sizes[s.i]),))


def _stack_vjp(g, s):
    return s.xp.getitem(g, (_FULL,) * s.p["dim"] + (s.i, Ellipsis))


def _cat_jvp(t, s):
    """Input ``s.i``'s tangent in its place along ``dim``, zeros elsewhere."""
    dim, sizes = s.p["dim"], s.p["sizes"]
    start = sum(sizes[:s.i])
    z = np.zeros(s.out.shape, dtype=s.out.dtype)
    z[(_FULL,) * dim + (slice(start, start + sizes[s.i]),)] = t
    return z


def _stack_jvp(t, s):
    """Input ``s.i``'s tangent at entry ``i`` along the new dim, zeros elsewhere."""
    z = np.zeros(s.out.shape, dtype=s.out.dtype)
    z[(_FULL,) * s.p["dim"] + (s.i, Ellipsis)] = t
    return z


register("cat", "CatBackward0", lambda *arrays, dim, sizes: np.concatenate(arrays, axis=dim),
         [_cat_vjp], ["∂cat(x₀, x₁, …)/∂xᵢ = the gradient's slice for xᵢ"], promote=True, variadic=True,
         description="join along an existing dim", jvps=[_cat_jvp], jvp_formulas=["cat(ẋ₀, ẋ₁, …)"],
         explain=vjp("torch.cat([{*}], dim={dim})", "沿已有的维度拼接", part(G)))
register("stack", "StackBackward0", lambda *arrays, dim: np.stack(arrays, axis=dim),
         [_stack_vjp], ["∂stack(x₀, x₁, …)/∂xᵢ = the gradient's entry i along dim"], promote=True,
         variadic=True, description="join along a new dim", jvps=[_stack_jvp],
         jvp_formulas=["stack(ẋ₀, ẋ₁, …)"],
         explain=vjp("torch.stack([{*}], dim={dim})", "沿新的维度堆叠", part(G)))


def _seq(tensors, what: str) -> tuple:
    ts = A.tensors(tensors, what)
    if not ts:
        raise RuntimeError(f"{what}(): expected a non-empty list of Tensors")
    return ts


@public("torch")
def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (CatBackward0)."""
    ts = _seq(tensors, "cat")
    dim = A.integer(dim, "cat", "dim", 2)
    for i, t in enumerate(ts):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    first = ts[0]
    d = _norm_dim(dim, first.ndim)
    for i, t in enumerate(ts[1:], 1):
        if t.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}")
        for k in range(first.ndim):
            if k != d and t.shape[k] != first.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {first.shape[k]} "
                    f"but got size {t.shape[k]} for tensor number {i} in the list."
                )
    return apply(OPS["cat"], ts, {"dim": d, "sizes": tuple(int(t._data.shape[d]) for t in ts)})


@public("torch")
def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim (StackBackward0)."""
    ts = _seq(tensors, "stack")
    dim = A.integer(dim, "stack", "dim", 2)
    first = ts[0]
    for i, t in enumerate(ts[1:], 1):
        if t._data.shape != first._data.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first.shape)} at entry 0 and "
                f"{list(t.shape)} at entry {i}"
            )
    d = _norm_dim(dim, first.ndim + 1)
    return apply(OPS["stack"], ts, {"dim": d})

"""Ops of the table that join tensors: cat and stack (any number of inputs, one rule for all).

The rule for input ``i`` (``s.i``) picks that input's part out of the gradient.
"""

from __future__ import annotations

import numpy as np

from .table import register

_FULL = slice(None)


def _cat_vjp(g, s):
    dim, sizes = s.p["dim"], s.p["sizes"]
    start = sum(sizes[:s.i])
    return s.xp.getitem(g, (_FULL,) * dim + (slice(start, start + sizes[s.i]),))


def _stack_vjp(g, s):
    return s.xp.getitem(g, (_FULL,) * s.p["dim"] + (s.i, Ellipsis))


register("cat", "CatBackward0", lambda *arrays, dim, sizes: np.concatenate(arrays, axis=dim),
         [_cat_vjp], ["∂cat(x₀, x₁, …)/∂xᵢ = the gradient's slice for xᵢ"], promote=True, variadic=True,
         description="join along an existing dim")
register("stack", "StackBackward0", lambda *arrays, dim: np.stack(arrays, axis=dim),
         [_stack_vjp], ["∂stack(x₀, x₁, …)/∂xᵢ = the gradient's entry i along dim"], promote=True,
         variadic=True, description="join along a new dim")

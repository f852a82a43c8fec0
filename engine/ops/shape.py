"""Shape ops of the table: view/reshape, transpose, permute, unsqueeze, squeeze, expand."""

from __future__ import annotations

import numpy as np

from .table import register


def _inverse(perm):
    if len(perm) <= 2:  # t(): every permutation of at most two dims is its own inverse
        return perm
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def _reshape_op(name: str, grad_fn: str, formula: str, description: str, view: bool = True) -> None:
    """An op that only changes the shape: forward reshapes, backward reshapes the gradient back."""
    register(name, grad_fn, lambda a, shape, in_shape: a.reshape(shape),
             [lambda g, s: s.xp.reshape(g, s.p["in_shape"])], [formula], view=view, description=description)


_reshape_op("view", "ViewBackward0", "reshape back to the input's shape", "view / reshape")
_reshape_op("unsafe_view", "UnsafeViewBackward0", "reshape back to the input's shape",
            "reshape of a fresh result", view=False)
_reshape_op("unsqueeze", "UnsqueezeBackward0", "squeeze the inserted dim", "insert a dim of size 1")
_reshape_op("squeeze", "SqueezeBackward0", "unsqueeze the removed dims", "remove dims of size 1")
_reshape_op("squeeze_dim", "SqueezeBackward1", "unsqueeze the removed dim", "remove one dim of size 1")
_reshape_op("squeeze_tuple", "SqueezeBackward2", "unsqueeze the removed dims",
            "remove the listed dims of size 1")
_reshape_op("squeeze_dims", "SqueezeBackward4", "unsqueeze the removed dims",
            "remove dims of size 1 (squeeze_ in matmul and F.linear)")


def _permute_op(name: str, grad_fn: str, formula: str, description: str) -> None:
    """An op that reorders dims: forward permutes, backward applies the inverse permutation."""
    register(name, grad_fn, lambda a, perm: a.transpose(perm),
             [lambda g, s: s.xp.transpose(g, _inverse(s.p["perm"]))], [formula], view=True,
             description=description)


_permute_op("transpose", "TransposeBackward0", "swap the two dims back", "transpose")
_permute_op("t", "TBackward0", "transpose back", "matrix transpose")
_permute_op("permute", "PermuteBackward0", "permute back by the inverse permutation", "permute dims")
register(
    "expand",
    "ExpandBackward0",
    lambda a, shape, in_shape: np.broadcast_to(a, shape),
    [lambda g, s: s.xp.sum_to(g, s.p["in_shape"])],
    ["sum over the expanded dims"],
    view=True,
    description="broadcast to a larger shape",
)

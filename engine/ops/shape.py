"""Shape ops of the table: view/reshape, transpose, permute, unsqueeze, squeeze, expand."""

from __future__ import annotations

import numpy as np

from .table import OPS, register


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


register(
    "view",
    "ViewBackward0",
    lambda a, shape, in_shape: a.reshape(shape),
    [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
    ["reshape back to the input's shape"],
    view=True,
    description="view / reshape",
)
register(
    "unsafe_view",
    "UnsafeViewBackward0",
    lambda a, shape, in_shape: a.reshape(shape),
    [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
    ["reshape back to the input's shape"],
    description="reshape of a fresh result",
)
register(
    "transpose",
    "TransposeBackward0",
    lambda a, perm: np.transpose(a, perm),
    [lambda g, s: s.xp.transpose(g, _inverse(s.p["perm"]))],
    ["swap the two dims back"],
    view=True,
    description="transpose",
)
register(
    "t",
    "TBackward0",
    lambda a, perm: np.transpose(a, perm),
    [lambda g, s: s.xp.transpose(g, _inverse(s.p["perm"]))],
    ["transpose back"],
    view=True,
    description="matrix transpose",
)
register(
    "permute",
    "PermuteBackward0",
    lambda a, perm: np.transpose(a, perm),
    [lambda g, s: s.xp.transpose(g, _inverse(s.p["perm"]))],
    ["permute back by the inverse permutation"],
    view=True,
    description="permute dims",
)
register(
    "unsqueeze",
    "UnsqueezeBackward0",
    lambda a, shape, in_shape: a.reshape(shape),
    [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
    ["squeeze the inserted dim"],
    view=True,
    description="insert a dim of size 1",
)
register(
    "squeeze",
    "SqueezeBackward0",
    lambda a, shape, in_shape: a.reshape(shape),
    [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
    ["unsqueeze the removed dims"],
    view=True,
    description="remove dims of size 1",
)
register(
    "squeeze_dim",
    "SqueezeBackward1",
    lambda a, shape, in_shape: a.reshape(shape),
    [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
    ["unsqueeze the removed dim"],
    view=True,
    description="remove one dim of size 1",
)
register(
    "squeeze_tuple",
    "SqueezeBackward2",
    lambda a, shape, in_shape: a.reshape(shape),
    [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
    ["unsqueeze the removed dims"],
    view=True,
    description="remove the listed dims of size 1",
)
if "squeeze_dims" not in OPS:  # engine.ops.nn_ops may have registered the same entry first
    register(
        "squeeze_dims",
        "SqueezeBackward4",
        lambda a, shape, in_shape: a.reshape(shape),
        [lambda g, s: s.xp.reshape(g, s.p["in_shape"])],
        ["unsqueeze the removed dims"],
        view=True,
        description="remove dims of size 1 (squeeze_ in matmul and F.linear)",
    )
register(
    "expand",
    "ExpandBackward0",
    lambda a, shape, in_shape: np.broadcast_to(a, shape),
    [lambda g, s: s.xp.sum_to(g, s.p["in_shape"])],
    ["sum over the expanded dims"],
    view=True,
    description="broadcast to a larger shape",
)

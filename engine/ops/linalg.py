"""Matrix products of the table: mm, mv, dot, batched matmul, addmm (nn.Linear)."""

from __future__ import annotations

import numpy as np

from .table import register


def _mT(xp, x):
    return xp.mT(x)


register(
    "mm",
    "MmBackward0",
    np.matmul,
    [lambda g, s: s.xp.matmul(g, _mT(s.xp, s.b)), lambda g, s: s.xp.matmul(_mT(s.xp, s.a), g)],
    ["∂(A@B)/∂A = G·Bᵀ", "∂(A@B)/∂B = Aᵀ·G"],
    saves=("a", "b"),
    promote=True,
    description="matrix product A @ B",
    needs=(("b",), ("a",)),
)
register(
    "dot",
    "DotBackward0",
    np.dot,
    [lambda g, s: g * s.b, lambda g, s: g * s.a],
    ["∂(a·b)/∂a = b", "∂(a·b)/∂b = a"],
    saves=("a", "b"),
    promote=True,
    description="dot product Σ aᵢbᵢ",
    needs=(("b",), ("a",)),
)
register(
    "mv",
    "MvBackward0",
    np.matmul,
    [
        lambda g, s: s.xp.reshape(g, (-1, 1)) * s.xp.reshape(s.b, (1, -1)),
        lambda g, s: s.xp.matmul(_mT(s.xp, s.a), g),
    ],
    ["∂(A@v)/∂A = g·vᵀ", "∂(A@v)/∂v = Aᵀ·g"],
    saves=("a", "b"),
    promote=True,
    description="matrix-vector product A @ v",
    needs=(("b",), ("a",)),
)
register(
    "bmm",
    "BmmBackward0",
    np.matmul,
    [lambda g, s: s.xp.matmul(g, _mT(s.xp, s.b)), lambda g, s: s.xp.matmul(_mT(s.xp, s.a), g)],
    ["∂(A@B)/∂A = G·Bᵀ", "∂(A@B)/∂B = Aᵀ·G"],
    saves=("a", "b"),
    promote=True,
    description="batched matrix product",
    needs=(("b",), ("a",)),
)
register(
    "addmm",
    "AddmmBackward0",
    lambda c, a, b: c + a @ b,
    [
        lambda g, s: g,
        lambda g, s: s.xp.matmul(g, _mT(s.xp, s.c)),
        lambda g, s: s.xp.matmul(_mT(s.xp, s.b), g),
    ],
    ["∂(c + A@B)/∂c = 1", "∂(c + A@B)/∂A = G·Bᵀ", "∂(c + A@B)/∂B = Aᵀ·G"],
    saves=("b", "c"),
    promote=True,
    description="bias + input @ weightᵀ (nn.Linear)",
    needs=((), ("c",), ("b",)),
)

"""Matrix products: mm, mv, dot, batched matmul and addmm (nn.Linear), their table entries,
``matmul`` (and ``@``) dispatching to them as torch does, ``mm`` and ``addmm``."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply
from ..dtypes import scalar_name
from ..tensor import Tensor
from .explain import X0, X1, X2, G, T, outer, vjp
from .shape import reshape, unsqueeze
from .table import OPS, public, register


def _addmm(c, a, b):
    """c + a @ b, the sum written into the product's fresh array when c (a bias, or a whole
    matrix) fits it: one array allocated and filled instead of two (nn.Linear's every call)."""
    r = np.matmul(a, b)
    if type(r) is np.ndarray and r.dtype == c.dtype and (c.shape == r.shape[1:] or c.shape == r.shape):
        return np.add(c, r, out=r)
    return c + r


register(
    "mm",
    "MmBackward0",
    np.matmul,
    [lambda g, s: s.xp.matmul(g, s.xp.mT(s.b)), lambda g, s: s.xp.matmul(s.xp.mT(s.a), g)],
    ["∂(A@B)/∂A = G·Bᵀ", "∂(A@B)/∂B = Aᵀ·G"],
    saves=("a", "b"),
    promote=True,
    description="matrix product A @ B",
    needs=(("b",), ("a",)),
    jvps=[lambda t, s: s.xp.matmul(t, s.b), lambda t, s: s.xp.matmul(s.a, t)],
    jvp_formulas=["Ȧ·B", "A·Ḃ"],
         explain=vjp("{0} @ {1}", "矩阵乘法 A @ B", G @ T(X1), T(X0) @ G),
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
    jvps=[lambda t, s: s.xp.matmul(t, s.b), lambda t, s: s.xp.matmul(s.a, t)],
    jvp_formulas=["ȧ·b", "a·ḃ"],
         explain=vjp("{0} @ {1}", "向量点积 Σ aᵢbᵢ", G * X1, G * X0),
)
register(
    "mv",
    "MvBackward0",
    np.matmul,
    [
        lambda g, s: s.xp.reshape(g, (-1, 1)) * s.xp.reshape(s.b, (1, -1)),
        lambda g, s: s.xp.matmul(s.xp.mT(s.a), g),
    ],
    ["∂(A@v)/∂A = g·vᵀ", "∂(A@v)/∂v = Aᵀ·g"],
    saves=("a", "b"),
    promote=True,
    description="matrix-vector product A @ v",
    needs=(("b",), ("a",)),
    jvps=[lambda t, s: s.xp.matmul(t, s.b), lambda t, s: s.xp.matmul(s.a, t)],
    jvp_formulas=["Ȧ·v", "A·v̇"],
         explain=vjp("{0} @ {1}", "矩阵乘向量 A @ v", outer(G, X1), T(X0) @ G),
)
register(
    "bmm",
    "BmmBackward0",
    np.matmul,
    [lambda g, s: s.xp.matmul(g, s.xp.mT(s.b)), lambda g, s: s.xp.matmul(s.xp.mT(s.a), g)],
    ["∂(A@B)/∂A = G·Bᵀ", "∂(A@B)/∂B = Aᵀ·G"],
    saves=("a", "b"),
    promote=True,
    description="batched matrix product",
    needs=(("b",), ("a",)),
    jvps=[lambda t, s: s.xp.matmul(t, s.b), lambda t, s: s.xp.matmul(s.a, t)],
    jvp_formulas=["Ȧ·B", "A·Ḃ"],
         explain=vjp("{0} @ {1}", "批量矩阵乘法", G @ T(X1), T(X0) @ G),
)
register(
    "addmm",
    "AddmmBackward0",
    _addmm,
    [
        lambda g, s: g,
        lambda g, s: s.xp.matmul(g, s.xp.mT(s.c)),
        lambda g, s: s.xp.matmul(s.xp.mT(s.b), g),
    ],
    ["∂(c + A@B)/∂c = 1", "∂(c + A@B)/∂A = G·Bᵀ", "∂(c + A@B)/∂B = Aᵀ·G"],
    saves=("b", "c"),
    promote=True,
    description="bias + input @ weightᵀ (nn.Linear)",
    needs=((), ("c",), ("b",)),
    jvps=[lambda t, s: t, lambda t, s: s.xp.matmul(t, s.c), lambda t, s: s.xp.matmul(s.b, t)],
    jvp_formulas=["ċ", "Ȧ·B", "A·Ḃ"],
         explain=vjp("{0} + {1} @ {2}", "偏置 + 输入 @ 权重ᵀ（nn.Linear）", G, G @ T(X2), T(X1) @ G),
)


# ---- functions -----------------------------------------------------------------------------------------
@public("torch", "Tensor")
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``@``: dot (1-D·1-D), mv (2-D·1-D), mm (2-D·2-D), batched otherwise, as torch dispatches."""
    a, b = A.tensor(input, "matmul", "input", 1), A.tensor(other, "matmul", "other", 2)
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


@public("Tensor", name="__matmul__")
def _matmul(self: Tensor, other) -> Tensor:
    """``self @ other``; NotImplemented for an operand that is not a tensor (Python's TypeError)."""
    return matmul(self, other) if isinstance(other, Tensor) else NotImplemented


@public("Tensor", name="__rmatmul__")
def _rmatmul(self: Tensor, other) -> Tensor:
    """``other @ self``; NotImplemented for an operand that is not a tensor."""
    return matmul(other, self) if isinstance(other, Tensor) else NotImplemented


def _mm_check(sa, sb, what="mat1 and mat2") -> None:
    if sa[-1] != sb[0]:
        raise RuntimeError(f"{what} shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})")


@public("torch", "Tensor")
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The product of two matrices (MmBackward0)."""
    input, mat2 = A.tensor(input, "mm", "input", 1), A.tensor(mat2, "mm", "mat2", 2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_check(input.shape, mat2.shape)
    return apply(OPS["mm"], (input, mat2))


@public("torch")
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """input + mat1 @ mat2 (AddmmBackward0)."""
    input = A.tensor(input, "addmm", "input", 1)
    mat1, mat2 = A.tensor(mat1, "addmm", "mat1", 2), A.tensor(mat2, "addmm", "mat2", 3)
    _mm_check(mat1._data.shape, mat2._data.shape)
    return apply(OPS["addmm"], (input, mat1, mat2))


@public("torch", "Tensor")
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The dot product of two 1-D tensors (DotBackward0)."""
    a, b = A.tensor(input, "dot", "input", 1), A.tensor(tensor, "dot", "tensor", 2)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._data.shape != b._data.shape:
        n, m = a._data.shape[0], b._data.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
                           f"number of elements, but got {n} and {m} elements respectively")
    if a._data.dtype != b._data.dtype:

        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{scalar_name(a.dtype)} and {scalar_name(b.dtype)}")
    return apply(OPS["dot"], (a, b))


@public("torch", "Tensor")
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors (BmmBackward0)."""
    a, b = A.tensor(input, "bmm", "input", 1), A.tensor(mat2, "bmm", "mat2", 2)
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b._data.shape[:2] != (a._data.shape[0], a._data.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a._data.shape[0]}, {a._data.shape[2]}] but got: [{b._data.shape[0]}, "
                           f"{b._data.shape[1]}].")
    return apply(OPS["bmm"], (a, b))

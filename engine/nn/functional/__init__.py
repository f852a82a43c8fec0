"""``torch.nn.functional``: the activations and losses the op modules publish for it (next to their
table entries: ``engine.ops.activations``, ``engine.ops.losses``), torch's own ``sigmoid`` and
``tanh`` and ``flatten``, and the functions built from other ops here (``linear``, ``dropout``,
``one_hot``), each built as PyTorch builds it so the grad_fn names match (``F.linear`` →
AddmmBackward0 over TBackward0, ``F.cross_entropy`` → NllLossBackward0 over LogSoftmaxBackward0).
"""

from __future__ import annotations

import numpy as np

from ... import arguments as A
from ... import generator, limits
from ...dispatch import apply
from ...dtypes import scalar_name
from ...ops import (
    api,  # noqa: F401  (loads every op module, so PUBLIC["F"] is complete)
    arithmetic,
    linalg,
)
from ...ops import shape as shape_ops
from ...ops.elementwise import sigmoid, tanh  # noqa: F401  (torch's own, as in torch.nn.functional)
from ...ops.shape import flatten  # noqa: F401
from ...ops.table import OPS, PUBLIC
from ...tensor import Tensor

globals().update(PUBLIC["F"])


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1−p), in training only.

    As torch does it on the CPU: a mask of bernoulli_(1 − p) draws from the default generator,
    divided by 1 − p in the input's dtype, and one multiplication by it (MulBackward0 with
    (None, 0) for the mask), so a seeded program drops the elements PyTorch drops."""
    input = A.tensor(input, "dropout", "input", 1)
    p = A.real(p, "dropout", "p", 2)
    training = A.flag(training, "dropout", "train", 3, strict=False)
    inplace = A.flag(inplace, "dropout", "inplace", 4, strict=False)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input

    dt = input._data.dtype
    if p == 1.0:
        mask = Tensor._make(np.zeros(input._data.shape, dt))
    else:
        keep = generator.bernoulli_scalar(generator.default_generator, input._data.size, 1.0 - p)
        mask = Tensor._make((keep.astype(dt) / dt.type(1.0 - p)).reshape(input._data.shape))
    return input.mul_(mask) if inplace else arithmetic.mul(input, mask)


# ---- linear -------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weightᵀ + bias, dispatched exactly as torch does:
    2-D with bias → addmm(bias, x, wᵀ); without bias → x @ wᵀ (mm, or matmul's view/mm/unsafe_view);
    1-D or N-D with bias → view to 2-D, addmm, view back."""
    input, weight = A.tensor(input, "linear", "input", 1), A.tensor(weight, "linear", "weight", 2)
    bias = A.optional_tensor(bias, "linear", "bias", 3)
    nd = input._data.ndim
    if input._data.dtype != weight._data.dtype and nd >= 1:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {scalar_name(input.dtype)} and "
                           f"{scalar_name(weight.dtype)}")
    if bias is not None and bias._data.dtype != weight._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {scalar_name(bias.dtype)} and "
                           f"{scalar_name(weight.dtype)}")
    wt = shape_ops.t(weight)
    if bias is None:
        if nd == 1:
            out = linalg.mm(shape_ops.unsqueeze(input, 0), wt)
            dims = tuple(out.shape)
            return apply(OPS["squeeze_dims"], (out,), {"shape": dims[1:], "in_shape": dims})
        return linalg.matmul(input, wt)
    if nd == 2:
        return _addmm(bias, input, wt)
    if nd == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D and 2D")
    lead = tuple(input.shape[:-1])
    flat = shape_ops.reshape(input, (-1, input.shape[-1]))
    out = _addmm(bias, flat, wt)
    return shape_ops.reshape(out, lead + (weight.shape[0],))


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """``torch.addmm`` on tensors ``linear`` has checked already: the shapes, then the op."""
    linalg._mm_check(mat1._data.shape, mat2._data.shape)
    return apply(OPS["addmm"], (bias, mat1, mat2))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices → one-hot int64 rows (not differentiable)."""
    tensor = A.tensor(tensor, "one_hot", "tensor", 1)
    num_classes = A.integer(num_classes, "one_hot", "num_classes", 2)
    if tensor._data.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    t = tensor._data
    if num_classes == -1 and t.size == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    n = int(t.max()) + 1 if num_classes == -1 else num_classes
    if np.any(t < 0) or np.any(t >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    limits.check_shape(t.shape + (n,))
    out = np.zeros(t.shape + (n,), dtype=np.int64)
    np.put_along_axis(out, t[..., None].astype(np.int64), 1, axis=-1)
    return Tensor._make(out)


__all__ = sorted([*PUBLIC["F"], "sigmoid", "tanh", "dropout", "linear", "one_hot", "flatten"])

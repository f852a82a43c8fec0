"""``torch.nn.functional``: activations, ``linear`` and the losses, built as PyTorch builds them so
the grad_fn names match (``F.linear`` → AddmmBackward0 over TBackward0, ``F.cross_entropy`` →
NllLossBackward0 over LogSoftmaxBackward0, ...)."""

from __future__ import annotations

import warnings

import numpy as np

from ... import arguments as A
from ... import limits
from ...dispatch import apply, apply_inplace
from ...ops import api
from ...ops.table import OPS
from ...tensor import Tensor
from .losses import (  # noqa: F401  (torch.nn.functional's namespace)
    _reduction,
    _scalar_name,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)

sigmoid = api.sigmoid
tanh = api.tanh


# ---- activations --------------------------------------------------------------------------------
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) (ReluBackward0)."""
    input = A.tensor(input, "relu", "input", 1)
    if A.flag(inplace, "relu", "inplace", strict=False):
        return apply_inplace(OPS["relu"], input, ())
    return api.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else slope·x (LeakyReluBackward0)."""
    input = A.tensor(input, "leaky_relu", "input", 1)
    negative_slope = A.real(negative_slope, "leaky_relu", "negative_slope", 2, "Number")
    if A.flag(inplace, "leaky_relu", "inplace", strict=False):
        return apply_inplace(OPS["leaky_relu_"], input, (), {"negative_slope": negative_slope})
    return api.leaky_relu(input, negative_slope)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x·σ(x) (SiluBackward0)."""
    input = A.tensor(input, "silu", "input", 1)
    if A.flag(inplace, "silu", "inplace", strict=False):
        return apply_inplace(OPS["silu"], input, ())
    return apply(OPS["silu"], (input,))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else α·(eˣ − 1) (EluBackward0; EluBackward1 in place)."""
    input = A.tensor(input, "elu", "input", 1)
    alpha = A.real(alpha, "elu", "alpha", 2, "Number")
    if A.flag(inplace, "elu", "inplace", strict=False):
        return apply_inplace(OPS["elu_"], input, (), {"alpha": alpha})
    return apply(OPS["elu"], (input,), {"alpha": alpha})


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x·Φ(x), Φ the standard normal CDF (GeluBackward0); only the exact form is supported."""
    input = A.tensor(input, "gelu", "input", 1)
    approximate = A.string(approximate, "gelu", "approximate")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate != "none":
        raise RuntimeError("gelu(approximate='tanh') is not supported by gradviz")
    return apply(OPS["gelu"], (input,), {"approximate": approximate})


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(βx)) / β, and x itself where βx > threshold (SoftplusBackward0)."""
    input = A.tensor(input, "softplus", "input", 1)
    beta = A.real(beta, "softplus", "beta", expected="Number")
    threshold = A.real(threshold, "softplus", "threshold", expected="Number")
    return apply(OPS["softplus"], (input,), {"beta": beta, "threshold": threshold})


def _softmax_dim(ndim: int, stacklevel: int) -> int:
    warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include "
                  "dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / Σ exp(x) along ``dim`` (SoftmaxBackward0)."""
    input = A.tensor(input, "softmax", "input", 1)
    if dim is None:
        dim = _softmax_dim(input.ndim, A.integer(_stacklevel, "softmax", "_stacklevel"))
    return api.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """x − log Σ exp(x) along ``dim`` (LogSoftmaxBackward0)."""
    input = A.tensor(input, "log_softmax", "input", 1)
    if dim is None:
        dim = _softmax_dim(input.ndim, A.integer(_stacklevel, "log_softmax", "_stacklevel"))
    return api.log_softmax(input, dim, dtype=dtype)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1−p), in training only.

    As torch does it: one multiplication by a constant mask (MulBackward0 with (None, 0) for the
    mask). The mask comes from the engine's generator, so it differs from torch's draws."""
    input = A.tensor(input, "dropout", "input", 1)
    p = A.real(p, "dropout", "p", 2)
    training = A.flag(training, "dropout", "train", 3, strict=False)
    inplace = A.flag(inplace, "dropout", "inplace", 4, strict=False)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    from ... import factory

    keep = factory._rng.random(tuple(input.shape)) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = Tensor._make((keep * scale).astype(input._data.dtype))
    return input.mul_(mask) if inplace else api.mul(input, mask)


# ---- linear -------------------------------------------------------------------------------------
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weightᵀ + bias, dispatched exactly as torch does:
    2-D with bias → addmm(bias, x, wᵀ); without bias → x @ wᵀ (mm, or matmul's view/mm/unsafe_view);
    1-D or N-D with bias → view to 2-D, addmm, view back."""
    input, weight = A.tensor(input, "linear", "input", 1), A.tensor(weight, "linear", "weight", 2)
    bias = A.optional_tensor(bias, "linear", "bias", 3)
    nd = input._data.ndim
    if input._data.dtype != weight._data.dtype and nd >= 1:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_scalar_name(input)} and "
                           f"{_scalar_name(weight)}")
    if bias is not None and bias._data.dtype != weight._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_scalar_name(bias)} and "
                           f"{_scalar_name(weight)}")
    wt = api.t(weight)
    if bias is None:
        if nd == 1:
            out = api.mm(api.unsqueeze(input, 0), wt)
            shape = tuple(out.shape)
            return apply(OPS["squeeze_dims"], (out,), {"shape": shape[1:], "in_shape": shape})
        return api.matmul(input, wt)
    if nd == 2:
        return api.addmm(bias, input, wt)
    if nd == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D and 2D")
    lead = tuple(input.shape[:-1])
    flat = api.reshape(input, (-1, input.shape[-1]))
    out = api.addmm(bias, flat, wt)
    return api.reshape(out, lead + (weight.shape[0],))


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


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return api.flatten(input, start_dim, end_dim)  # api.flatten checks the arguments


__all__ = ["relu", "leaky_relu", "elu", "gelu", "silu", "softplus", "sigmoid", "tanh", "softmax",
           "log_softmax", "dropout", "linear", "nll_loss", "cross_entropy", "mse_loss", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "one_hot", "flatten"]

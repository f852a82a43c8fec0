"""``torch.nn.init``: fill a tensor in place (without recording) from a generator (the default one
unless ``generator=`` names another), with PyTorch's arithmetic for each bound and std, so a seeded
model starts from PyTorch's very weights."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import arguments as A
from .. import factory
from .. import generator as G
from ..errors import not_supported
from ..tensor import Tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """torch's recommended gain for a nonlinearity."""
    nonlinearity = A.string(nonlinearity, "calculate_gain", "nonlinearity", 1)
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else A.real(param, "calculate_gain", "param", 2)
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    tensor = A.tensor(tensor, "init", "tensor", 1)
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(tensor.shape[2:], dtype=np.int64)) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    mode = A.string(mode, "init", "mode")
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    tensor = A.tensor(tensor, "uniform_", "tensor", 1)
    a, b = A.real(a, "uniform_", "from", 1), A.real(b, "uniform_", "to", 2)
    return factory.uniform_(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std²)."""
    tensor = A.tensor(tensor, "normal_", "tensor", 1)
    return factory.normal_(tensor, A.real(mean, "normal_", "mean", 1), A.real(std, "normal_", "std", 2),
                           generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    tensor = A.tensor(tensor, "constant_", "tensor", 1)
    val = A.number(val, "fill_", "value", 1)
    if type(val) is complex:
        raise not_supported("complex numbers")
    tensor._data[...] = val
    tensor._vc[0] += 1
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(−a, a) with a = √3 · gain·√(2 / (fan_in + fan_out))."""
    gain = A.real(gain, "xavier_uniform_", "gain", 2)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # PyTorch's order of operations, for the same float bound
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std²) with std = gain·√(2 / (fan_in + fan_out))."""
    gain = A.real(gain, "xavier_normal_", "gain", 2)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """U(−bound, bound) with bound = √3 · gain/√fan; nn.Linear uses a = √5, i.e. bound = 1/√fan_in."""
    gain = calculate_gain(nonlinearity, A.real(a, "kaiming_uniform_", "a", 2))
    std = gain / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std  # PyTorch's order of operations, for the same float bound
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None) -> Tensor:
    """N(0, std²) with std = gain/√fan."""
    gain = calculate_gain(nonlinearity, A.real(a, "kaiming_normal_", "a", 2))
    return normal_(tensor, 0.0, gain / math.sqrt(_fan(tensor, mode)), generator)


# ---- trunc_normal_ and orthogonal_ ---------------------------------------------------------------
# ``nn.init.trunc_normal_`` and ``nn.init.orthogonal_`` with torch's algorithms and draws.
#
# trunc_normal_ is torch's: when [a, b] holds more than 30% of N(mean, std²), normal draws with the
# ones outside redrawn (all elements drawn again each round, as torch does); otherwise uniform
# candidates in [a, b] accepted where log(u) ≤ log pdf − log peak, with the rejected ones drawn again.
# The arithmetic is the tensor's type, step by step as torch's in-place ops do it, so the values are
# torch's for the same seed; a float32 log that differed from torch's in its last bit exactly at an
# acceptance threshold would take another draw (not seen in the tests).
#
# orthogonal_ draws its normal matrix as torch does, then QR (NumPy's LAPACK, which may differ from
# torch's in the last bits) with the signs of R's diagonal.


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _log_pdf(c: np.ndarray, mean: float, std: float, log_peak: float) -> np.ndarray:
    """torch's candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak), in c's type."""
    t = c.dtype.type
    c = c - t(mean)
    c = c / t(std)
    return (c * c) * t(-0.5) - t(log_peak)


def _by_rejection(gen, shape, dt, mean: float, std: float, a: float, b: float) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    result = G.uniform(gen, n, dt, a, b).reshape(shape)
    pending = np.log(G.uniform(gen, n, dt, 0.0, 1.0).reshape(shape)) > _log_pdf(result, mean, std, log_peak)
    while pending.any():
        candidates = G.uniform(gen, n, dt, a, b).reshape(shape)
        result = np.where(pending, candidates, result)
        accept = np.log(G.uniform(gen, n, dt, 0.0, 1.0).reshape(shape)) > _log_pdf(candidates, mean, std,
                                                                                    log_peak)
        pending = np.where(pending, accept, pending)
    return result


def _by_redrawing(gen, shape, dt, mean: float, std: float, a: float, b: float) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    lo, hi = dt.type(a), dt.type(b)
    result = G.normal(gen, n, dt, mean, std).reshape(shape)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            return result
        result = np.where(outside, G.normal(gen, n, dt, mean, std).reshape(shape), result)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with N(mean, std²) restricted to [a, b] (torch's algorithm and draws)."""
    tensor = A.tensor(tensor, "trunc_normal_", "tensor", 1)
    mean, std = A.real(mean, "trunc_normal_", "mean", 2), A.real(std, "trunc_normal_", "std", 3)
    a, b = A.real(a, "trunc_normal_", "a", 4), A.real(b, "trunc_normal_", "b", 5)
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
                      "values may be incorrect.", UserWarning, stacklevel=2)
    gen = G.pick(generator, "trunc_normal_")
    data = tensor._data
    if data.size:
        p = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        draw = _by_redrawing if p > 0.3 else _by_rejection
        data[...] = draw(gen, data.shape, data.dtype, mean, std, a, b)
        tensor._vc[0] += 1
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``, trailing dims flattened."""
    tensor = A.tensor(tensor, "orthogonal_", "tensor", 1)
    gain = A.real(gain, "orthogonal_", "gain", 2)
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    data = tensor._data
    if data.size == 0:
        return tensor
    rows = data.shape[0]
    cols = data.size // rows
    gen = G.pick(generator, "orthogonal_")
    flat = G.normal(gen, data.size, data.dtype, 0.0, 1.0).reshape(rows, cols)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = (q * np.sign(np.diagonal(r))).astype(data.dtype)
    if rows < cols:
        q = q.T
    data[...] = (q * data.dtype.type(gain)).reshape(data.shape)
    tensor._vc[0] += 1
    return tensor

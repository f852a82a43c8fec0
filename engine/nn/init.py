"""``torch.nn.init``: fill a tensor in place (without recording) from a generator (the default one
unless ``generator=`` names another), with PyTorch's arithmetic for each bound and std, so a seeded
model starts from PyTorch's very weights."""

from __future__ import annotations

import math

import numpy as np

from .. import arguments as A
from .. import factory
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

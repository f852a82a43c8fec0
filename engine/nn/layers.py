"""Layers: Linear, the activations, Identity, Flatten, and the containers Sequential and ModuleList."""

from __future__ import annotations

import math
from collections import OrderedDict

from .. import arguments as A
from .. import factory
from ..naming import torch_path
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


@torch_path("torch.nn.modules.linear")
class Linear(Module):
    """y = x @ Wᵀ + b, with torch's initialisation U(−1/√in, 1/√in) for W and b."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        in_features = A.integer(in_features, "Linear", "in_features", 1)
        out_features = A.integer(out_features, "Linear", "out_features", 2)
        bias = A.flag(bias, "Linear", "bias", 3, strict=False)
        dtype = A.dtype(dtype, "Linear")
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(factory.empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(factory.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """kaiming_uniform_(W, a=√5) and U(−1/√fan_in, 1/√fan_in) for b, in that order (as torch)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        bias = self.bias is not None
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={bias}"


@torch_path("torch.nn.modules.activation")
class ReLU(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


@torch_path("torch.nn.modules.activation")
class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


@torch_path("torch.nn.modules.activation")
class SiLU(Module):
    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


@torch_path("torch.nn.modules.activation")
class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


@torch_path("torch.nn.modules.activation")
class GELU(Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


@torch_path("torch.nn.modules.activation")
class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


@torch_path("torch.nn.modules.activation")
class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


@torch_path("torch.nn.modules.activation")
class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


@torch_path("torch.nn.modules.activation")
class Softmax(Module):
    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


@torch_path("torch.nn.modules.activation")
class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


@torch_path("torch.nn.modules.dropout")
class Dropout(Module):
    """Randomly zero elements with probability p while training (identity in eval mode)."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        p = A.real(p, "Dropout", "p", 1)
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


@torch_path("torch.nn.modules.linear")
class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


@torch_path("torch.nn.modules.flatten")
class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


def _index(idx: int, n: int) -> int:
    idx = A.integer(idx, "__getitem__", "idx", 1)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


def _slice(idx: slice) -> slice:
    """A slice of a container of modules, its bounds checked as integers."""
    return slice(*(None if v is None else A.integer(v, "__getitem__", "idx", 1)
                   for v in (idx.start, idx.stop, idx.step)))


@torch_path("torch.nn.modules.container")
class Sequential(Module):
    """Modules applied in order; children are named "0", "1", ... (or by an OrderedDict's keys)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and type(args[0]) is OrderedDict:
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def __getitem__(self, idx):
        items = list(self._modules.items())
        if type(idx) is slice:
            return Sequential(OrderedDict(items[_slice(idx)]))
        return items[_index(idx, len(items))][1]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self._modules))]
        self.add_module(key, module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        for key in (keys[_slice(idx)] if type(idx) is slice else [keys[_index(idx, len(keys))]]):
            del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> Sequential:
        for m in _modules_of(modules, "Sequential"):
            self.append(m)
        return self

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input


@torch_path("torch.nn.modules.container")
class ModuleList(Module):
    """A list of modules registered as children "0", "1", ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if type(idx) is slice:
            return ModuleList(mods[_slice(idx)])
        return mods[_index(idx, len(mods))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self))), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        for m in _modules_of(modules, "ModuleList"):
            self.append(m)
        return self


def _modules_of(modules, owner: str) -> list:
    """The items of ``extend``'s argument: an iterable of a known kind (``arguments.items``)."""
    return A.items(modules, lambda v: TypeError(f"{owner}.extend should be called with an iterable, but "
                                                f"got {A.type_name(v)}"))

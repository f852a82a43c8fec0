"""RMSprop and Adagrad, with the operations of torch's single-tensor implementations in the same order
(``addcmul_(g, g, value=v)`` is ``s + (v·g)·g``; ``addcdiv_(g, d, value=v)`` is ``p + (v·g)/d``)."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..naming import torch_path
from ..tensor import Tensor
from .adam import _lerp
from .optimizer import Optimizer


def _zeros(p: Tensor, fill: float = 0.0) -> Tensor:
    return Tensor._make(np.full_like(p._data, fill))


def _step(st: dict) -> float:
    """Count the step in the float32 tensor torch keeps, and return it."""
    st["step"]._data = st["step"]._data + np.float32(1)
    return float(st["step"]._data)


def _check(**values: float) -> None:
    """torch's ValueError for the first negative hyperparameter."""
    for key, value in values.items():
        if value < 0.0:
            label = {"lr": "learning rate", "eps": "epsilon value"}.get(key, key + " value")
            raise ValueError(f"Invalid {label}: {value}")


@torch_path("torch.optim.rmsprop")
class RMSprop(Optimizer):
    """s ← α·s + (1−α)·g²; p ← p − lr·g / (√s + ε), with optional momentum and centering."""

    _KINDS = {"lr": "real", "alpha": "real", "eps": "real", "weight_decay": "real", "momentum": "real",
              "centered": "flag", "maximize": "flag"}

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        lr, alpha = A.real(lr, "RMSprop", "lr", 2), A.real(alpha, "RMSprop", "alpha", 3)
        eps = A.real(eps, "RMSprop", "eps", 4)
        weight_decay = A.real(weight_decay, "RMSprop", "weight_decay", 5)
        momentum = A.real(momentum, "RMSprop", "momentum", 6)
        centered = A.flag(centered, "RMSprop", "centered", 7, strict=False)
        maximize = A.flag(maximize, "RMSprop", "maximize", strict=False)
        _check(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _update(self, group: dict) -> None:
        lr, alpha, eps, wd, mom = (group[k] for k in ("lr", "alpha", "eps", "weight_decay", "momentum"))
        for p in group["params"]:
            if p._grad is None:
                continue
            g = -p._grad._data if group["maximize"] else p._grad._data
            st = self._state(p)
            if not st:
                st["step"] = Tensor._make(np.asarray(0.0, dtype=np.float32))
                st["square_avg"] = _zeros(p)
                if mom > 0:
                    st["momentum_buffer"] = _zeros(p)
                if group["centered"]:
                    st["grad_avg"] = _zeros(p)
            _step(st)
            if wd != 0:
                g = g + wd * p._data
            sq = st["square_avg"]._data
            sq[...] = sq * alpha + ((1 - alpha) * g) * g
            if group["centered"]:
                ga = st["grad_avg"]._data
                ga[...] = _lerp(ga, g, 1 - alpha)
                avg = np.sqrt(sq + (-1.0 * ga) * ga) + eps
            else:
                avg = np.sqrt(sq) + eps
            if mom > 0:
                buf = st["momentum_buffer"]._data
                buf[...] = buf * mom + g / avg
                self._write(p, p._data + (-lr) * buf)
            else:
                self._write(p, p._data + ((-lr) * g) / avg)

    def _rule(self, group: dict) -> str:
        parts = []
        if group["weight_decay"] != 0:
            parts.append(f"g ← g + λ·p (λ={group['weight_decay']})")
        parts.append(f"s ← α·s + (1−α)·g² (α={group['alpha']})")
        if group["centered"]:
            parts.append("ḡ ← α·ḡ + (1−α)·g")
        root = "√(s − ḡ²)" if group["centered"] else "√s"
        if group["momentum"] > 0:
            parts.append(f"b ← μ·b + g/({root} + ε) (μ={group['momentum']}, ε={group['eps']})")
            parts.append(f"p ← p − lr·b (lr={group['lr']})")
        else:
            parts.append(f"p ← p − lr·g/({root} + ε) (lr={group['lr']}, ε={group['eps']})")
        return "; ".join(parts)


@torch_path("torch.optim.adagrad")
class Adagrad(Optimizer):
    """s ← s + g²; p ← p − lr/(1 + (t−1)·decay)·g / (√s + ε)."""

    _KINDS = {"lr": "real", "lr_decay": "real", "weight_decay": "real", "initial_accumulator_value": "real",
              "eps": "real", "maximize": "flag"}

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, fused=None):
        lr, lr_decay = A.real(lr, "Adagrad", "lr", 2), A.real(lr_decay, "Adagrad", "lr_decay", 3)
        weight_decay = A.real(weight_decay, "Adagrad", "weight_decay", 4)
        initial = A.real(initial_accumulator_value, "Adagrad", "initial_accumulator_value", 5)
        eps = A.real(eps, "Adagrad", "eps", 6)
        maximize = A.flag(maximize, "Adagrad", "maximize", strict=False)
        _check(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
               initial_accumulator_value=initial, eps=eps)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        for group in self.param_groups:  # torch makes Adagrad's state when the optimizer is made
            for p in group["params"]:
                self.state[p] = {"step": Tensor._make(np.asarray(0.0, dtype=np.float32)),
                                 "sum": _zeros(p, group["initial_accumulator_value"])}

    def _update(self, group: dict) -> None:
        lr, decay, eps, wd = (group[k] for k in ("lr", "lr_decay", "eps", "weight_decay"))
        for p in group["params"]:
            if p._grad is None:
                continue
            st = self._state(p)
            if not st:
                st.update(step=Tensor._make(np.asarray(0.0, dtype=np.float32)),
                          sum=_zeros(p, group["initial_accumulator_value"]))
            step = _step(st)
            g = -p._grad._data if group["maximize"] else p._grad._data
            if wd != 0:
                g = g + wd * p._data
            clr = lr / (1 + (step - 1) * decay)
            s = st["sum"]._data
            s[...] = s + (1.0 * g) * g
            self._write(p, p._data + ((-clr) * g) / (np.sqrt(s) + eps))

    def _rule(self, group: dict) -> str:
        parts = []
        if group["weight_decay"] != 0:
            parts.append(f"g ← g + λ·p (λ={group['weight_decay']})")
        parts.append("s ← s + g²")
        rate = "lr" if group["lr_decay"] == 0 else f"lr/(1 + (t−1)·{group['lr_decay']})"
        parts.append(f"p ← p − {rate}·g/(√s + ε) (lr={group['lr']}, ε={group['eps']})")
        return "; ".join(parts)

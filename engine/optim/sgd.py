"""SGD with momentum, dampening, weight decay and Nesterov, exactly as ``torch.optim.SGD``."""

from __future__ import annotations

from .. import arguments as A
from ..naming import torch_path
from ..tensor import Tensor
from .optimizer import Optimizer


@torch_path("torch.optim.sgd")
class SGD(Optimizer):
    """p ← p − lr·g, where g may carry weight decay and momentum (torch's formulas)."""

    _KINDS = {"lr": "real", "momentum": "real", "dampening": "real", "weight_decay": "real",
              "nesterov": "flag", "maximize": "flag"}

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach=None,
                 differentiable: bool = False, fused=None):
        lr, momentum = A.real(lr, "SGD", "lr", 2), A.real(momentum, "SGD", "momentum", 3)
        dampening, weight_decay = A.real(dampening, "SGD", "dampening", 4), A.real(weight_decay, "SGD",
                                                                                   "weight_decay", 5)
        nesterov = A.flag(nesterov, "SGD", "nesterov", 6, strict=False)
        maximize = A.flag(maximize, "SGD", "maximize", strict=False)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    def _update(self, group: dict) -> None:
        lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
        wd, nesterov = group["weight_decay"], group["nesterov"]
        for p in group["params"]:
            if p._grad is None:
                continue
            g = p._grad._data
            if group["maximize"]:
                g = -g
            if wd != 0:
                g = g + wd * p._data
            if mom != 0:
                st = self._state(p)
                buf = st.get("momentum_buffer")
                if buf is None:
                    buf = st["momentum_buffer"] = Tensor._make(g.copy())
                else:
                    b = buf._data
                    b *= mom
                    b += (1 - damp) * g
                g = g + mom * buf._data if nesterov else buf._data
            self._write(p, p._data + (-lr) * g)

    def _rule(self, group: dict) -> str:
        lr, mom, damp, wd = group["lr"], group["momentum"], group["dampening"], group["weight_decay"]
        parts = []
        if group["maximize"]:
            parts.append("g ← −g")
        if wd != 0:
            parts.append(f"g ← g + λ·p (λ={wd})")
        if mom != 0:
            keep = "" if damp == 0 else "(1−τ)·"
            parts.append(f"b ← μ·b + {keep}g (μ={mom}" + (f", τ={damp})" if damp else ")"))
            parts.append("g ← g + μ·b" if group["nesterov"] else "g ← b")
        parts.append(f"p ← p − lr·g (lr={lr})")
        return "; ".join(parts)

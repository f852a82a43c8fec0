"""Adam and AdamW, with the operations of torch's single-tensor implementation in the same order."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..naming import torch_path
from ..tensor import Tensor
from .optimizer import Optimizer


def _lerp(start: np.ndarray, end: np.ndarray, weight: float) -> np.ndarray:
    """torch.lerp's two-sided formula (it switches form at weight 0.5 for accuracy)."""
    if abs(weight) < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


@torch_path("torch.optim.adam")
class Adam(Optimizer):
    """m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²; p ← p − lr·m̂ / (√v̂ + ε)."""

    _decoupled = False
    _KINDS = {"lr": "real", "betas": "pair", "eps": "real", "weight_decay": "real", "amsgrad": "flag",
              "maximize": "flag", "decoupled_weight_decay": "flag"}

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool = False):
        name = type(self).__name__
        lr, eps = A.real(lr, name, "lr", 2), A.real(eps, name, "eps", 4)
        if type(betas) not in (tuple, list) or len(betas) != 2:
            raise TypeError(A.must(name, "betas", 3, "tuple of 2 floats", betas))
        betas = (A.real(betas[0], name, "betas", 3), A.real(betas[1], name, "betas", 3))
        weight_decay = A.real(weight_decay, name, "weight_decay", 5)
        amsgrad = A.flag(amsgrad, name, "amsgrad", 6, strict=False)
        maximize = A.flag(maximize, name, "maximize", strict=False)
        decoupled_weight_decay = A.flag(decoupled_weight_decay, name, "decoupled_weight_decay", strict=False)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay or self._decoupled}
        super().__init__(params, defaults)

    def _update(self, group: dict) -> None:
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            if p._grad is None:
                continue
            g = p._grad._data
            if group["maximize"]:
                g = -g
            st = self._state(p)
            if not st:
                st["step"] = Tensor._make(np.asarray(0.0, dtype=np.float32))
                st["exp_avg"] = Tensor._make(np.zeros_like(p._data))
                st["exp_avg_sq"] = Tensor._make(np.zeros_like(p._data))
                if group["amsgrad"]:
                    st["max_exp_avg_sq"] = Tensor._make(np.zeros_like(p._data))
            st["step"]._data = st["step"]._data + np.float32(1)
            step = float(st["step"]._data)
            param = p._data
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    param = param * (1 - lr * wd)
                else:
                    g = g + wd * param
            m = st["exp_avg"]._data
            v = st["exp_avg_sq"]._data
            m[...] = _lerp(m, g, 1 - beta1)
            v[...] = v * beta2 + (1 - beta2) * (g * g)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            step_size = lr / bias_correction1
            bc2_sqrt = bias_correction2 ** 0.5
            if group["amsgrad"]:
                vmax = st["max_exp_avg_sq"]._data
                np.maximum(vmax, v, out=vmax)
                denom = np.sqrt(vmax) / bc2_sqrt + eps
            else:
                denom = np.sqrt(v) / bc2_sqrt + eps
            self._write(p, param + (-step_size) * (m / denom))

    def _rule(self, group: dict) -> str:
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        parts = []
        if wd != 0:
            parts.append(f"p ← p·(1 − lr·λ) (λ={wd})" if group["decoupled_weight_decay"]
                         else f"g ← g + λ·p (λ={wd})")
        parts.append(f"m ← β₁·m + (1−β₁)·g (β₁={b1})")
        parts.append(f"v ← β₂·v + (1−β₂)·g² (β₂={b2})")
        vhat = "max(v)" if group["amsgrad"] else "v"
        parts.append(f"p ← p − lr·(m/(1−β₁ᵗ)) / (√({vhat}/(1−β₂ᵗ)) + ε) (lr={lr}, ε={eps})")
        return "; ".join(parts)


@torch_path("torch.optim.adamw")
class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01): p ← p·(1 − lr·λ) before the Adam step."""

    _decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, **kwargs):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kwargs)

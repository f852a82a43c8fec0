"""The course's hand-derived gradients of the built-in examples, for the check-by-hand panel.

For each example (by id), each leaf's formula as the course writes it, with this pass's numbers
filled in, and its value. A formula applies only to its example's program exactly (an edited
program has no hand formula). It runs in the worker, on the values the pass's graph recorded.
"""

from __future__ import annotations

import numpy as np

from engine.trace import Trace, ancestry

from ..examples import EXAMPLES
from ..numbers import number_text


def _n(x, alone: bool = False) -> str:
    """A number in a filled-in formula: 4 significant digits, a minus sign, negatives in parentheses
    (``alone``: a result after "=", without them)."""
    a = np.asarray(x, dtype=np.float64)
    if a.size != 1:
        flat = a.reshape(-1)
        body = ", ".join(_n(v) for v in flat[:6]) + (", …" if flat.size > 6 else "")
        return f"[{body}]"
    v = float(a.reshape(-1)[0])
    text = number_text(v)
    return f"({text})" if v < 0 and not alone else text


class PassValues:
    """The values one backward pass's graph recorded, by the program's names."""

    def __init__(self, trace: Trace, bp):
        self.nodes = [trace.nodes[i] for i in sorted(ancestry(trace, bp.root))]
        self.root = trace.nodes[bp.root]

    def all(self, name: str) -> list[np.ndarray]:
        return [np.asarray(n.value, dtype=np.float64) for n in self.nodes if n.name == name]

    def __getitem__(self, name: str) -> np.ndarray:
        found = self.all(name)
        if not found:
            raise KeyError(name)
        return found[-1]

    def op(self, grad_fn: str):
        return next(n for n in self.nodes if n.kind == "op" and n.grad_fn == grad_fn)


def _said(text):
    """A formula the same in both languages, or (English, Chinese) when it has words."""
    return {"en": text[0], "zh": text[1]} if isinstance(text, tuple) else text


def _f(formula, filled, value) -> dict:
    return {"formula": _said(formula), "filled": _said(filled) if filled is not None else None,
            "value": np.asarray(value, dtype=np.float64)}


def _sig_prime(a):
    return a * (1 - a)


# ---- one function per example: PassValues -> {leaf name: formula} ---------------------------------
def _add_mul(v: PassValues) -> dict:
    a, b, c = v["a"], v["b"], v["c"]
    return {"a": _f("∂L/∂a = c", f"c = {_n(c)}", c), "b": _f("∂L/∂b = c", f"c = {_n(c)}", c),
            "c": _f("∂L/∂c = a + b", f"{_n(a)} + {_n(b)} = {_n(a + b, alone=True)}", a + b)}


def _square(v: PassValues) -> dict:
    a, b = v["a"], v["b"]
    inner = a * b + 1
    return {"a": _f("∂L/∂a = 2(ab + 1)·b", f"2·({_n(a)}·{_n(b)} + 1)·{_n(b)}", 2 * inner * b),
            "b": _f("∂L/∂b = 2(ab + 1)·a", f"2·({_n(a)}·{_n(b)} + 1)·{_n(a)}", 2 * inner * a)}


def _neuron(v: PassValues) -> dict:
    x, w, a = v["x"], v["w"], v["a"]
    core = 2 * (a - 1) * _sig_prime(a)
    fill = f"2({_n(a)} − 1)·{_n(a)}·(1 − {_n(a)})"
    return {"w": _f("∂L/∂w = 2(a − 1)·σ(z)(1 − σ(z))·x", f"{fill}·{_n(x)}", core * x),
            "x": _f("∂L/∂x = 2(a − 1)·σ(z)(1 − σ(z))·w", f"{fill}·{_n(w)}", core * w),
            "b": _f("∂L/∂b = 2(a − 1)·σ(z)(1 − σ(z))", fill, core)}


def _fan_out(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f("dy/dx = 2x + 2", f"2·{_n(x)} + 2", 2 * x + 2)}


def _broadcast(v: PassValues) -> dict:
    x, b = v["x"], v["b"]
    rows = x.shape[0]
    return {"x": _f("∂y/∂xᵢⱼ = 1", None, np.ones_like(x)),
            "b": _f(("∂y/∂bⱼ = Σᵢ 1 = the number of rows", "∂y/∂bⱼ = Σᵢ 1 = 行数"), f"{rows}",
                    np.full_like(b, rows))}


def _mlp(v: PassValues) -> dict:
    x, w1, b1, w2, b2 = v["x"], v["fc1.weight"], v["fc1.bias"], v["fc2.weight"], v["fc2.bias"]
    target = np.asarray(v.op("NllLossBackward0").params["target"])
    n = x.shape[0]
    h = np.maximum(x @ w1.T + b1, 0)
    o = h @ w2.T + b2
    p = np.exp(o - o.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    d2 = (p - np.eye(o.shape[1])[target]) / n
    d1 = (d2 @ w2) * (h > 0)
    return {"fc2.weight": _f("∂L/∂W₂ = (softmax(o) − Y)ᵀ · h / N", None, d2.T @ h),
            "fc2.bias": _f("∂L/∂b₂ = Σₙ (softmax(o) − Y) / N", None, d2.sum(axis=0)),
            "fc1.weight": _f("∂L/∂W₁ = ((softmax(o) − Y) · W₂ ⊙ 𝟙[h > 0])ᵀ · x / N", None, d1.T @ x),
            "fc1.bias": _f("∂L/∂b₁ = Σₙ ((softmax(o) − Y) · W₂ ⊙ 𝟙[h > 0]) / N", None, d1.sum(axis=0))}


def _linear_regression(v: PassValues) -> dict:
    x, y, w, b = v["x"], v["y"], v["model.weight"], v["model.bias"]
    r = x @ w.T + b - y
    n = x.shape[0]
    return {"model.weight": _f("∂L/∂w = (2/N)·Σ (w·x + b − y)·x", f"N = {n}",
                               (2 / n) * (r * x).sum(keepdims=True)),
            "model.bias": _f("∂L/∂b = (2/N)·Σ (w·x + b − y)", f"N = {n}", (2 / n) * r.sum(axis=0))}


def _accumulation(v: PassValues) -> dict:
    x, y, w = v["x"], v["y"], v["w"]
    n = x.shape[0]
    return {"w": _f("∂Lₖ/∂w = 2·xᵀ(x·w − y) / (n·3)", f"n = {n}", 2 * x.T @ (x @ w - y) / (n * 3))}


def _forget_zero_grad(v: PassValues) -> dict:
    w = v["w"]
    return {"w": _f("∂loss/∂w = 2(2w − 4)·2", f"2(2·{_n(w)} − 4)·2", 4 * (2 * w - 4))}


def _cube(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f("dy/dx = 3x²", f"3·{_n(x)}²", 3 * x ** 2)}


def _no_grad(v: PassValues) -> dict:
    x = v["x"]
    return {"w": _f("∂y/∂w = x", f"{_n(x)}", x)}


def _detach(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f(("∂z/∂x = y.detach() = x² (a constant for autograd)",
                     "∂z/∂x = y.detach() = x²（对 autograd 来说是常数）"),
                    f"{_n(x)}² = {_n(x ** 2)}", x ** 2)}


def _retain_grad(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f("dy/dx = 2h·3 = 18x", f"18·{_n(x)}", 18 * x)}


def _dynamic_graph(v: PassValues) -> dict:
    x = v["x"]
    y = v.all("y")[-1] if v.all("y") else x
    scale = y / x  # 2 to the number of doublings
    if v.root.grad_fn.startswith("Pow"):
        return {"x": _f("d(out)/dx = 2y·2ˢ (out = y², y = x·2ˢ)", f"2·{_n(y)}·{_n(scale)}", 2 * y * scale)}
    return {"x": _f("d(out)/dx = −2ˢ (out = −y, y = x·2ˢ)", f"−{_n(scale)}", -scale)}


def _vanishing(v: PassValues) -> dict:
    hs = v.all("h")
    factors = [_sig_prime(h) for h in hs]
    value = np.prod(factors, axis=0)
    product = f"{_n(factors[0])} · {_n(factors[1])} · … · {_n(factors[-1])}"
    return {"x": _f("dh₂₀/dx = ∏ᵢ σ′(hᵢ₋₁) = ∏ᵢ hᵢ(1 − hᵢ)",
                    (f"{product} ({len(factors)} factors)", f"{product}（共 {len(factors)} 个因子）"), value)}


def _hook(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f(("x.grad = 2·(∂L/∂y)·(∂y/∂x) = 2·1·2x = 4x (the hook doubles the gradient reaching y)",
                     "x.grad = 2·(∂L/∂y)·(∂y/∂x) = 2·1·2x = 4x（钩子把到达 y 的梯度加倍）"),
                    f"4·{_n(x)}", 4 * x)}


def _custom_function(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f(("∂L/∂x = 3x² (what Cube.backward returns)", "∂L/∂x = 3x²（Cube.backward 的返回值）"),
                    f"3·{_n(x)}²", 3 * x ** 2)}


FORMULAS = {
    "add-mul": _add_mul, "square": _square, "neuron": _neuron, "fan-out": _fan_out, "broadcast": _broadcast,
    "mlp": _mlp, "linear-regression": _linear_regression, "accumulation": _accumulation,
    "forget-zero-grad": _forget_zero_grad, "backward-twice": _cube, "retain-graph": _cube,
    "no-grad": _no_grad, "detach": _detach, "retain-grad": _retain_grad, "dynamic-graph": _dynamic_graph,
    "vanishing": _vanishing, "hook": _hook, "custom-function": _custom_function,
}


# ---- the course views' examples ----------------------------------------------------------------------
def _forward_reverse(v: PassValues) -> dict:
    x, w = v["x"], v["w"]
    d = 1 - np.tanh(x * w) ** 2
    return {"x": _f("∂y/∂x = (1 − tanh²(x·w))·w", None, d * w),
            "w": _f("∂y/∂w = (1 − tanh²(x·w))·x", None, d * x)}


def _second_derivative(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f("d²(sin x)/dx² = d(cos x)/dx = −sin x", f"−sin({_n(x)})", -np.sin(x))}


def _new_graph(v: PassValues) -> dict:
    w, h = v["w"], v.all("h")[-1]  # h = x·w·2ᵏ after the loop, so ∂h/∂w = h/w
    if v.root.grad_fn.startswith("Pow"):
        return {"w": _f("∂(h²)/∂w = 2h·h/w", f"2·{_n(h)}·{_n(h)}/{_n(w)}", 2 * h * h / w)}
    return {"w": _f("∂(−h)/∂w = −h/w", f"−{_n(h)}/{_n(w)}", -h / w)}


def _deep_net(v: PassValues, act: str) -> dict:
    """Backpropagation by hand through Linear layers 0, 2, …, 14 of ``net`` and a mean of squares."""
    layers = sorted({int(n.name.split(".")[0]) for n in v.nodes if n.name and n.name.endswith(".weight")})
    a, acts, outs = v["x"], [], []
    for i in layers:
        acts.append(a)
        z = a @ v[f"{i}.weight"].T + v[f"{i}.bias"]
        outs.append(z)
        a = z if i == layers[-1] else (1 / (1 + np.exp(-z)) if act == "sigmoid" else np.maximum(z, 0))
    delta = 2 * a / a.size
    out = {}
    local = "σ′(zₗ)" if act == "sigmoid" else "𝟙[zₗ > 0]"
    for k in range(len(layers) - 1, -1, -1):
        i = layers[k]
        out[f"{i}.weight"] = _f(f"∂L/∂Wₗ = δₗᵀ·aₗ₋₁, δₗ = (δₗ₊₁·Wₗ₊₁) ⊙ {local}", None, delta.T @ acts[k])
        out[f"{i}.bias"] = _f("∂L/∂bₗ = Σₙ δₗ", None, delta.sum(axis=0))
        if k:
            z = outs[k - 1]
            s = 1 / (1 + np.exp(-z))
            delta = (delta @ v[f"{i}.weight"]) * (s * (1 - s) if act == "sigmoid" else (z > 0))
    return out


def _memory_backward(v: PassValues) -> dict:
    x = v["x"]
    return {"x": _f("∂/∂x Σ eˣ·sin x = eˣ(sin x + cos x)", None, np.exp(x) * (np.sin(x) + np.cos(x)))}


def _memory_losses(v: PassValues) -> dict:
    x = next(np.asarray(n.value, dtype=np.float64) for n in v.nodes if n.kind == "leaf" and n.name is None
             and len(n.shape) == 2)
    w, b = v["model.weight"], v["model.bias"]
    o = x @ w.T + b
    d = 2 * o / o.size
    return {"model.weight": _f("∂L/∂W = (2/N)·oᵀ·x, o = x·Wᵀ + b", f"N = {o.size}", d.T @ x),
            "model.bias": _f("∂L/∂b = (2/N)·Σₙ o", f"N = {o.size}", d.sum(axis=0))}


FORMULAS.update({
    "forward-reverse": _forward_reverse, "second-derivative": _second_derivative, "new-graph": _new_graph,
    "deep-sigmoid": lambda v: _deep_net(v, "sigmoid"), "relu-he": lambda v: _deep_net(v, "relu"),
    "memory-backward": _memory_backward, "memory-losses": _memory_losses,
})


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


_BY_SOURCE = {_normal(e["source"]): e["id"] for e in EXAMPLES}


def example_of(source: str) -> str | None:
    """The id of the built-in example whose program this is, exactly (else None)."""
    return _BY_SOURCE.get(_normal(source))


def hand_formulas(source: str):
    """For a built-in example's program: ``(trace, pass) -> {leaf name: formula}``; else None."""
    fn = FORMULAS.get(example_of(source) or "")
    if fn is None:
        return None
    return lambda trace, bp: fn(PassValues(trace, bp))

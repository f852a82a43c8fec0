"""Elementwise functions other than arithmetic: exp, log, sqrt, |x|, sin, cos, tanh, sigmoid, relu,
leaky_relu, where, maximum, minimum and clamp. Their table entries, then their public functions."""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from ..dispatch import apply, apply_inplace
from ..tensor import Tensor
from . import explain as E
from .explain import X0, X1, X2, P, Y, local
from .table import OPS, public, register
from .wrappers import binary, operand, unary


def math_function(op):
    """``torch.<op>`` and ``Tensor.<op>`` of an elementwise function of floats (integer tensors are
    cast to the default dtype first), derived from its entry."""
    return unary(op, floats=True)


exp = math_function(register("exp", "ExpBackward0", np.exp,
                             [lambda g, s: g * s.out],
                             ["∂eˣ/∂x = eˣ"], saves=("out",), description="exponential eˣ",
                             explain=local("e^{0}", "指数函数 eˣ", Y)))
log = math_function(register("log", "LogBackward0", np.log,
                             [lambda g, s: g / s.a],
                             ["∂ln x/∂x = 1/x"], saves=("a",), description="natural logarithm ln x",
                             explain=local("ln {0}", "自然对数 ln x", 1 / X0)))
sqrt = math_function(register("sqrt", "SqrtBackward0", np.sqrt,
                              [lambda g, s: g / (2 * s.out)],
                              ["∂√x/∂x = 1/(2√x)"], saves=("out",), description="square root √x",
                              explain=local("√{0}", "平方根 √x", 1 / (2 * Y))))
sin = math_function(register("sin", "SinBackward0", np.sin,
                             [lambda g, s: g * s.xp.cos(s.a)],
                             ["∂sin x/∂x = cos x"], saves=("a",), description="sine sin x",
                             explain=local("sin {0}", "正弦 sin x", E.cos(X0))))
cos = math_function(register("cos", "CosBackward0", np.cos,
                             [lambda g, s: -g * s.xp.sin(s.a)],
                             ["∂cos x/∂x = −sin x"], saves=("a",), description="cosine cos x",
                             explain=local("cos {0}", "余弦 cos x", -E.sin(X0))))
tanh = math_function(register("tanh", "TanhBackward0", np.tanh,
                              [lambda g, s: g * (1 - s.out * s.out)],
                              ["∂tanh x/∂x = 1 − tanh²x"], saves=("out",),
                              description="hyperbolic tangent tanh x",
                              explain=local("tanh {0}", "双曲正切 tanh x", 1 - Y ** 2)))


def _sigmoid(a):
    # Split by sign so exp never overflows.
    out = np.empty_like(a)
    pos = a >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-a[pos]))
    e = np.exp(a[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def logistic(xp, x):
    """σ(x) = 1 / (1 + e⁻ˣ) in a rule's world (``xp``), for the rules of ops built on it."""
    return 1 / (1 + xp.exp(-x))


sigmoid = math_function(register("sigmoid", "SigmoidBackward0", _sigmoid,
                                 [lambda g, s: g * s.out * (1 - s.out)],
                                 ["∂σ(x)/∂x = σ(x)·(1 − σ(x))"], saves=("out",),
                                 description="sigmoid σ(x) = 1/(1+e⁻ˣ)",
                                 explain=local("σ({0})", "sigmoid 函数 σ(x) = 1/(1+e⁻ˣ)", Y * (1 - Y))))
abs = unary(register("abs", "AbsBackward0", np.abs,  # noqa: A001 - torch's name
                     [lambda g, s: g * s.xp.sign(s.a)],
                     ["∂|x|/∂x = sign(x)"], saves=("a",), description="absolute value |x|",
                     explain=local("|{0}|", "绝对值 |x|", E.sign(X0))))
public("Tensor", name="__abs__")(abs)
relu = unary(register("relu", "ReluBackward0", lambda a: np.maximum(a, 0).astype(a.dtype, copy=False),
                      [lambda g, s: g * (s.out > 0)],
                      ["∂relu(x)/∂x = 1 if x > 0 else 0"], saves=("out",), description="ReLU: max(x, 0)",
                      explain=local("relu({0})", "ReLU 激活：max(x, 0)", E.where(E.gt(Y, 0), 1, 0))))
register("leaky_relu", "LeakyReluBackward0",
         lambda a, negative_slope: np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False),
         [lambda g, s: g * s.xp.where(s.a > 0, s.xp.const(1.0, s.xp.data(s.a)),
                                      s.xp.const(s.p["negative_slope"], s.xp.data(s.a)))],
         ["∂lrelu(x)/∂x = 1 if x > 0 else slope"], saves=("a",),
         description="leaky ReLU: x if x > 0 else slope·x",
         explain=local("leaky_relu({0}, {negative_slope})", "Leaky ReLU：x > 0 时为 x，否则为 slope·x",
                       E.where(E.gt(X0, 0), 1, P("negative_slope"))))


@public("torch")
def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x if x > 0 else slope·x (LeakyReluBackward0)."""
    input = A.tensor(input, "leaky_relu", "input", 1)
    negative_slope = A.real(negative_slope, "leaky_relu", "negative_slope", 2, "Number")
    return apply(OPS["leaky_relu"], (input,), {"negative_slope": negative_slope})


# ---- where ---------------------------------------------------------------------------------------------
def _where_vjp(pick_a: bool):
    def rule(g, s):
        xp = s.xp
        zero = xp.const(0.0, xp.data(g))
        return xp.where(s.c, g, zero) if pick_a else xp.where(s.c, zero, g)

    return rule


# The condition is data, not a graph input: torch's WhereBackward0 has two next_functions.
register("where", "WhereBackward0", lambda a, b, c: np.where(c, a, b),
         [_where_vjp(True), _where_vjp(False)],
         ["∂where(c,a,b)/∂a = c", "∂where(c,a,b)/∂b = ¬c"], saves=("c",), aux=1,
         description="where(condition, a, b)",
         explain=local("where({2}, {0}, {1})", "按条件逐元素选取：条件成立处取 a，否则取 b",
                       E.where(X2, 1, 0), E.where(X2, 0, 1)))


@public("torch")
def where(condition, input=None, other=None) -> Tensor:
    """Elementwise choice: ``input`` where ``condition`` holds, ``other`` elsewhere."""
    if input is None and other is None:
        raise RuntimeError("where(condition) with one argument is not supported by gradviz")
    cond = A.tensor(condition, "where", "condition", 1)
    if cond._data.dtype == np.uint8:
        cond = Tensor._make(cond._data.astype(np.bool_))
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{cond.dtype.name.capitalize()}")
    like = input if isinstance(input, Tensor) else other
    if not isinstance(like, Tensor):
        raise TypeError(A.must("where", "input", 2, "Tensor", input))
    a, b = operand(input, like, "where", "input", 2), operand(other, like, "where", "other", 3)
    if a._data.dtype != b._data.dtype:
        from ..dispatch import _cast, promote_types

        target = promote_types((a, b))
        a = a if a._data.dtype == target else _cast(a, target)
        b = b if b._data.dtype == target else _cast(b, target)
    return apply(OPS["where"], (a, b, cond))


# ---- maximum / minimum ---------------------------------------------------------------------------------
def _share(g, s, a_wins):
    """maximum/minimum: the gradient goes to the chosen side; ties split it in half (as torch)."""
    a, b = s.xp.data(s.a), s.xp.data(s.b)
    w = np.where(a == b, 0.5, a_wins(a, b).astype(np.float64))
    return g * s.xp.const(w, a)


def _maximum_vjp_a(g, s):
    return _share(g, s, np.greater)


def _maximum_vjp_b(g, s):
    return _share(g, s, np.less)


def _minimum_vjp_a(g, s):
    return _share(g, s, np.less)


def _minimum_vjp_b(g, s):
    return _share(g, s, np.greater)


register("maximum", "MaximumBackward0", np.maximum,
         [_maximum_vjp_a, _maximum_vjp_b],
         ["∂max(a,b)/∂a = 1 if a > b (½ if equal)", "∂max(a,b)/∂b = 1 if b > a (½ if equal)"],
         saves=("a", "b"), promote=True, description="elementwise maximum",
         needs=(("a", "b"), ("a", "b")),
         explain=local("max({0}, {1})", "逐元素取较大值",
                       E.where(E.gt(X0, X1), 1, E.where(E.eq(X0, X1), 0.5, 0)),
                       E.where(E.lt(X0, X1), 1, E.where(E.eq(X0, X1), 0.5, 0))))
register("minimum", "MinimumBackward0", np.minimum,
         [_minimum_vjp_a, _minimum_vjp_b],
         ["∂min(a,b)/∂a = 1 if a < b (½ if equal)", "∂min(a,b)/∂b = 1 if b < a (½ if equal)"],
         saves=("a", "b"), promote=True, description="elementwise minimum",
         needs=(("a", "b"), ("a", "b")),
         explain=local("min({0}, {1})", "逐元素取较小值",
                       E.where(E.lt(X0, X1), 1, E.where(E.eq(X0, X1), 0.5, 0)),
                       E.where(E.gt(X0, X1), 1, E.where(E.eq(X0, X1), 0.5, 0))))


@public("torch", "Tensor")
def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum of two tensors (MaximumBackward0)."""
    A.tensor(input, "maximum", "input", 1)
    return binary("maximum", input, A.tensor(other, "maximum", "other", 2))


@public("torch", "Tensor")
def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum of two tensors (MinimumBackward0)."""
    A.tensor(input, "minimum", "input", 1)
    return binary("minimum", input, A.tensor(other, "minimum", "other", 2))


# ---- clamp ---------------------------------------------------------------------------------------------
def _clamp(a, min=None, max=None):  # noqa: A002 - torch's argument names
    out = a
    if min is not None:
        out = np.maximum(out, np.asarray(min, dtype=a.dtype))
    if max is not None:
        out = np.minimum(out, np.asarray(max, dtype=a.dtype))
    return out if out is not a else a.copy()


def _clamp_vjp(g, s):
    a = s.xp.data(s.a)
    keep = np.ones(a.shape, dtype=np.bool_)
    if s.p.get("min") is not None:
        keep &= a >= s.p["min"]
    if s.p.get("max") is not None:
        keep &= a <= s.p["max"]
    return g * s.xp.const(keep, a)


register("clamp", "ClampBackward1", _clamp, [_clamp_vjp],
         ["∂clamp(x)/∂x = 1 if min ≤ x ≤ max else 0"], saves=("a",),
         description="each element limited to [min, max]",
         explain=local("clamp({0}, {min}, {max})", "把每个元素限制在 [min, max] 之内",
                       E.where(E.between(X0, P("min"), P("max")), 1, 0)))
register("clamp_min", "ClampMinBackward0", _clamp, [_clamp_vjp],
         ["∂clamp_min(x)/∂x = 1 if x ≥ min else 0"], saves=("a",),
         description="each element raised to at least min",
         explain=local("max({0}, {min})", "把每个元素限制为不小于 min", E.where(E.ge(X0, P("min")), 1, 0)))
register("clamp_max", "ClampMaxBackward0", _clamp, [_clamp_vjp],
         ["∂clamp_max(x)/∂x = 1 if x ≤ max else 0"], saves=("a",),
         description="each element lowered to at most max",
         explain=local("min({0}, {max})", "把每个元素限制为不大于 max", E.where(E.le(X0, P("max")), 1, 0)))


def _bounds(fn: str, input, min, max) -> tuple:  # noqa: A002
    """clamp's input and number bounds, checked."""
    input = A.tensor(input, fn, "input", 1)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        raise RuntimeError("gradviz supports clamp with number bounds only (not tensors)")
    min = A.optional_number(min, fn, "min")  # noqa: A001
    max = A.optional_number(max, fn, "max")  # noqa: A001
    if type(min) is complex or type(max) is complex:
        raise TypeError("complex numbers are not supported by gradviz")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return input, min, max


@public("torch", "Tensor", name="clip")
@public("torch", "Tensor")
def clamp(input: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Limit every element to [min, max] (ClampBackward1)."""
    input, min, max = _bounds("clamp", input, min, max)  # noqa: A001
    return apply(OPS["clamp"], (input,), {"min": min, "max": max})


@public("torch", "Tensor")
def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002
    """max(x, min) elementwise (ClampMinBackward0)."""
    input, min, _ = _bounds("clamp_min", input, min, None)  # noqa: A001
    return apply(OPS["clamp_min"], (input,), {"min": min})


@public("torch", "Tensor")
def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002
    """min(x, max) elementwise (ClampMaxBackward0)."""
    input, _, max = _bounds("clamp_max", input, None, max)  # noqa: A001
    return apply(OPS["clamp_max"], (input,), {"max": max})


@public("Tensor", name="clip_")
@public("Tensor")
def clamp_(self: Tensor, min=None, max=None) -> Tensor:  # noqa: A002
    """Clamp in place (ClampBackward1)."""
    self, min, max = _bounds("clamp_", self, min, max)  # noqa: A001
    return apply_inplace(OPS["clamp"], self, (), {"min": min, "max": max})

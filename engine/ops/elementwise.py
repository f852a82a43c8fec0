"""Elementwise ops of the table: arithmetic, pow, and unary functions."""

from __future__ import annotations

import math

import numpy as np

from .table import register


def _true_div(a, b):
    if a.dtype.kind != "f" and b.dtype.kind != "f":
        from ..dtypes import get_default_dtype

        dt = get_default_dtype().np
        return np.true_divide(a, b, dtype=dt)
    return np.true_divide(a, b)


def _to_copy(a, dtype):
    return a.astype(dtype)


register("to_copy", "ToCopyBackward0", _to_copy,
         [lambda g, s: g],
         ["∂(x.to(dtype))/∂x = 1"], description="dtype conversion")
register("clone", "CloneBackward0", lambda a: a.copy(),
         [lambda g, s: g],
         ["∂clone(x)/∂x = 1"], description="copy")

register("add", "AddBackward0", np.add,
         [lambda g, s: g, lambda g, s: g],
         ["∂(a+b)/∂a = 1", "∂(a+b)/∂b = 1"], promote=True, description="a + b")
register("add_alpha", "AddBackward0", lambda a, b, alpha: a + alpha * b,
         [lambda g, s: g, lambda g, s: g * s.p["alpha"]],
         ["∂(a+α·b)/∂a = 1", "∂(a+α·b)/∂b = α"], promote=True, description="a + α·b")
register("sub", "SubBackward0", np.subtract,
         [lambda g, s: g, lambda g, s: -g],
         ["∂(a−b)/∂a = 1", "∂(a−b)/∂b = −1"], promote=True, description="a − b")
register("sub_alpha", "SubBackward0", lambda a, b, alpha: a - alpha * b,
         [lambda g, s: g, lambda g, s: -g * s.p["alpha"]],
         ["∂(a−α·b)/∂a = 1", "∂(a−α·b)/∂b = −α"], promote=True, description="a − α·b")
register("rsub_scalar", "RsubBackward1", lambda a, other: other - a,
         [lambda g, s: -g],
         ["∂(c−a)/∂a = −1"], description="c − a")
register("mul", "MulBackward0", np.multiply,
         [lambda g, s: g * s.b, lambda g, s: g * s.a],
         ["∂(a·b)/∂a = b", "∂(a·b)/∂b = a"], saves=("a", "b"), promote=True, description="a · b",
         needs=(("b",), ("a",)))
register("div", "DivBackward0", _true_div,
         [lambda g, s: g / s.b, lambda g, s: -g * s.a / (s.b * s.b)],
         ["∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = −a/b²"], saves=("a", "b"), promote=True, description="a / b",
         needs=(("b",), ("a", "b")))
register("reciprocal", "ReciprocalBackward0", lambda a: 1.0 / a,
         [lambda g, s: -g * s.out * s.out],
         ["∂(1/x)/∂x = −1/x²"], saves=("out",), description="1 / x")
register("neg", "NegBackward0", np.negative,
         [lambda g, s: -g],
         ["∂(−x)/∂x = −1"], description="−x")


def _pow_scalar_vjp(g, s):
    e = s.p["exponent"]
    if e == 0:
        return g * 0.0
    return g * e * s.a ** (e - 1)


def _pow_tt_vjp_base(g, s):
    return g * s.b * s.a ** (s.b - 1)


def _pow_tt_vjp_exp(g, s):
    # torch masks base 0 with a non-negative exponent, so 0 ** b contributes 0 rather than nan.
    xp = s.xp
    zero = (s.a == 0) & (s.b >= 0)
    return g * xp.where(zero, 0.0, s.out * xp.log(s.a))


register("pow_scalar", "PowBackward0", lambda a, exponent: np.power(a, exponent).astype(a.dtype, copy=False),
         [_pow_scalar_vjp],
         ["∂(xⁿ)/∂x = n·xⁿ⁻¹"], saves=("a",), description="xⁿ")
register("pow", "PowBackward1", lambda a, b: np.power(a, b),
         [_pow_tt_vjp_base, _pow_tt_vjp_exp],
         ["∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·ln a"], saves=("a", "b", "out"), promote=True,
         description="aᵇ", needs=(("a", "b"), ("a", "b", "out")))
register("rpow_scalar", "PowBackward2", lambda a, base: np.power(np.asarray(base, dtype=a.dtype), a),
         [lambda g, s: g * s.out * math.log(s.p["base"]) if s.p["base"] > 0 else g * 0.0],
         ["∂(cˣ)/∂x = cˣ·ln c"], saves=("out",), description="cˣ")

register("exp", "ExpBackward0", np.exp,
         [lambda g, s: g * s.out],
         ["∂eˣ/∂x = eˣ"], saves=("out",), description="eˣ")
register("log", "LogBackward0", np.log,
         [lambda g, s: g / s.a],
         ["∂ln x/∂x = 1/x"], saves=("a",), description="ln x")
register("sqrt", "SqrtBackward0", np.sqrt,
         [lambda g, s: g / (2 * s.out)],
         ["∂√x/∂x = 1/(2√x)"], saves=("out",), description="√x")
register("abs", "AbsBackward0", np.abs,
         [lambda g, s: g * s.xp.sign(s.a)],
         ["∂|x|/∂x = sign(x)"], saves=("a",), description="|x|")
register("sin", "SinBackward0", np.sin,
         [lambda g, s: g * s.xp.cos(s.a)],
         ["∂sin x/∂x = cos x"], saves=("a",), description="sin x")
register("cos", "CosBackward0", np.cos,
         [lambda g, s: -g * s.xp.sin(s.a)],
         ["∂cos x/∂x = −sin x"], saves=("a",), description="cos x")
register("tanh", "TanhBackward0", np.tanh,
         [lambda g, s: g * (1 - s.out * s.out)],
         ["∂tanh x/∂x = 1 − tanh²x"], saves=("out",), description="tanh x")


def _sigmoid(a):
    # Split by sign so exp never overflows.
    out = np.empty_like(a)
    pos = a >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-a[pos]))
    e = np.exp(a[~pos])
    out[~pos] = e / (1.0 + e)
    return out


register("sigmoid", "SigmoidBackward0", _sigmoid,
         [lambda g, s: g * s.out * (1 - s.out)],
         ["∂σ(x)/∂x = σ(x)·(1 − σ(x))"], saves=("out",), description="σ(x) = 1/(1+e⁻ˣ)")
register("relu", "ReluBackward0", lambda a: np.maximum(a, 0).astype(a.dtype, copy=False),
         [lambda g, s: g * (s.out > 0)],
         ["∂relu(x)/∂x = 1 if x > 0 else 0"], saves=("out",), description="max(x, 0)")
register("leaky_relu", "LeakyReluBackward0",
         lambda a, negative_slope: np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False),
         [lambda g, s: g * s.xp.where(s.a > 0, s.xp.const(1.0, s.xp.data(s.a)),
                                      s.xp.const(s.p["negative_slope"], s.xp.data(s.a)))],
         ["∂lrelu(x)/∂x = 1 if x > 0 else slope"], saves=("a",), description="x if x > 0 else slope·x")


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
         description="where(condition, a, b)")


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
         needs=(("a", "b"), ("a", "b")))
register("minimum", "MinimumBackward0", np.minimum,
         [_minimum_vjp_a, _minimum_vjp_b],
         ["∂min(a,b)/∂a = 1 if a < b (½ if equal)", "∂min(a,b)/∂b = 1 if b < a (½ if equal)"],
         saves=("a", "b"), promote=True, description="elementwise minimum",
         needs=(("a", "b"), ("a", "b")))


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
         ["∂clamp(x)/∂x = 1 if min ≤ x ≤ max else 0"], saves=("a",), description="clamp(x, min, max)")
register("clamp_min", "ClampMinBackward0", _clamp, [_clamp_vjp],
         ["∂clamp_min(x)/∂x = 1 if x ≥ min else 0"], saves=("a",), description="max(x, min)")
register("clamp_max", "ClampMaxBackward0", _clamp, [_clamp_vjp],
         ["∂clamp_max(x)/∂x = 1 if x ≤ max else 0"], saves=("a",), description="min(x, max)")

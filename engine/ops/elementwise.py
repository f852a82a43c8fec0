"""Elementwise functions other than arithmetic: exp, log, sqrt, |x|, sin, cos, tanh, sigmoid, relu,
leaky_relu, where, maximum, minimum and clamp. Their table entries, then their public functions."""

from __future__ import annotations

import math

import numpy as np

from .. import arguments as A
from ..dispatch import _cast, apply, apply_inplace, promote_types
from ..dtypes import scalar_name
from ..errors import not_supported
from ..tensor import Tensor
from . import explain as E
from .arithmetic import pow
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
                             jvps=[lambda t, s: t * s.out], jvp_formulas=["eˣ·ẋ"],
                             explain=local("e^{0}", "指数函数 eˣ", Y)))
log = math_function(register("log", "LogBackward0", np.log,
                             [lambda g, s: g / s.a],
                             ["∂ln x/∂x = 1/x"], saves=("a",), description="natural logarithm ln x",
                             jvps=[lambda t, s: t / s.a], jvp_formulas=["ẋ/x"],
                             explain=local("ln {0}", "自然对数 ln x", 1 / X0)))
sqrt = math_function(register("sqrt", "SqrtBackward0", np.sqrt,
                              [lambda g, s: g / s.xp.mul_scalar(s.out, 2)],
                              ["∂√x/∂x = 1/(2√x)"], saves=("out",), description="square root √x",
                              jvps=[lambda t, s: t / (2 * s.out)], jvp_formulas=["ẋ/(2√x)"],
                              explain=local("√{0}", "平方根 √x", 1 / (2 * Y))))
sin = math_function(register("sin", "SinBackward0", np.sin,
                             [lambda g, s: g * s.xp.cos(s.a)],
                             ["∂sin x/∂x = cos x"], saves=("a",), description="sine sin x",
                             jvps=[lambda t, s: t * s.xp.cos(s.a)], jvp_formulas=["cos x·ẋ"],
                             explain=local("sin {0}", "正弦 sin x", E.cos(X0))))
cos = math_function(register("cos", "CosBackward0", np.cos,
                             [lambda g, s: -g * s.xp.sin(s.a)],
                             ["∂cos x/∂x = −sin x"], saves=("a",), description="cosine cos x",
                             jvps=[lambda t, s: -t * s.xp.sin(s.a)], jvp_formulas=["−sin x·ẋ"],
                             explain=local("cos {0}", "余弦 cos x", -E.sin(X0))))
tanh = math_function(register("tanh", "TanhBackward0", np.tanh,
                              [lambda g, s: s.xp.tanh_backward(g, s.out)],
                              ["∂tanh x/∂x = 1 − tanh²x"], saves=("out",),
                              description="hyperbolic tangent tanh x",
                              jvps=[lambda t, s: t * (1 - s.out * s.out)], jvp_formulas=["(1 − tanh²x)·ẋ"],
                              explain=local("tanh {0}", "双曲正切 tanh x", 1 - Y ** 2)))


# ---- more functions of one number (the gradient, and forward mode's tangent, is f′(x) times it) -------
def _zero(g, s):
    """Piecewise constant (rounding, sign): no gradient, and no tangent, almost everywhere."""
    return g * 0.0


_LN2, _LN10 = float(np.log(2.0)), float(np.log(10.0))
_TWO_OVER_SQRT_PI = 2.0 / float(np.sqrt(np.pi))
_erf_np = np.vectorize(math.erf, otypes=[np.float64])


def _erf(a):
    return _erf_np(a).astype(a.dtype, copy=False)


def _rsqrt_rule(g, s):
    return -0.5 * g * s.out * s.out * s.out


def _log1p_rule(g, s):
    return g / (1 + s.a)


def _expm1_rule(g, s):
    return g * (s.out + 1)


def _log2_rule(g, s):
    return g / (s.a * _LN2)


def _log10_rule(g, s):
    return g / (s.a * _LN10)


def _tan_rule(g, s):
    return g * (1 + s.out * s.out)


def _sinh_rule(g, s):  # cosh x = (eˣ + e⁻ˣ)/2
    return g * (s.xp.exp(s.a) + s.xp.exp(-s.a)) * 0.5


def _cosh_rule(g, s):  # sinh x = (eˣ − e⁻ˣ)/2
    return g * (s.xp.exp(s.a) - s.xp.exp(-s.a)) * 0.5


def _atan_rule(g, s):
    return g / (1 + s.a * s.a)


def _asin_rule(g, s):
    return g / s.xp.sqrt(1 - s.a * s.a)


def _acos_rule(g, s):
    return -g / s.xp.sqrt(1 - s.a * s.a)


def _erf_rule(g, s):
    return g * _TWO_OVER_SQRT_PI * s.xp.exp(-s.a * s.a)


def _smooth(name, grad_fn, forward, rule, formula, tangent, saves, description, explain):
    """An elementwise function with a diagonal Jacobian: one rule serves both modes (g·f′(x) and
    ẋ·f′(x)); integer tensors are cast to the default dtype first."""
    op = register(name, grad_fn, forward, [rule], [formula], saves=saves, description=description,
                  jvps=[rule], jvp_formulas=[tangent], explain=explain)
    return math_function(op)


def _stepwise(name, grad_fn, forward, description, forward_text, about_zh):
    """A piecewise-constant function (integers stay integers): zero gradient and tangent."""
    return unary(register(name, grad_fn, forward, [_zero], [f"∂{name}(x)/∂x = 0 (almost everywhere)"],
                          description=description, jvps=[_zero], jvp_formulas=["0"],
                          explain=local(forward_text, about_zh, 0)))


register("round", "RoundBackward0", np.round, [_zero], ["∂round(x)/∂x = 0 (almost everywhere)"],
         description="x rounded to the nearest integer (halves to even)", jvps=[_zero], jvp_formulas=["0"],
         explain=local("round({0})", "四舍五入到最近的整数（恰在中间时取偶数），几乎处处导数为 0", 0))
register("round_decimals", "RoundBackward1", lambda a, decimals: np.round(a, decimals), [_zero],
         ["∂round(x, d)/∂x = 0 (almost everywhere)"], description="x rounded to d decimals",
         jvps=[_zero], jvp_formulas=["0"],
         explain=local("round({0}, decimals={decimals})", "四舍五入到 d 位小数，几乎处处导数为 0", 0))
floor = _stepwise("floor", "FloorBackward0", np.floor, "⌊x⌋", "⌊{0}⌋", "向下取整 ⌊x⌋，几乎处处导数为 0")
ceil = _stepwise("ceil", "CeilBackward0", np.ceil, "⌈x⌉", "⌈{0}⌉", "向上取整 ⌈x⌉，几乎处处导数为 0")
trunc = _stepwise("trunc", "TruncBackward0", np.trunc, "x with its fraction dropped", "trunc({0})",
                  "去掉小数部分，几乎处处导数为 0")
sign = _stepwise("sign", "SignBackward0", np.sign, "sign(x): −1, 0 or 1", "sign({0})",
                 "符号函数 sign(x)：−1、0 或 1，几乎处处导数为 0")

# name, grad_fn, forward, rule, backward formula, forward-mode formula, saved, description, explanation
for _entry in (
    ("rsqrt", "RsqrtBackward0", lambda a: 1.0 / np.sqrt(a), _rsqrt_rule,
     "∂(1/√x)/∂x = −1/(2x√x)", "−ẋ/(2x√x)", ("out",), "1/√x",
     local("1/√{0}", "平方根的倒数 1/√x", -0.5 * Y ** 3)),
    ("log1p", "Log1PBackward0", np.log1p, _log1p_rule,
     "∂ln(1+x)/∂x = 1/(1+x)", "ẋ/(1+x)", ("a",), "ln(1 + x)",
     local("ln(1 + {0})", "自然对数 ln(1 + x)", 1 / (1 + X0))),
    ("expm1", "Expm1Backward0", np.expm1, _expm1_rule, "∂(eˣ−1)/∂x = eˣ", "eˣ·ẋ", ("out",), "eˣ − 1",
     local("e^{0} − 1", "eˣ − 1（x 很小时更精确）", Y + 1)),
    ("log2", "Log2Backward0", np.log2, _log2_rule, "∂log₂x/∂x = 1/(x·ln 2)", "ẋ/(x·ln 2)", ("a",), "log₂ x",
     local("log₂ {0}", "以 2 为底的对数 log₂ x", 1 / (X0 * E.log(2)))),
    ("log10", "Log10Backward0", np.log10, _log10_rule,
     "∂log₁₀x/∂x = 1/(x·ln 10)", "ẋ/(x·ln 10)", ("a",), "log₁₀ x",
     local("log₁₀ {0}", "以 10 为底的对数 log₁₀ x", 1 / (X0 * E.log(10)))),
    ("tan", "TanBackward0", np.tan, _tan_rule, "∂tan x/∂x = 1 + tan²x", "(1 + tan²x)·ẋ", ("out",), "tan x",
     local("tan {0}", "正切 tan x", 1 + Y ** 2)),
    ("sinh", "SinhBackward0", np.sinh, _sinh_rule, "∂sinh x/∂x = cosh x", "cosh x·ẋ", ("a",), "sinh x",
     local("sinh {0}", "双曲正弦 sinh x", E.cosh(X0))),
    ("cosh", "CoshBackward0", np.cosh, _cosh_rule, "∂cosh x/∂x = sinh x", "sinh x·ẋ", ("a",), "cosh x",
     local("cosh {0}", "双曲余弦 cosh x", E.sinh(X0))),
    ("atan", "AtanBackward0", np.arctan, _atan_rule, "∂atan x/∂x = 1/(1+x²)", "ẋ/(1+x²)", ("a",), "arctan x",
     local("atan {0}", "反正切 arctan x", 1 / (1 + X0 ** 2))),
    ("asin", "AsinBackward0", np.arcsin, _asin_rule,
     "∂asin x/∂x = 1/√(1−x²)", "ẋ/√(1−x²)", ("a",), "arcsin x",
     local("asin {0}", "反正弦 arcsin x", 1 / E.sqrt(1 - X0 ** 2))),
    ("acos", "AcosBackward0", np.arccos, _acos_rule,
     "∂acos x/∂x = −1/√(1−x²)", "−ẋ/√(1−x²)", ("a",), "arccos x",
     local("acos {0}", "反余弦 arccos x", -1 / E.sqrt(1 - X0 ** 2))),
    ("erf", "ErfBackward0", _erf, _erf_rule,
     "∂erf x/∂x = (2/√π)·e^(−x²)", "(2/√π)·e^(−x²)·ẋ", ("a",), "erf x",
     local("erf {0}", "误差函数 erf x", 2 / E.sqrt(math.pi) * E.exp(-X0 ** 2))),
):
    _smooth(*_entry)


@public("torch", "Tensor", name="round")
def _round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """x rounded to the nearest integer (halves to even), or to ``decimals`` decimals."""
    input = A.tensor(input, "round", "input", 1)
    decimals = A.integer(decimals, "round", "decimals")
    if decimals == 0:
        return apply(OPS["round"], (input,))
    return apply(OPS["round_decimals"], (input,), {"decimals": decimals})


@public("torch", "Tensor")
def square(input: Tensor) -> Tensor:
    """x² (PowBackward0, as PyTorch computes it)."""

    return pow(A.tensor(input, "square", "input", 1), 2)


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
                                 [lambda g, s: s.xp.sigmoid_backward(g, s.out)],
                                 ["∂σ(x)/∂x = σ(x)·(1 − σ(x))"], saves=("out",),
                                 description="sigmoid σ(x) = 1/(1+e⁻ˣ)",
                                 jvps=[lambda t, s: t * s.out * (1 - s.out)],
                                 jvp_formulas=["σ(x)·(1 − σ(x))·ẋ"],
                                 explain=local("σ({0})", "sigmoid 函数 σ(x) = 1/(1+e⁻ˣ)", Y * (1 - Y))))
abs = unary(register("abs", "AbsBackward0", np.abs,  # noqa: A001 - torch's name
                     [lambda g, s: g * s.xp.sign(s.a)],
                     ["∂|x|/∂x = sign(x)"], saves=("a",), description="absolute value |x|",
                     jvps=[lambda t, s: t * s.xp.sign(s.a)], jvp_formulas=["sign(x)·ẋ"],
                     explain=local("|{0}|", "绝对值 |x|", E.sign(X0))))
public("Tensor", name="__abs__")(abs)
relu = unary(register("relu", "ReluBackward0", lambda a: np.maximum(a, 0).astype(a.dtype, copy=False),
                      [lambda g, s: s.xp.threshold_backward(g, s.out, 0)],
                      ["∂relu(x)/∂x = 1 if x > 0 else 0"], saves=("out",), description="ReLU: max(x, 0)",
                      jvps=[lambda t, s: t * (s.out > 0)], jvp_formulas=["ẋ if x > 0 else 0"],
                      explain=local("relu({0})", "ReLU 激活：max(x, 0)", E.where(E.gt(Y, 0), 1, 0))))
register("leaky_relu", "LeakyReluBackward0",
         lambda a, negative_slope: np.where(a > 0, a, a * negative_slope).astype(a.dtype, copy=False),
         [lambda g, s: g * s.xp.where(s.a > 0, s.xp.const(1.0, s.xp.data(s.a)),
                                      s.xp.const(s.p["negative_slope"], s.xp.data(s.a)))],
         ["∂lrelu(x)/∂x = 1 if x > 0 else slope"], saves=("a",),
         description="leaky ReLU: x if x > 0 else slope·x",
         jvps=[lambda t, s: t * np.where(s.a > 0, 1.0, s.p["negative_slope"])],
         jvp_formulas=["ẋ if x > 0 else slope·ẋ"],
         explain=local("leaky_relu({0}, {negative_slope})", "Leaky ReLU：x > 0 时为 x，否则为 slope·x",
                       E.where(E.gt(X0, 0), 1, P("negative_slope"))))


@public("torch")
def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x if x > 0 else slope·x (LeakyReluBackward0)."""
    input = A.tensor(input, "leaky_relu", "input", 1)
    negative_slope = A.real(negative_slope, "leaky_relu", "negative_slope", 2, "Number")
    return apply(OPS["leaky_relu"], (input,), {"negative_slope": negative_slope})


# ---- where ---------------------------------------------------------------------------------------------
def _where_a(g, s):
    """where's rule for ``a`` (the gradient, or the tangent, where the condition holds)."""
    xp = s.xp
    return xp.where(s.c, g, xp.const(0.0, xp.data(g)))


def _where_b(g, s):
    """where's rule for ``b`` (the gradient, or the tangent, where the condition fails)."""
    xp = s.xp
    return xp.where(s.c, xp.const(0.0, xp.data(g)), g)


# The condition is data, not a graph input: torch's WhereBackward0 has two next_functions.
register("where", "WhereBackward0", lambda a, b, c: np.where(c, a, b),
         [_where_a, _where_b],
         ["∂where(c,a,b)/∂a = c", "∂where(c,a,b)/∂b = ¬c"], saves=("c",), aux=1,
         description="where(condition, a, b)",
         jvps=[_where_a, _where_b], jvp_formulas=["ȧ where c, else 0", "ḃ where not c, else 0"],
         explain=local("where({2}, {0}, {1})", "按条件逐元素选取：条件成立处取 a，否则取 b",
                       E.where(X2, 1, 0), E.where(X2, 0, 1)))


@public("torch")
def where(condition, input=None, other=None) -> Tensor:
    """Elementwise choice: ``input`` where ``condition`` holds, ``other`` elsewhere."""
    if input is None and other is None:
        raise not_supported("where(condition) with one argument")
    cond = A.tensor(condition, "where", "condition", 1)
    if cond._data.dtype == np.uint8:
        cond = Tensor._make(cond._data.astype(np.bool_))
    if cond._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{scalar_name(cond.dtype)}")
    like = input if isinstance(input, Tensor) else other
    if not isinstance(like, Tensor):
        raise TypeError(A.must("where", "input", 2, "Tensor", input))
    a, b = operand(input, like, "where", "input", 2), operand(other, like, "where", "other", 3)
    if a._data.dtype != b._data.dtype:

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
         needs=(("a", "b"), ("a", "b")), jvps=[_maximum_vjp_a, _maximum_vjp_b],
         jvp_formulas=["ȧ where a > b (½ȧ if equal)", "ḃ where b > a (½ḃ if equal)"],
         explain=local("max({0}, {1})", "逐元素取较大值",
                       E.where(E.gt(X0, X1), 1, E.where(E.eq(X0, X1), 0.5, 0)),
                       E.where(E.lt(X0, X1), 1, E.where(E.eq(X0, X1), 0.5, 0))))
register("minimum", "MinimumBackward0", np.minimum,
         [_minimum_vjp_a, _minimum_vjp_b],
         ["∂min(a,b)/∂a = 1 if a < b (½ if equal)", "∂min(a,b)/∂b = 1 if b < a (½ if equal)"],
         saves=("a", "b"), promote=True, description="elementwise minimum",
         needs=(("a", "b"), ("a", "b")), jvps=[_minimum_vjp_a, _minimum_vjp_b],
         jvp_formulas=["ȧ where a < b (½ȧ if equal)", "ḃ where b < a (½ḃ if equal)"],
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
         jvps=[_clamp_vjp], jvp_formulas=["ẋ if min ≤ x ≤ max else 0"],
         explain=local("clamp({0}, {min}, {max})", "把每个元素限制在 [min, max] 之内",
                       E.where(E.between(X0, P("min"), P("max")), 1, 0)))
register("clamp_min", "ClampMinBackward0", _clamp, [_clamp_vjp],
         ["∂clamp_min(x)/∂x = 1 if x ≥ min else 0"], saves=("a",),
         description="each element raised to at least min",
         jvps=[_clamp_vjp], jvp_formulas=["ẋ if x ≥ min else 0"],
         explain=local("max({0}, {min})", "把每个元素限制为不小于 min", E.where(E.ge(X0, P("min")), 1, 0)))
register("clamp_max", "ClampMaxBackward0", _clamp, [_clamp_vjp],
         ["∂clamp_max(x)/∂x = 1 if x ≤ max else 0"], saves=("a",),
         description="each element lowered to at most max",
         jvps=[_clamp_vjp], jvp_formulas=["ẋ if x ≤ max else 0"],
         explain=local("min({0}, {max})", "把每个元素限制为不大于 max", E.where(E.le(X0, P("max")), 1, 0)))


def _bounds(fn: str, input, min, max) -> tuple:  # noqa: A002
    """clamp's input and number bounds, checked."""
    input = A.tensor(input, fn, "input", 1)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        raise RuntimeError("gradviz supports clamp with number bounds only (not tensors)")
    min = A.optional_number(min, fn, "min")  # noqa: A001
    max = A.optional_number(max, fn, "max")  # noqa: A001
    if type(min) is complex or type(max) is complex:
        raise not_supported("complex numbers")
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

"""Arithmetic: + − × ÷ and powers. Their table entries, then ``torch.add`` and friends, the
Tensor's methods, in-place forms and Python operators."""

from __future__ import annotations

import math

import numpy as np

from .. import arguments as A
from .. import dtypes
from ..dispatch import apply, apply_inplace
from ..errors import not_supported
from ..tensor import Tensor
from . import explain as E
from .convert import to
from .explain import NO_DERIVATIVE, X0, X1, P, Y, both, eq, ge, gt, local, log, vjp, where
from .table import OPS, public, register
from .wrappers import binary, check_broadcast, is_number, operand, operator, reflected, unary


def _true_div(a, b):
    if a.dtype.kind != "f" and b.dtype.kind != "f":
        return np.true_divide(a, b, dtype=dtypes.get_default_dtype().np)
    return np.true_divide(a, b)


register("add", "AddBackward0", np.add,
         [lambda g, s: g, lambda g, s: g],
         ["∂(a+b)/∂a = 1", "∂(a+b)/∂b = 1"], promote=True,
         description="sum of two tensors, element by element",
         jvps=[lambda t, s: t, lambda t, s: t], jvp_formulas=["ȧ", "ḃ"],
         explain=local("{0} + {1}", "两个张量逐元素相加", 1, 1))
register("add_alpha", "AddBackward0", lambda a, b, alpha: a + alpha * b,
         [lambda g, s: g, lambda g, s: g * s.p["alpha"]],
         ["∂(a+α·b)/∂a = 1", "∂(a+α·b)/∂b = α"], promote=True, description="a tensor plus α times another",
         jvps=[lambda t, s: t, lambda t, s: t * s.p["alpha"]], jvp_formulas=["ȧ", "α·ḃ"],
         explain=local("{0} + {alpha}·{1}", "加上第二个张量的 α 倍", 1, P("alpha")))
register("sub", "SubBackward0", np.subtract,
         [lambda g, s: g, lambda g, s: -g],
         ["∂(a−b)/∂a = 1", "∂(a−b)/∂b = −1"], promote=True,
         description="difference of two tensors, element by element",
         jvps=[lambda t, s: t, lambda t, s: -t], jvp_formulas=["ȧ", "−ḃ"],
         explain=local("{0} − {1}", "两个张量逐元素相减", 1, -1))
register("sub_alpha", "SubBackward0", lambda a, b, alpha: a - alpha * b,
         [lambda g, s: g, lambda g, s: -g * s.p["alpha"]],
         ["∂(a−α·b)/∂a = 1", "∂(a−α·b)/∂b = −α"], promote=True, description="a tensor minus α times another",
         jvps=[lambda t, s: t, lambda t, s: -t * s.p["alpha"]], jvp_formulas=["ȧ", "−α·ḃ"],
         explain=local("{0} − {alpha}·{1}", "减去第二个张量的 α 倍", 1, -P("alpha")))
register("rsub_scalar", "RsubBackward1", lambda a, other: other - a,
         [lambda g, s: -g],
         ["∂(c−a)/∂a = −1"], description="a number minus a tensor",
         jvps=[lambda t, s: -t], jvp_formulas=["−ȧ"],
         explain=local("{other} − {0}", "一个数减去张量", -1))
register("mul", "MulBackward0", np.multiply,
         [lambda g, s: g * s.b, lambda g, s: g * s.a],
         ["∂(a·b)/∂a = b", "∂(a·b)/∂b = a"], saves=("a", "b"), promote=True,
         description="product of two tensors, element by element",
         needs=(("b",), ("a",)),
         jvps=[lambda t, s: t * s.b, lambda t, s: s.a * t], jvp_formulas=["ȧ·b", "a·ḃ"],
         explain=local("{0} · {1}", "两个张量逐元素相乘", X1, X0))
register("div", "DivBackward0", _true_div,
         [lambda g, s: g / s.b, lambda g, s: -g * s.a / (s.b * s.b)],
         ["∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = −a/b²"], saves=("a", "b"), promote=True,
         description="quotient of two tensors, element by element",
         needs=(("b",), ("a", "b")),
         jvps=[lambda t, s: t / s.b, lambda t, s: -t * s.a / (s.b * s.b)], jvp_formulas=["ȧ/b", "−a·ḃ/b²"],
         explain=local("{0} / {1}", "两个张量逐元素相除", 1 / X1, -X0 / X1 ** 2))
# tensor ÷ number as at::div(Tensor, Scalar) (cross_entropy with probability targets)
register("div_scalar", "DivBackward1", lambda a, other: (a / other).astype(a.dtype, copy=False),
         [lambda g, s: g / s.p["other"]],
         ["∂(a/c)/∂a = 1/c"], description="a tensor divided by a number c",
         jvps=[lambda t, s: t / s.p["other"]], jvp_formulas=["ȧ/c"],
         explain=local("{0} / {other}", "张量除以一个数 c", 1 / P("other")))
register("reciprocal", "ReciprocalBackward0", lambda a: 1.0 / a,
         [lambda g, s: -g * s.out * s.out],
         ["∂(1/x)/∂x = −1/x²"], saves=("out",), description="reciprocal 1/x",
         jvps=[lambda t, s: -t * s.out * s.out], jvp_formulas=["−ẋ/x²"],
         explain=local("1 / {0}", "倒数 1/x", -Y ** 2))
neg = unary(register("neg", "NegBackward0", np.negative,
                     [lambda g, s: -g],
                     ["∂(−x)/∂x = −1"], description="negation −x",
                     jvps=[lambda t, s: -t], jvp_formulas=["−ẋ"],
                     explain=local("−{0}", "取相反数", -1)))


def _pow_scalar_vjp(g, s):
    e = s.p["exponent"]
    if e == 0:
        return g * 0.0
    return g * s.xp.mul_scalar(s.a ** (e - 1), e)  # PyTorch's grad * (n * x^(n-1))


def _pow_tt_vjp_base(g, s):
    return g * s.b * s.a ** (s.b - 1)


def _pow_tt_vjp_exp(g, s):
    # torch masks base 0 with a non-negative exponent, so 0 ** b contributes 0 rather than nan.
    xp = s.xp
    zero = (s.a == 0) & (s.b >= 0)
    return g * xp.where(zero, 0.0, s.out * xp.log(s.a))


def _rpow_vjp(g, s):
    return g * s.out * math.log(s.p["base"]) if s.p["base"] > 0 else g * 0.0


# The forward-mode rules are the backward rules applied to the tangent: for these elementwise ops
# the Jacobian is diagonal, so ẏ = ∂y/∂x · ẋ is the same product as the gradient g · ∂y/∂x.
register("pow_scalar", "PowBackward0", lambda a, exponent: np.power(a, exponent).astype(a.dtype, copy=False),
         [_pow_scalar_vjp],
         ["∂(xⁿ)/∂x = n·xⁿ⁻¹"], saves=("a",), description="power xⁿ with a number n",
         jvps=[_pow_scalar_vjp], jvp_formulas=["n·xⁿ⁻¹·ẋ"],
         explain=local("{0}^{exponent}", "幂 xⁿ（n 是一个数）",
                       where(eq(P("exponent"), 0), 0, P("exponent") * X0 ** (P("exponent") - 1))))
register("pow", "PowBackward1", lambda a, b: np.power(a, b),
         [_pow_tt_vjp_base, _pow_tt_vjp_exp],
         ["∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·ln a"], saves=("a", "b", "out"), promote=True,
         description="power aᵇ of two tensors", needs=(("a", "b"), ("a", "b", "out")),
         jvps=[_pow_tt_vjp_base, _pow_tt_vjp_exp], jvp_formulas=["b·aᵇ⁻¹·ȧ", "aᵇ·ln a·ḃ"],
         explain=local("{0}^{1}", "幂 aᵇ（底和指数都是张量）", X1 * X0 ** (X1 - 1),
                       where(both(eq(X0, 0), ge(X1, 0)), 0, Y * log(X0))))
register("rpow_scalar", "PowBackward2", lambda a, base: np.power(np.asarray(base, dtype=a.dtype), a),
         [_rpow_vjp],
         ["∂(cˣ)/∂x = cˣ·ln c"], saves=("out",), description="a number c to the power of a tensor, cˣ",
         jvps=[_rpow_vjp], jvp_formulas=["cˣ·ln c·ẋ"],
         explain=local("{base}^{0}", "指数 cˣ（c 是一个数）", where(gt(P("base"), 0), Y * log(P("base")), 0)))


# ---- rounding divisions: floor_divide (//), div with a rounding mode, remainder (%) ------------------
def _int_zero_check(a, b) -> None:
    """Integer division by zero: torch's error (floats give inf or nan instead)."""
    if a.dtype.kind in "biu" and np.asarray(b).dtype.kind in "biu" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


def _floor_divide(a, b):
    _int_zero_check(a, b)
    return np.floor_divide(a, b)


def _floor_divide_scalar(a, other, reverse):
    return _floor_divide(np.asarray(other, dtype=a.dtype), a) if reverse else _floor_divide(a, other)


def _no_floor_divide_derivative(g, s):
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


def _no_floor_divide_tangent(t, s):
    raise NotImplementedError("Trying to use forward AD with aten::floor_divide that does not support it.")


def _rounded_div(a, b, rounding_mode):
    _int_zero_check(a, b)
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        q = np.floor_divide(a, b)
        return q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)))
    return np.trunc(a / b)


def _zero(g, s):
    """A piecewise-constant function: no gradient (and no tangent) almost everywhere."""
    return g * 0.0


def _remainder(a, b):
    _int_zero_check(a, b)
    return np.remainder(a, b)


def _remainder_vjp_b(g, s):
    q = np.floor_divide(s.xp.data(s.a), s.xp.data(s.b))
    return -g * s.xp.const(q, s.xp.data(s.a))


register("floor_divide", "torch::autograd::NotImplemented", _floor_divide,
         [_no_floor_divide_derivative, _no_floor_divide_derivative],
         ["⌊a/b⌋: no derivative in PyTorch", "⌊a/b⌋: no derivative in PyTorch"], promote=True,
         description="⌊a / b⌋", jvps=[_no_floor_divide_tangent, _no_floor_divide_tangent],
         jvp_formulas=["⌊a/b⌋: no forward-mode rule in PyTorch", "⌊a/b⌋: no forward-mode rule in PyTorch"],
         explain=vjp("{0} // {1}", "整除 ⌊a / b⌋（PyTorch 没有定义它的导数）", NO_DERIVATIVE, NO_DERIVATIVE))
register("floor_divide_scalar", "torch::autograd::NotImplemented", _floor_divide_scalar,
         [_no_floor_divide_derivative], ["⌊a/c⌋: no derivative in PyTorch"],
         description="⌊a / c⌋ (or ⌊c / a⌋) for a number c", jvps=[_no_floor_divide_tangent],
         jvp_formulas=["⌊a/c⌋: no forward-mode rule in PyTorch"],
         explain=vjp("{0} // {other}", "与一个数 c 整除（PyTorch 没有定义它的导数）", NO_DERIVATIVE,
                     reversed_forward="{other} // {0}"))
register("div_rounding", "DivBackward2", _rounded_div,
         [_zero, _zero], ["∂round(a/b)/∂a = 0", "∂round(a/b)/∂b = 0"], promote=True,
         description="a / b rounded (floor or trunc)", jvps=[_zero, _zero], jvp_formulas=["0", "0"],
         explain=local("torch.div({0}, {1}, rounding_mode={rounding_mode})",
                       "取整的除法 a / b（向下取整或截断），几乎处处导数为 0", 0, 0))
register("remainder_scalar", "RemainderBackward0", lambda a, other: _remainder(a, np.asarray(other, a.dtype)),
         [lambda g, s: g], ["∂(a mod c)/∂a = 1"], description="a mod c (the sign of c) for a number c",
         jvps=[lambda t, s: t], jvp_formulas=["ȧ"],
         explain=local("{0} % {other}", "对一个数 c 取余（结果与 c 同号）", 1))
register("remainder", "RemainderBackward1", _remainder,
         [lambda g, s: g, _remainder_vjp_b], ["∂(a mod b)/∂a = 1", "∂(a mod b)/∂b = −⌊a/b⌋"],
         saves=("a", "b"), promote=True, description="a mod b (the sign of b)", needs=((), ("a", "b")),
         jvps=[lambda t, s: t, _remainder_vjp_b], jvp_formulas=["ȧ", "−⌊a/b⌋·ḃ"],
         explain=local("{0} % {1}", "两个张量逐元素取余（结果与 b 同号）", 1, -E.floor(X0 / X1)))


# ---- functions ---------------------------------------------------------------------------------------
def _alpha(fn: str, input, other, alpha) -> tuple | None:
    """The operands of ``fn(input, other, alpha=...)`` when alpha is not 1, or None."""
    if type(alpha) is int and alpha == 1:
        return None
    alpha = A.number(alpha, fn, "alpha")
    if alpha == 1:
        return None
    if not isinstance(input, Tensor):
        raise TypeError(A.must(fn, "input", 1, "Tensor", input))
    return operand(input, other, fn, "input", 1), operand(other, input, fn), alpha


@public("torch", "Tensor")
def add(input, other, *, alpha=1) -> Tensor:
    """input + alpha * other, with broadcasting."""
    ops = _alpha("add", input, other, alpha)
    if ops is not None:
        a, b, alpha = ops
        check_broadcast(a, b)
        return apply(OPS["add_alpha"], (a, b), {"alpha": alpha})
    return binary("add", input, other)


@public("torch", "Tensor")
def sub(input, other, *, alpha=1) -> Tensor:
    """input - alpha * other, with broadcasting."""
    ops = _alpha("sub", input, other, alpha)
    if ops is not None:
        a, b, alpha = ops
        check_broadcast(a, b)
        return apply(OPS["sub_alpha"], (a, b), {"alpha": alpha})
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return rsub(other, input)
    return binary("sub", input, other)


@public("torch")
def rsub(input: Tensor, other) -> Tensor:
    """other - input (``number - tensor``: RsubBackward1)."""
    input = A.tensor(input, "rsub", "input", 1)
    if is_number(other):
        if type(other) is complex:
            raise not_supported("complex numbers")
        return apply(OPS["rsub_scalar"], (input,), {"other": A.number(other, "rsub", "other", 2)})
    return binary("sub", other, input)


@public("torch", "Tensor")
def mul(input, other) -> Tensor:
    """input * other, with broadcasting."""
    return binary("mul", input, other)


@public("torch", "Tensor")
def div(input, other, *, rounding_mode=None) -> Tensor:
    """input / other (true division), or rounded (``rounding_mode`` "floor" or "trunc"), broadcast."""
    if rounding_mode is not None:
        if type(rounding_mode) is not str or rounding_mode not in ("floor", "trunc"):
            shown = f"'{rounding_mode}'" if type(rounding_mode) is str else A.type_name(rounding_mode)
            raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               + shown)
        if not isinstance(input, Tensor):
            if not isinstance(other, Tensor):
                raise TypeError(A.must("div", "input", 1, "Tensor", input))
            input = operand(input, other, "div", "input", 1)
        b = operand(other, input, "div", "other", 2)
        check_broadcast(input, b)
        return apply(OPS["div_rounding"], (input, b), {"rounding_mode": rounding_mode})
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return mul(reciprocal(other), A.number(input, "div", "input", 1))
    return binary("div", input, other)


@public("torch", "Tensor")
def true_divide(input, other) -> Tensor:
    """``div``."""
    return div(input, other)


@public("torch", "Tensor")
def floor_divide(input, other) -> Tensor:
    """⌊input / other⌋ elementwise (no derivative, as in PyTorch)."""
    if isinstance(input, Tensor) and is_number(other):
        return _scalar_rounding("floor_divide_scalar", input, other, False)
    if is_number(input) and isinstance(other, Tensor):
        return _scalar_rounding("floor_divide_scalar", other, input, True)
    return binary("floor_divide", input, other)


@public("torch", "Tensor")
def remainder(input, other) -> Tensor:
    """input mod other with the sign of other (Python's %), elementwise."""
    if isinstance(input, Tensor) and is_number(other):
        return _scalar_rounding("remainder_scalar", input, other, None)
    return binary("remainder", input, other)


def _scalar_rounding(name: str, input: Tensor, other, reverse) -> Tensor:
    """``input`` with a number: the number is a parameter (not a graph input), as in PyTorch;
    the result takes the dtype torch's promotion gives (an integer tensor and a float: float)."""
    other = A.number(other, name.split("_scalar")[0], "other", 2)
    if type(other) is complex:
        raise not_supported("complex numbers")
    if isinstance(other, float) and not input.dtype.is_floating_point:
        input = to(input, dtypes.get_default_dtype())
    params = {"other": other} if reverse is None else {"other": other, "reverse": reverse}
    return apply(OPS[name], (input,), params)


@public("torch", "Tensor")
def reciprocal(input: Tensor) -> Tensor:
    """1 / input (ReciprocalBackward0)."""
    input = A.tensor(input, "reciprocal", "input", 1)
    if not input.dtype.is_floating_point:
        input = to(input, dtypes.get_default_dtype())
    return apply(OPS["reciprocal"], (input,))


@public("torch", "Tensor")
def pow(input, exponent) -> Tensor:  # noqa: A001 - torch's name
    """input ** exponent for tensor/number in either position."""
    if not isinstance(input, Tensor):
        if not isinstance(exponent, Tensor):
            raise TypeError(A.must("pow", "input", 1, "Tensor", input))
        base = A.number(input, "pow", "self", 1)
        if type(base) is complex:
            raise not_supported("complex numbers")
        ex = exponent if exponent.dtype.is_floating_point or isinstance(base, int) else \
            to(exponent, dtypes.get_default_dtype())
        return apply(OPS["rpow_scalar"], (ex,), {"base": base})
    if isinstance(exponent, Tensor):
        return binary("pow", input, exponent)
    exponent = A.number(exponent, "pow", "exponent", 2)
    if type(exponent) is complex:
        raise not_supported("complex numbers")
    x = input
    if isinstance(exponent, float) and not x.dtype.is_floating_point:
        x = to(x, dtypes.get_default_dtype())
    return apply(OPS["pow_scalar"], (x,), {"exponent": exponent})


# ---- in place and operators ----------------------------------------------------------------------------
def _inplace(name: str):
    """Publish ``Tensor.<name>_`` and ``Tensor.__i<name>__``: the op written into ``self``."""

    def method(self: Tensor, other, *, alpha=1) -> Tensor:
        o = operand(other, self, name + "_", "other", 1)
        if not (type(alpha) is int and alpha == 1):
            alpha = A.number(alpha, name + "_", "alpha")
            if alpha != 1:
                return apply_inplace(OPS[name + "_alpha"], self, (o,), {"alpha": alpha})
        return apply_inplace(OPS[name], self, (o,))

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"``{name}`` in place."
    public("Tensor")(method)
    public("Tensor", name=f"__i{'truediv' if name == 'div' else name}__")(reflected(method))


for _name in ("add", "sub", "mul", "div"):
    _inplace(_name)


@public("Tensor")
def floor_divide_(self: Tensor, other) -> Tensor:
    """``floor_divide`` in place (``//=``)."""
    if is_number(other):
        other = A.number(other, "floor_divide_", "other", 1)
        return apply_inplace(OPS["floor_divide_scalar"], self, (), {"other": other, "reverse": False})
    return apply_inplace(OPS["floor_divide"], self, (operand(other, self, "floor_divide_", "other", 1),))


public("Tensor", name="__ifloordiv__")(reflected(floor_divide_))

_add, _mul = operator("add"), operator("mul")
_OPERATORS = {
    "__add__": _add, "__radd__": _add, "__sub__": operator("sub"), "__rsub__": reflected(rsub),
    "__mul__": _mul, "__rmul__": _mul, "__truediv__": operator("div"),
    "__rtruediv__": reflected(lambda self, other: mul(reciprocal(self), other)),
    "__pow__": reflected(pow), "__rpow__": reflected(lambda self, other: pow(other, self)),
    "__floordiv__": reflected(floor_divide),
    "__rfloordiv__": reflected(lambda self, other: floor_divide(other, self)),
    "__mod__": reflected(remainder), "__rmod__": reflected(lambda self, other: remainder(other, self)),
    "__neg__": neg, "__pos__": lambda self: self,
}
for _name, _method in _OPERATORS.items():
    public("Tensor", name=_name)(_method)

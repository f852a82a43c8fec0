"""Arithmetic: + − × ÷ and powers. Their table entries, then ``torch.add`` and friends, the
Tensor's methods, in-place forms and Python operators."""

from __future__ import annotations

import math

import numpy as np

from .. import arguments as A
from .. import dtypes
from ..dispatch import apply, apply_inplace
from ..tensor import Tensor
from .convert import to
from .explain import X0, X1, P, Y, both, eq, ge, gt, local, log, where
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
         explain=local("{0} + {1}", "两个张量逐元素相加", 1, 1))
register("add_alpha", "AddBackward0", lambda a, b, alpha: a + alpha * b,
         [lambda g, s: g, lambda g, s: g * s.p["alpha"]],
         ["∂(a+α·b)/∂a = 1", "∂(a+α·b)/∂b = α"], promote=True, description="a tensor plus α times another",
         explain=local("{0} + {alpha}·{1}", "加上第二个张量的 α 倍", 1, P("alpha")))
register("sub", "SubBackward0", np.subtract,
         [lambda g, s: g, lambda g, s: -g],
         ["∂(a−b)/∂a = 1", "∂(a−b)/∂b = −1"], promote=True,
         description="difference of two tensors, element by element",
         explain=local("{0} − {1}", "两个张量逐元素相减", 1, -1))
register("sub_alpha", "SubBackward0", lambda a, b, alpha: a - alpha * b,
         [lambda g, s: g, lambda g, s: -g * s.p["alpha"]],
         ["∂(a−α·b)/∂a = 1", "∂(a−α·b)/∂b = −α"], promote=True, description="a tensor minus α times another",
         explain=local("{0} − {alpha}·{1}", "减去第二个张量的 α 倍", 1, -P("alpha")))
register("rsub_scalar", "RsubBackward1", lambda a, other: other - a,
         [lambda g, s: -g],
         ["∂(c−a)/∂a = −1"], description="a number minus a tensor",
         explain=local("{other} − {0}", "一个数减去张量", -1))
register("mul", "MulBackward0", np.multiply,
         [lambda g, s: g * s.b, lambda g, s: g * s.a],
         ["∂(a·b)/∂a = b", "∂(a·b)/∂b = a"], saves=("a", "b"), promote=True,
         description="product of two tensors, element by element",
         needs=(("b",), ("a",)), explain=local("{0} · {1}", "两个张量逐元素相乘", X1, X0))
register("div", "DivBackward0", _true_div,
         [lambda g, s: g / s.b, lambda g, s: -g * s.a / (s.b * s.b)],
         ["∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = −a/b²"], saves=("a", "b"), promote=True,
         description="quotient of two tensors, element by element",
         needs=(("b",), ("a", "b")), explain=local("{0} / {1}", "两个张量逐元素相除", 1 / X1, -X0 / X1 ** 2))
# tensor ÷ number as at::div(Tensor, Scalar) (cross_entropy with probability targets)
register("div_scalar", "DivBackward1", lambda a, other: (a / other).astype(a.dtype, copy=False),
         [lambda g, s: g / s.p["other"]],
         ["∂(a/c)/∂a = 1/c"], description="a tensor divided by a number c",
         explain=local("{0} / {other}", "张量除以一个数 c", 1 / P("other")))
register("reciprocal", "ReciprocalBackward0", lambda a: 1.0 / a,
         [lambda g, s: -g * s.out * s.out],
         ["∂(1/x)/∂x = −1/x²"], saves=("out",), description="reciprocal 1/x",
         explain=local("1 / {0}", "倒数 1/x", -Y ** 2))
neg = unary(register("neg", "NegBackward0", np.negative,
                     [lambda g, s: -g],
                     ["∂(−x)/∂x = −1"], description="negation −x",
                     explain=local("−{0}", "取相反数", -1)))


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
         ["∂(xⁿ)/∂x = n·xⁿ⁻¹"], saves=("a",), description="power xⁿ with a number n",
         explain=local("{0}^{exponent}", "幂 xⁿ（n 是一个数）",
                       where(eq(P("exponent"), 0), 0, P("exponent") * X0 ** (P("exponent") - 1))))
register("pow", "PowBackward1", lambda a, b: np.power(a, b),
         [_pow_tt_vjp_base, _pow_tt_vjp_exp],
         ["∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·ln a"], saves=("a", "b", "out"), promote=True,
         description="power aᵇ of two tensors", needs=(("a", "b"), ("a", "b", "out")),
         explain=local("{0}^{1}", "幂 aᵇ（底和指数都是张量）", X1 * X0 ** (X1 - 1),
                       where(both(eq(X0, 0), ge(X1, 0)), 0, Y * log(X0))))
register("rpow_scalar", "PowBackward2", lambda a, base: np.power(np.asarray(base, dtype=a.dtype), a),
         [lambda g, s: g * s.out * math.log(s.p["base"]) if s.p["base"] > 0 else g * 0.0],
         ["∂(cˣ)/∂x = cˣ·ln c"], saves=("out",), description="a number c to the power of a tensor, cˣ",
         explain=local("{base}^{0}", "指数 cˣ（c 是一个数）", where(gt(P("base"), 0), Y * log(P("base")), 0)))


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
            raise TypeError("complex numbers are not supported by gradviz")
        return apply(OPS["rsub_scalar"], (input,), {"other": A.number(other, "rsub", "other", 2)})
    return binary("sub", other, input)


@public("torch", "Tensor")
def mul(input, other) -> Tensor:
    """input * other, with broadcasting."""
    return binary("mul", input, other)


@public("torch", "Tensor")
def div(input, other, *, rounding_mode=None) -> Tensor:
    """input / other (true division), with broadcasting."""
    if rounding_mode is not None:
        raise RuntimeError("div with rounding_mode is not supported by gradviz")
    if not isinstance(input, Tensor) and isinstance(other, Tensor):
        return mul(reciprocal(other), A.number(input, "div", "input", 1))
    return binary("div", input, other)


@public("torch", "Tensor")
def true_divide(input, other) -> Tensor:
    """``div``."""
    return div(input, other)


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
            raise TypeError("complex numbers are not supported by gradviz")
        ex = exponent if exponent.dtype.is_floating_point or isinstance(base, int) else \
            to(exponent, dtypes.get_default_dtype())
        return apply(OPS["rpow_scalar"], (ex,), {"base": base})
    if isinstance(exponent, Tensor):
        return binary("pow", input, exponent)
    exponent = A.number(exponent, "pow", "exponent", 2)
    if type(exponent) is complex:
        raise TypeError("complex numbers are not supported by gradviz")
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

_add, _mul = operator("add"), operator("mul")
_OPERATORS = {
    "__add__": _add, "__radd__": _add, "__sub__": operator("sub"), "__rsub__": reflected(rsub),
    "__mul__": _mul, "__rmul__": _mul, "__truediv__": operator("div"),
    "__rtruediv__": reflected(lambda self, other: mul(reciprocal(self), other)),
    "__pow__": reflected(pow), "__rpow__": reflected(lambda self, other: pow(other, self)),
    "__neg__": neg, "__pos__": lambda self: self,
}
for _name, _method in _OPERATORS.items():
    public("Tensor", name=_name)(_method)

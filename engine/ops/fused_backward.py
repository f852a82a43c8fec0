"""The ops PyTorch's backward formulas call as single functions, so that a gradient computed with
``create_graph=True`` draws PyTorch's graph: ``tanh_backward`` (TanhBackwardBackward0),
``sigmoid_backward`` (SigmoidBackwardBackward0), ``threshold_backward`` (ReLU's rule,
ThresholdBackwardBackward0), ``softmax_backward_data`` and ``log_softmax_backward_data``
(SoftmaxBackwardDataBackward0, LogSoftmaxBackwardDataBackward0), ``mse_loss_backward``
(MseLossBackwardBackward0), and ``mul_scalar``, a tensor
times a number inside a formula (MulBackward1: PyTorch's Scalar overload, where a program's
``x * 2`` is MulBackward0).

A rule calls them through its world (``s.xp.tanh_backward(g, y)``): ``NP`` (engine.ops.table)
computes the same arithmetic on arrays as before (the first-order pass is unchanged, bit for bit);
``TX`` records the entry below, whose own rules are PyTorch's double-backward formulas.
"""

from __future__ import annotations

import numpy as np

from ..dispatch import apply
from . import explain as E
from .explain import X0, X1, X2, G, P, exp, local, scaled, sum_over, vjp
from .table import OPS, register


def tanh_backward(g, y):
    """g·(1 − y²) as a recorded op (``s.xp.tanh_backward`` in the Tensor world)."""
    return apply(OPS["tanh_backward"], (g, y), {})


def sigmoid_backward(g, y):
    """g·y·(1 − y) as a recorded op."""
    return apply(OPS["sigmoid_backward"], (g, y), {})


def threshold_backward(g, y, threshold=0.0):
    """g where y > threshold, else 0, as a recorded op."""
    return apply(OPS["threshold_backward"], (g, y), {"threshold": threshold})


def softmax_backward_data(g, y, dim):
    """y·(g − Σ g·y) along ``dim``, as a recorded op."""
    return apply(OPS["softmax_backward_data"], (g, y), {"dim": dim})


def log_softmax_backward_data(g, y, dim):
    """g − eʸ·Σ g along ``dim``, as a recorded op."""
    return apply(OPS["log_softmax_backward_data"], (g, y), {"dim": dim})


def mul_scalar(x, other):
    """x · other for a number ``other`` (MulBackward1)."""
    return apply(OPS["mul_scalar"], (x,), {"other": other})


def mse_loss_backward(g, x, y, reduction):
    """2·(x − y)·g (÷ n for "mean") as a recorded op: the gradient mse_loss sends to ``x`` (to the
    target, PyTorch calls it with x and y swapped)."""
    return apply(OPS["mse_loss_backward"], (g, x, y), {"reduction": reduction, "shape": tuple(x._data.shape)})


def mse_scaled(g, reduction, shape):
    """The upstream gradient as each element sees it: ÷ n for "mean" (mse_loss's ``norm``)."""
    if reduction == "mean":
        return g / int(np.prod(shape, dtype=np.int64))
    return g


def _mse_backward(g, x, y, reduction, shape):
    return 2 * (x - y) * mse_scaled(g, reduction, shape)


def _mse_double(gg, s):
    """PyTorch's ``mse_loss_double_backward``: 2·gg·g (÷ n for "mean")."""
    return mse_scaled(gg * s.a * 2, s.p["reduction"], s.p["shape"])


def _mse_grad_output(gg, s):
    """PyTorch's ``mse_loss_double_backward_grad_output``: Σ 2·(x − y)·gg (÷ n for "mean"), or the
    elementwise products for "none"."""
    per = 2 * (s.b - s.c) * gg
    if s.p["reduction"] == "none":
        return per
    return mse_scaled(s.xp.sum(per), s.p["reduction"], s.p["shape"])


register("tanh_backward", "TanhBackwardBackward0", lambda g, y: g * (1 - y * y),
         [lambda gg, s: s.xp.tanh_backward(gg, s.b), lambda gg, s: gg * (-2 * s.b * s.a)],
         ["∂/∂g = 1 − y²", "∂/∂y = −2·y·g"], saves=("a", "b"), promote=True,
         description="tanh's backward formula g·(1 − y²), as one op",
         jvps=[lambda t, s: t * (1 - s.b * s.b), lambda t, s: t * (-2 * s.b * s.a)],
         jvp_formulas=["(1 − y²)·ġ", "−2·y·g·ẏ"],
         explain=local("{0} · (1 − {1}²)", "tanh 的反向公式 g·(1 − y²)，作为一个运算",
                       1 - X1 ** 2, -2 * X1 * X0))
register("sigmoid_backward", "SigmoidBackwardBackward0", lambda g, y: g * y * (1 - y),
         [lambda gg, s: s.xp.sigmoid_backward(gg, s.b), lambda gg, s: gg * s.a * (1 - 2 * s.b)],
         ["∂/∂g = y·(1 − y)", "∂/∂y = g·(1 − 2y)"], saves=("a", "b"), promote=True,
         description="sigmoid's backward formula g·y·(1 − y), as one op",
         jvps=[lambda t, s: t * s.b * (1 - s.b), lambda t, s: t * s.a * (1 - 2 * s.b)],
         jvp_formulas=["y·(1 − y)·ġ", "g·(1 − 2y)·ẏ"],
         explain=local("{0} · {1} · (1 − {1})", "sigmoid 的反向公式 g·y·(1 − y)，作为一个运算",
                       X1 * (1 - X1), X0 * (1 - 2 * X1)))
register("threshold_backward", "ThresholdBackwardBackward0",
         lambda g, y, threshold: g * (y > threshold),
         [lambda gg, s: s.xp.threshold_backward(gg, s.b, s.p["threshold"]), lambda gg, s: gg * 0.0],
         ["∂/∂g = 1 if y > t else 0", "∂/∂y = 0"], saves=("b",), promote=True,
         description="ReLU's backward formula: g where y > threshold, else 0, as one op",
         jvps=[lambda t, s: t * (s.b > s.p["threshold"]), lambda t, s: t * 0.0],
         jvp_formulas=["ġ if y > t else 0", "0"],
         explain=local("{0} · [{1} > {threshold}]", "ReLU 的反向公式：y > 阈值处取 g，其余为 0，作为一个运算",
                       E.where(E.gt(X1, P("threshold")), 1, 0), 0))
register("mse_loss_backward", "MseLossBackwardBackward0", _mse_backward,
         [_mse_grad_output, _mse_double, lambda gg, s: -_mse_double(gg, s)],
         ["∂/∂g = 2(x − y) (÷ n for mean)", "∂/∂x = 2g (÷ n for mean)", "∂/∂y = −2g (÷ n for mean)"],
         saves=("a", "b", "c"), promote=True,
         description="mse_loss's backward formula 2·(x − y)·g (÷ n for mean), as one op",
         jvps=[lambda t, s: _mse_backward(t, s.b, s.c, s.p["reduction"], s.p["shape"]),
               lambda t, s: mse_scaled(2 * s.a * t, s.p["reduction"], s.p["shape"]),
               lambda t, s: mse_scaled(-2 * s.a * t, s.p["reduction"], s.p["shape"])],
         jvp_formulas=["2(x − y)·ġ (÷ n for mean)", "2g·ẋ (÷ n for mean)", "−2g·ẏ (÷ n for mean)"],
         explain=local("2 · ({1} − {2}) · {0}",
                       "mse_loss 的反向公式 2·(x − y)·g（mean 时再 ÷ n），作为一个运算",
                       scaled(2 * (X1 - X2)), scaled(2 * X0), scaled(-2 * X0)))
register("mul_scalar", "MulBackward1", lambda a, other: (a * other).astype(a.dtype, copy=False),
         [lambda g, s: s.xp.mul_scalar(g, s.p["other"])],
         ["∂(x·c)/∂x = c"], description="a tensor times a number, inside a backward formula",
         jvps=[lambda t, s: t * s.p["other"]], jvp_formulas=["c·ẋ"],
         explain=local("{0} · {other}", "张量乘以一个数（反向公式中的一步）", P("other")))



def _axis(s):
    return s.p["dim"] if s.xp.data(s.b).ndim else None


def _softmax_data(g, y, dim):
    return y * (g - np.sum(g * y, axis=dim if y.ndim else None, keepdims=True))


def _log_softmax_data(g, y, dim):
    return g - np.exp(y) * np.sum(g, axis=dim if y.ndim else None, keepdims=True)


def _softmax_data_vjp_y(gg, s):
    xp, g, y, d = s.xp, s.a, s.b, _axis(s)
    return g * gg - xp.sum(y * g, axis=d, keepdims=True) * gg - g * xp.sum(y * gg, axis=d, keepdims=True)


register("softmax_backward_data", "SoftmaxBackwardDataBackward0", _softmax_data,
         [lambda gg, s: s.xp.softmax_backward_data(gg, s.b, s.p["dim"]), _softmax_data_vjp_y],
         ["∂/∂g: y·(gg − Σ gg·y)", "∂/∂y: g·gg − (Σ y·g)·gg − g·Σ y·gg"], saves=("a", "b"), promote=True,
         description="softmax's backward formula y·(g − Σ g·y) along dim, as one op",
         jvps=[lambda t, s: s.b * (t - s.xp.sum(t * s.b, axis=_axis(s), keepdims=True)),
               lambda t, s: t * (s.a - s.xp.sum(s.a * s.b, axis=_axis(s), keepdims=True))
               - s.b * s.xp.sum(s.a * t, axis=_axis(s), keepdims=True)],
         jvp_formulas=["y·(ġ − Σ ġ·y)", "ẏ·(g − Σ g·y) − y·Σ g·ẏ"],
         explain=vjp("{1} · ({0} − Σ {0}·{1})", "softmax 的反向公式 y·(g − Σ g·y)，作为一个运算",
                     X1 * (G - sum_over(G * X1)),
                     X0 * G - sum_over(X1 * X0) * G - X0 * sum_over(X1 * G)))
register("log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", _log_softmax_data,
         [lambda gg, s: gg - s.xp.sum(gg * s.xp.exp(s.b), axis=_axis(s), keepdims=True),
          lambda gg, s: -s.xp.sum(s.a, axis=_axis(s), keepdims=True) * s.xp.exp(s.b) * gg],
         ["∂/∂g: gg − Σ gg·eʸ", "∂/∂y: −(Σ g)·eʸ·gg"], saves=("a", "b"), promote=True,
         description="log_softmax's backward formula g − eʸ·Σ g along dim, as one op",
         jvps=[lambda t, s: t - s.xp.exp(s.b) * s.xp.sum(t, axis=_axis(s), keepdims=True),
               lambda t, s: -s.xp.exp(s.b) * t * s.xp.sum(s.a, axis=_axis(s), keepdims=True)],
         jvp_formulas=["ġ − eʸ·Σ ġ", "−eʸ·ẏ·Σ g"],
         explain=vjp("{0} − exp({1})·Σ {0}", "log_softmax 的反向公式 g − eʸ·Σ g，作为一个运算",
                     G - sum_over(G * exp(X1)), -sum_over(X0) * exp(X1) * G))

"""Oracle cases (the format of oracle_cases.py) for the fused backward formulas PyTorch records when a
gradient is made with ``create_graph=True``: each case's output is a first derivative, so its graph
holds the op, and the oracle compares its value, its grad_fn names and its own gradient (the second
derivative) with PyTorch's."""

from __future__ import annotations

from oracle_cases import Case, arr, inputs


def _first(lib, f, x):
    """∂(Σ f(x))/∂x with create_graph=True: the gradient as a differentiable tensor."""
    return lib.autograd.grad(f(lib, x).sum(), x, create_graph=True)[0]


def _weighted(lib, y):
    """A fixed non-uniform weighting, so a softmax's first derivative is not all zeros."""
    return y * lib.arange(1.0, 1.0 + y.shape[-1], dtype=y.dtype)


CASES: list[Case] = [
    Case("tanh_backward", lambda t, x: _first(t, lambda L, v: L.tanh(v), x), inputs(arr(3, 4)), "matrix"),
    Case("tanh_backward", lambda t, x: _first(t, lambda L, v: L.tanh(v), x), inputs(arr()), "scalar"),
    Case("sigmoid_backward", lambda t, x: _first(t, lambda L, v: L.sigmoid(v), x), inputs(arr(5)), "vector"),
    Case("sigmoid_backward", lambda t, x: _first(t, lambda L, v: L.nn.functional.sigmoid(v), x),
         inputs(arr(2, 3)), "matrix"),
    Case("threshold_backward", lambda t, x: _first(t, lambda L, v: L.relu(v) * v, x),
         inputs(arr(3, 4, away=0.1)), "relu-times-x"),
    Case("softmax_backward_data", lambda t, x: _first(t, lambda L, v: _weighted(L, L.softmax(v, dim=1)), x),
         inputs(arr(2, 4)), "rows"),
    Case("softmax_backward_data", lambda t, x: _first(t, lambda L, v: _weighted(L, L.softmax(v, dim=0)), x),
         inputs(arr(3)), "vector"),
    Case("log_softmax_backward_data",
         lambda t, x: _first(t, lambda L, v: _weighted(L, L.log_softmax(v, dim=-1)), x),
         inputs(arr(2, 5)), "rows"),
    Case("mse_loss_backward", lambda t, x, y: _first(t, lambda L, v: L.nn.functional.mse_loss(v, y), x),
         inputs(arr(3, 4), arr(3, 4)), "mean"),
    Case("mse_loss_backward",
         lambda t, x, y: _first(t, lambda L, v: L.nn.functional.mse_loss(v * 2, y, reduction="sum"), x),
         inputs(arr(5), arr(5)), "sum"),
    Case("mse_loss_backward",
         lambda t, x, y: _first(t, lambda L, v: L.nn.functional.mse_loss(y, v * v, reduction="none"), x),
         inputs(arr(2, 3), arr(2, 3)), "none-target"),
    Case("mse_loss_backward",
         lambda t, x, y: t.autograd.grad(t.nn.functional.mse_loss(x, y), (x, y), create_graph=True)[1],
         inputs(arr(4), arr(4)), "grad-of-target"),
    Case("mul_scalar", lambda t, x: _first(t, lambda L, v: v ** 3, x), inputs(arr(4)), "pow"),
    Case("mul_scalar", lambda t, x: _first(t, lambda L, v: L.sqrt(v), x), inputs(arr(2, 3, low=0.5)), "sqrt"),
]

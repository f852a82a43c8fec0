"""Which suspicious gradients each op of the table can cause, for the page's "Why?" diagnosis.

A diagnosis (app/worker/why/) walks a recorded backward pass and blames an op for a gradient only
for a cause the op declares here; every op of ``OPS`` has an entry (a test holds it), an empty
one for an op that only routes the gradient (``add``, a reshape). The causes:

- ``cut``: its derivative is 0 everywhere (``round``, ``floor``, ``sign``; the overwritten value
  of a fill or a copy), so nothing flows back through it;
- ``zeroed``: it sends 0 to some elements (a ReLU's inputs ≤ 0, ``clamp`` outside its range, the
  branch ``where`` did not take, the elements ``max`` or an index did not pick, a factor that is 0);
- ``vanish`` / ``explode``: its local derivative can be far below / above 1 (a saturated sigmoid or
  tanh, large or small weights, a mean over many elements);
- ``nonfinite``: its output or its local derivative can be inf or NaN (log or sqrt of ≤ 0,
  division by 0, an overflowing exp).
"""

from __future__ import annotations

KINDS = ("cut", "zeroed", "vanish", "explode", "nonfinite")

_SCALE = frozenset({"vanish", "explode"})
_PRODUCT = frozenset({"zeroed", "vanish", "explode", "nonfinite"})  # a factor: 0, small, large, inf
_SATURATES = frozenset({"vanish"})
_ALL_BUT_CUT = frozenset({"zeroed", "vanish", "explode", "nonfinite"})
_ROUTE = frozenset()

CAUSES: dict[str, frozenset[str]] = {
    # no derivative anywhere: PyTorch's rule sends zeros
    **dict.fromkeys(("ceil", "floor", "round", "round_decimals", "sign", "trunc", "div_rounding",
                     "floor_divide", "floor_divide_scalar", "fill", "zero"), frozenset({"cut"})),
    "fill_tensor": frozenset({"cut"}),
    "copy": frozenset({"cut"}),
    # masks: some elements get 0
    **dict.fromkeys(("relu", "clamp", "clamp_min", "clamp_max", "max", "min", "max_dim", "min_dim",
                     "maximum", "minimum", "where", "index", "as_strided", "index_put", "copy_slices",
                     "select", "slice", "abs", "nll_loss", "nll_loss2d", "index_select", "gather", "diagonal",
                     "topk", "split", "split_with_sizes", "unbind", "scatter", "scatter_value",
                     "masked_fill"),
                    frozenset({"zeroed"})),
    # saturating activations
    **dict.fromkeys(("sigmoid", "tanh", "erf", "gelu", "silu", "softplus", "elu", "elu_", "leaky_relu",
                     "leaky_relu_", "atan", "sin", "cos", "softmax", "log_softmax",
                     "binary_cross_entropy_with_logits"), _SATURATES | {"zeroed"}),
    # PyTorch's fused backward formulas, recorded when a gradient is made with create_graph=True
    **dict.fromkeys(("tanh_backward", "sigmoid_backward", "softmax_backward_data",
                     "log_softmax_backward_data"), _SATURATES | {"zeroed"}),
    "threshold_backward": frozenset({"zeroed"}),
    "mul_scalar": _PRODUCT,
    # products and their relatives
    **dict.fromkeys(("mul", "mm", "mv", "bmm", "addmm", "dot", "prod", "prod_dim", "cumprod"), _PRODUCT),
    **dict.fromkeys(("div", "div_scalar", "pow", "pow_scalar", "rpow_scalar", "reciprocal"), _ALL_BUT_CUT),
    **dict.fromkeys(("exp", "expm1", "sinh", "cosh", "tan"), _SCALE | {"nonfinite"}),
    **dict.fromkeys(("log", "log10", "log2", "log1p", "sqrt", "rsqrt", "asin", "acos", "norm", "std",
                     "var", "binary_cross_entropy", "mse_loss", "mse_loss_backward"), _SCALE | {"nonfinite"}),
    **dict.fromkeys(("sum", "sum_dim", "mean", "mean_dim", "expand", "cumsum"), _SCALE | {"nonfinite"}),
    **dict.fromkeys(("add_alpha", "sub_alpha", "remainder", "remainder_scalar", "to_copy"),
                    frozenset({"zeroed"}) | _SCALE),
    # what only routes the gradient
    **dict.fromkeys(("add", "sub", "neg", "rsub_scalar", "alias", "clone", "cat", "stack", "permute",
                     "transpose", "t", "view", "unsafe_view", "reshape_alias", "squeeze", "squeeze_dim",
                     "squeeze_dims", "squeeze_tuple", "unsqueeze", "gelu_backward", "sort", "diag_embed"),
                    _ROUTE),
}


def can_cause(op: str, cause: str) -> bool:
    """Whether op ``op`` (a table key) declares that it can cause ``cause`` (one of ``KINDS``)."""
    return cause in CAUSES.get(op, _ROUTE)

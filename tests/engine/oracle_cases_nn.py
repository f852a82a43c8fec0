"""Oracle cases for the activations and losses of the table (engine/ops/activations.py, losses.py), in
the format of ``oracle_cases``.

Loss weights are built inside ``fn`` (torch refuses weights that require grad); integer arrays
are class targets.
"""

from __future__ import annotations

from oracle_cases import Case, arr, inputs, ints, unary


def _F(t):
    return t.nn.functional


def _w(t, values):
    return t.tensor(values, dtype=t.float64)


SHAPES = {"vector": (5,), "matrix": (3, 4), "batched": (2, 3, 4)}
Y4 = ints([0, 2, 1, 2])  # class targets of a (4, 3) batch
Y23 = ints([[0, 2, 1, 1], [2, 2, 0, 1]])  # targets of a (2, 3, 4) batch
Y2322 = ints([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])  # targets of a (2, 3, 2, 2) batch

CASES: list[Case] = [
    # ---- softmax / log_softmax over every dim and shape family ------------------------------------
    *[
        Case("softmax", lambda t, x, d=d: t.softmax(x, d), inputs(arr(*shape)), f"{label}-dim{d}")
        for label, shape in SHAPES.items()
        for d in (0, -1)
    ],
    Case("softmax", lambda t, x: _F(t).softmax(x, dim=1), inputs(arr(2, 3, 4)), "batched-dim1"),
    Case("softmax", lambda t, x: x.softmax(0), inputs(arr()), "scalar"),
    Case("softmax", lambda t, x: t.softmax(x * 40.0, 1), inputs(arr(3, 4)), "large-logits", False),
    *[
        Case("log_softmax", lambda t, x, d=d: t.log_softmax(x, d), inputs(arr(*shape)), f"{label}-dim{d}")
        for label, shape in SHAPES.items()
        for d in (0, -1)
    ],
    Case("log_softmax", lambda t, x: _F(t).log_softmax(x, 1), inputs(arr(2, 3, 4)), "batched-dim1"),
    Case("log_softmax", lambda t, x: x.log_softmax(-1), inputs(arr()), "scalar"),
    Case("log_softmax", lambda t, x: t.log_softmax(x * 40.0, 1), inputs(arr(3, 4)), "large-logits", False),
    # ---- nll_loss (directly and through cross_entropy) --------------------------------------------
    *[
        Case(
            "nll_loss",
            lambda t, x, y, r=r: _F(t).nll_loss(x, y, reduction=r),
            inputs(arr(4, 3), Y4),
            f"matrix-{r}",
        )
        for r in ("mean", "sum", "none")
    ],
    *[
        Case(
            "nll_loss",
            lambda t, x, y, r=r: _F(t).nll_loss(x, y, weight=_w(t, [0.2, 1.5, 0.7]), reduction=r),
            inputs(arr(4, 3), Y4),
            f"weight-{r}",
        )
        for r in ("mean", "sum", "none")
    ],
    Case(
        "nll_loss",
        lambda t, x, y: _F(t).nll_loss(x, y, ignore_index=1),
        inputs(arr(4, 3), ints([0, 1, 1, 2])),
        "ignore-index",
    ),
    Case(
        "nll_loss",
        lambda t, x, y: _F(t).nll_loss(x, y, ignore_index=1, reduction="none"),
        inputs(arr(4, 3), ints([0, 1, 1, 2])),
        "ignore-index-none",
    ),
    Case("nll_loss", lambda t, x, y: _F(t).nll_loss(x, y), inputs(arr(5), ints(3)), "vector"),
    Case(
        "nll_loss",
        lambda t, x, y: _F(t).nll_loss(x, y, reduction="none"),
        inputs(arr(5), ints(3)),
        "vector-none",
    ),
    Case("nll_loss2d", lambda t, x, y: _F(t).nll_loss(x, y), inputs(arr(2, 3, 4), Y23), "batched"),
    Case(
        "nll_loss2d",
        lambda t, x, y: _F(t).nll_loss(x, y, reduction="none"),
        inputs(arr(2, 3, 4), Y23),
        "batched-none",
    ),
    Case(
        "nll_loss2d",
        lambda t, x, y: _F(t).nll_loss(x, y, weight=_w(t, [0.2, 1.5, 0.7]), reduction="none"),
        inputs(arr(2, 3, 2, 2), Y2322),
        "image-none",
    ),
    Case(
        "nll_loss2d",
        lambda t, x, y: _F(t).nll_loss(x, y, ignore_index=0),
        inputs(arr(2, 3, 2, 2), Y2322),
        "image-ignore",
    ),
    *[
        Case(
            "nll_loss",
            lambda t, x, y, r=r: _F(t).cross_entropy(x, y, reduction=r),
            inputs(arr(4, 3), Y4),
            f"cross-entropy-{r}",
        )
        for r in ("mean", "sum", "none")
    ],
    Case(
        "nll_loss",
        lambda t, x, y: _F(t).cross_entropy(x, y, weight=_w(t, [1.0, 2.0, 0.5])),
        inputs(arr(4, 3), Y4),
        "cross-entropy-weight",
    ),
    Case(
        "nll_loss",
        lambda t, x, y: t.nn.CrossEntropyLoss()(x, y),
        inputs(arr(5), ints(4)),
        "cross-entropy-vector",
    ),
    Case(
        "nll_loss2d",
        lambda t, x, y: _F(t).cross_entropy(x, y),
        inputs(arr(2, 3, 4), Y23),
        "cross-entropy-batched",
    ),
    # ---- cross_entropy with class probabilities: torch ends it with at::div(Tensor, Scalar) ----------------
    Case(
        "div_scalar",
        lambda t, x, p: _F(t).cross_entropy(x, p.softmax(1)),
        inputs(arr(4, 3), arr(4, 3)),
        "cross-entropy-probs",
    ),
    Case(
        "div_scalar",
        lambda t, x, p: _F(t).cross_entropy(x, p.softmax(1), weight=_w(t, [0.5, 1.0, 2.0])),
        inputs(arr(4, 3), arr(4, 3)),
        "cross-entropy-probs-weight",
    ),
    # ---- mse_loss ----------------------------------------------------------------------------------------
    *[
        Case(
            "mse_loss",
            lambda t, x, y, r=r: _F(t).mse_loss(x, y, reduction=r),
            inputs(arr(*shape), arr(*shape)),
            f"{label}-{r}",
        )
        for label, shape in {"scalar": (), **SHAPES}.items()
        for r in ("mean", "sum", "none")
    ],
    Case("mse_loss", lambda t, x, y: t.nn.MSELoss()(x, y), inputs(arr(3, 4), arr(3, 4)), "module"),
    # ---- binary_cross_entropy (probabilities away from 0 and 1, and at them: logs clamped at -100) ---
    *[
        Case(
            "binary_cross_entropy",
            lambda t, p, y, r=r: _F(t).binary_cross_entropy(p, y, reduction=r),
            inputs(arr(*shape, low=0.05, high=0.95), arr(*shape, low=0.0, high=1.0)),
            f"{label}-{r}",
        )
        for label, shape in {"scalar": (), **SHAPES}.items()
        for r in ("mean", "sum", "none")
    ],
    Case(
        "binary_cross_entropy",
        lambda t, x, y: _F(t).binary_cross_entropy(t.sigmoid(x), y),
        inputs(arr(6), arr(6, low=0.0, high=1.0)),
        "after-sigmoid",
    ),
    Case(
        "binary_cross_entropy",
        lambda t, p, y: _F(t).binary_cross_entropy(p, y, weight=_w(t, [0.5, 1.0, 2.0, 3.0])),
        inputs(arr(3, 4, low=0.05, high=0.95), arr(3, 4, low=0.0, high=1.0)),
        "weight",
    ),
    Case(
        "binary_cross_entropy",
        lambda t, x: _F(t).binary_cross_entropy(t.sigmoid(x * 100.0), _w(t, [1.0, 0.0, 1.0, 0.0])),
        inputs(arr(4, away=0.5)),
        "saturated",
        finite_diff=False,  # the logs are clamped at -100 here, on purpose
    ),
    Case(
        "binary_cross_entropy",
        lambda t, p, y: t.nn.BCELoss(reduction="sum")(p, y),
        inputs(arr(5, low=0.05, high=0.95), arr(5, low=0.0, high=1.0)),
        "module",
    ),
    # ---- binary_cross_entropy_with_logits ------------------------------------------------------------------
    *[
        Case(
            "binary_cross_entropy_with_logits",
            lambda t, x, y, r=r: _F(t).binary_cross_entropy_with_logits(x, y, reduction=r),
            inputs(arr(*shape, low=-4.0, high=4.0), arr(*shape, low=0.0, high=1.0)),
            f"{label}-{r}",
        )
        for label, shape in {"scalar": (), **SHAPES}.items()
        for r in ("mean", "sum", "none")
    ],
    Case(
        "binary_cross_entropy_with_logits",
        lambda t, x, y: _F(t).binary_cross_entropy_with_logits(
            x, y, weight=_w(t, [0.5, 1.0, 2.0, 3.0]), pos_weight=_w(t, [2.0, 0.5, 1.0, 3.0])
        ),
        inputs(arr(3, 4, low=-4.0, high=4.0), arr(3, 4, low=0.0, high=1.0)),
        "weight-pos-weight",
    ),
    Case(
        "binary_cross_entropy_with_logits",
        lambda t, x, y: t.nn.BCEWithLogitsLoss(pos_weight=_w(t, [3.0]))(x * 30.0, y),
        inputs(arr(5), arr(5, low=0.0, high=1.0)),
        "large-logits-module",
        False,
    ),
    # ---- F.linear on a 1-D input without bias: unsqueeze, mm, squeeze(dims) as torch ---------------
    Case("squeeze_dims", lambda t, x, w: _F(t).linear(x, w), inputs(arr(4), arr(3, 4)), "linear-vector"),
    Case("addmm", lambda t, x, w, b: _F(t).linear(x, w, b), inputs(arr(5, 4), arr(3, 4), arr(3)), "linear"),
    Case(
        "addmm", lambda t, x, w, b: _F(t).linear(x, w, b), inputs(arr(4), arr(3, 4), arr(3)), "linear-vector"
    ),
    Case(
        "addmm",
        lambda t, x, w, b: _F(t).linear(x, w, b),
        inputs(arr(2, 5, 4), arr(3, 4), arr(3)),
        "linear-batched",
    ),
    Case("mm", lambda t, x, w: _F(t).linear(x, w), inputs(arr(5, 4), arr(3, 4)), "linear-no-bias"),
    Case(
        "unsafe_view", lambda t, x, w: _F(t).linear(x, w), inputs(arr(2, 5, 4), arr(3, 4)), "linear-batched"
    ),
]
CASES += [
    Case(
        "leaky_relu_",
        lambda t, x: t.nn.functional.leaky_relu(x * 1.0, 0.2, inplace=True),
        inputs(arr(3, 4, away=0.1)),
        "matrix",
    ),
    Case(
        "leaky_relu_",
        lambda t, x: t.nn.LeakyReLU(0.05, inplace=True)(t.exp(x) - 1.0),
        inputs(arr(5, away=0.1)),
        "module",
    ),
]
CASES += [
    *unary("silu", lambda t, x: t.nn.functional.silu(x)),
    Case("silu", lambda t, x: t.nn.SiLU(inplace=True)(x * 1.0), inputs(arr(3, 4)), "inplace"),
    *unary("elu", lambda t, x: t.nn.functional.elu(x), away=0.05),
    Case("elu", lambda t, x: t.nn.ELU(alpha=0.5)(x), inputs(arr(3, 4, away=0.05)), "alpha"),
    Case(
        "elu_",
        lambda t, x: t.nn.functional.elu(x * 1.0, 0.7, inplace=True),
        inputs(arr(3, 4, away=0.05)),
        "matrix",
    ),
    Case("elu_", lambda t, x: t.nn.ELU(inplace=True)(x * 2.0), inputs(arr(5, away=0.05)), "module"),
    *unary("softplus", lambda t, x: t.nn.functional.softplus(x)),
    Case(
        "softplus",
        lambda t, x: t.nn.Softplus(beta=2.0, threshold=3.0)(x * 2.0),
        inputs(arr(3, 4, away=0.05)),
        "beta-threshold",
    ),
]
CASES += [
    *unary("gelu", lambda t, x: t.nn.functional.gelu(x)),
    Case("gelu", lambda t, x: t.nn.GELU()(x * 3.0), inputs(arr(3, 4)), "module-wide"),
    # torch records gelu's gradient as one GeluBackwardBackward0 node under create_graph=True
    Case(
        "gelu_backward",
        lambda t, x: t.autograd.grad(t.nn.functional.gelu(x).sum(), x, create_graph=True)[0],
        inputs(arr(3, 4)),
        "grad",
    ),
    Case(
        "gelu_backward",
        lambda t, x, v: t.autograd.grad(t.nn.functional.gelu(x), x, v, create_graph=True)[0],
        inputs(arr(5), arr(5)),
        "grad-of-weighted",
    ),
]

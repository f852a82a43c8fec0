"""Oracle cases for course idioms built from several ops, in the format of ``oracle_cases``:
masked_fill, and cross_entropy with ``label_smoothing`` (torch's AddBackward0 of two MulBackward1,
one over nll_loss and one over the masked, reduced −Σ log q).
"""

from __future__ import annotations

from oracle_cases import Case, arr, bools, inputs, ints


def _F(t):
    return t.nn.functional


def _w(t, values):
    return t.tensor(values, dtype=t.float64)


Y5 = ints([0, 3, 1, 2, 3])  # class targets of a (5, 4) batch

CASES: list[Case] = [
    Case("masked_fill", lambda t, x, m: x.masked_fill(m, 0.5), inputs(arr(3, 4), bools(arr(3, 4))), "matrix"),
    Case("masked_fill", lambda t, x, m: t.masked_fill(x, m, -2.0), inputs(arr(3, 4), bools(arr(4))),
         "broadcast-mask"),
    Case("masked_fill", lambda t, x, m: (x * 1.0).masked_fill_(m, 3.0), inputs(arr(2, 3), bools(arr(2, 3))),
         "in-place"),
    *[
        Case(
            "mul_scalar",
            lambda t, x, y, r=r: _F(t).cross_entropy(x, y, reduction=r, label_smoothing=0.2),
            inputs(arr(5, 4), Y5),
            f"label-smoothing-{r}",
        )
        for r in ("mean", "sum", "none")
    ],
    Case(
        "masked_fill",
        lambda t, x, y: _F(t).cross_entropy(x, y, ignore_index=3, label_smoothing=0.1),
        inputs(arr(5, 4), Y5),
        "label-smoothing-ignore",
    ),
    Case(
        "mul_scalar",
        lambda t, x, y: _F(t).cross_entropy(x, y, weight=_w(t, [1.0, 2.0, 0.5, 3.0]), label_smoothing=0.3),
        inputs(arr(5, 4), Y5),
        "label-smoothing-weight",
    ),
    Case(
        "mul_scalar",
        lambda t, x, y: t.nn.CrossEntropyLoss(weight=_w(t, [1.0, 2.0, 0.5, 3.0]), ignore_index=0,
                                              label_smoothing=0.25)(x, y),
        inputs(arr(5, 4), Y5),
        "label-smoothing-weight-ignore",
    ),
    Case(
        "mul_scalar",
        lambda t, x, y: _F(t).cross_entropy(x, y, label_smoothing=0.1),
        inputs(arr(2, 4, 3), ints([[0, 1, 3], [2, 2, 0]])),
        "label-smoothing-batched",
    ),
    Case(
        "div_scalar",
        lambda t, x, p: _F(t).cross_entropy(x, p.softmax(1), label_smoothing=0.2),
        inputs(arr(4, 3), arr(4, 3)),
        "label-smoothing-probs",
    ),
]

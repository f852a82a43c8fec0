"""Oracle cases: every op of ``engine.ops.table.OPS`` run by the engine and by PyTorch.

THE CASE FORMAT (tests/engine/oracle_cases_nn.py and oracle_cases_ops.py follow it too and export ``CASES``;
``all_cases()`` gives every list):

    Case(op, fn, inputs, label="", second_order=True, finite_diff=True)

- ``op``: the key in ``engine.ops.table.OPS`` this case covers. The test checks that the output's
  graph really contains a node of that op (so a case cannot cover an op by name only).
- ``fn(lib, *tensors) -> Tensor``: ONE function run twice, once with ``lib = engine`` and once with
  ``lib = torch`` (``import engine as torch`` runs the same code). It must return one tensor
  (e.g. ``lambda t, x: t.max(x, 1).values``).
- ``inputs(rng) -> list``: the arguments as NumPy arrays, built from ``rng`` (a
  ``numpy.random.Generator``). float64 arrays become leaves with ``requires_grad=True``; integer
  and bool arrays become plain tensors (indices, masks, targets).
- ``label``: the shape family, e.g. "scalar", "vector", "matrix", "broadcast", "batched".
- ``second_order``: False when double backward is not meaningful here (e.g. softmax of logits so
  large that its second derivatives vanish below the finite-difference noise).
- ``finite_diff``: False when central differences cannot check the case at all: inputs on a tie
  or kink on purpose (the oracle checks PyTorch's choice there), or a float32 step inside.

The oracle (test_ops_oracle.py) compares first-order values, grad_fn names, next_functions and
gradients with PyTorch in float64 within 1e-10 relative; the finite-difference test
(test_finite_diff.py) checks the first derivatives of every case, and the second derivatives
(through ``create_graph=True``) of those with ``second_order``.

Helpers ``unary``, ``binary`` and ``arr`` below build families of cases over the usual shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Case:
    """One op applied to one family of input shapes (see the module docstring)."""

    op: str
    fn: Callable
    inputs: Callable
    label: str = ""
    second_order: bool = True
    finite_diff: bool = True
    backward_error: bool = False  # PyTorch has no derivative here: backward must fail as PyTorch's does

    @property
    def id(self) -> str:
        return f"{self.op}-{self.label}" if self.label else self.op


def arr(*shape, low=-2.0, high=2.0, away=0.0):
    """An input builder: a float64 array of ``shape`` uniform in [low, high), |x| >= away."""

    def build(rng):
        x = rng.uniform(low, high, shape)
        if away:
            x = np.where(np.abs(x) < away, np.sign(x + 1e-300) * away, x)
        return x

    return build


def ints(values):
    """An input builder: a fixed int64 array (indices)."""
    return lambda rng: np.asarray(values, dtype=np.int64)


def bools(build_from):
    """An input builder: a bool mask, ``x > 0`` on the array ``build_from`` builds."""
    return lambda rng: build_from(rng) > 0


def inputs(*builders):
    """Combine per-argument builders into one ``inputs(rng)``."""
    return lambda rng: [b(rng) for b in builders]


UNARY_SHAPES = {"scalar": (), "vector": (5,), "matrix": (3, 4), "batched": (2, 3, 4)}
BINARY_SHAPES = {
    "scalar": ((), ()),
    "vector": ((5,), (5,)),
    "matrix": ((3, 4), (3, 4)),
    "broadcast": ((3, 1), (1, 4)),
    "broadcast-row": ((3, 4), (4,)),
    "scalar-tensor": ((), (3, 4)),
    "batched": ((2, 3, 4), (3, 4)),
}


def unary(op: str, fn, low=-2.0, high=2.0, away=0.0, shapes=UNARY_SHAPES, second_order=True) -> list[Case]:
    """``fn`` applied to one tensor of each shape family."""
    return [
        Case(op, fn, inputs(arr(*shape, low=low, high=high, away=away)), label, second_order)
        for label, shape in shapes.items()
    ]


def binary(
    op: str, fn, low=-2.0, high=2.0, away=0.0, shapes=BINARY_SHAPES, low_b=None, high_b=None, away_b=None
) -> list[Case]:
    """``fn`` applied to two tensors of each pair of (broadcasting) shapes."""
    lb = low if low_b is None else low_b
    hb = high if high_b is None else high_b
    ab = away if away_b is None else away_b
    return [
        Case(
            op, fn, inputs(arr(*sa, low=low, high=high, away=away), arr(*sb, low=lb, high=hb, away=ab)), label
        )
        for label, (sa, sb) in shapes.items()
    ]


def _setitem(x, key, v):
    y = x.clone()
    y[key] = v
    return y


def _changed_view(x, take, change):
    """A view of ``x * 2`` changed in place: torch reads it again from its base (AsStridedBackward0)."""
    v = take(x * 2)
    change(v)
    return v


def _mask_setitem(t, x, m):
    y = x * 1.0
    y[m] = 0.5
    return y


CASES: list[Case] = [
    # ---- elementwise arithmetic ------------------------------------------------------------
    *binary("add", lambda t, a, b: a + b),
    Case("add", lambda t, a: a + 1.5, inputs(arr(3, 4)), "python-scalar"),
    Case("add", lambda t, a: 2 + a, inputs(arr(3, 4)), "python-scalar-left"),
    *binary("add_alpha", lambda t, a, b: t.add(a, b, alpha=2.5)),
    *binary("sub", lambda t, a, b: a - b),
    Case("sub", lambda t, a: a - 1, inputs(arr(3, 4)), "python-scalar"),
    *binary("sub_alpha", lambda t, a, b: t.sub(a, b, alpha=0.5)),
    *unary("rsub_scalar", lambda t, a: 1 - a),
    *binary("mul", lambda t, a, b: a * b),
    Case("mul", lambda t, a: 3 * a, inputs(arr(3, 4)), "python-scalar"),
    *binary("div", lambda t, a, b: a / b, away=0.5),
    Case("div", lambda t, a: a / 4, inputs(arr(3, 4)), "python-scalar"),
    *unary("reciprocal", lambda t, a: 2 / a, away=0.5),
    *unary("reciprocal", lambda t, a: t.reciprocal(a), away=0.5, shapes={"matrix": (3, 4)}),
    *unary("neg", lambda t, a: -a),
    *unary("pow_scalar", lambda t, a: a**3),
    *unary("pow_scalar", lambda t, a: a**0.5, low=0.5, high=2.0, shapes={"sqrt-matrix": (3, 4)}),
    *unary("pow_scalar", lambda t, a: a**0, shapes={"zero-matrix": (3, 4)}),
    *binary("pow", lambda t, a, b: a**b, low=0.5, high=2.0, low_b=-2.0, high_b=2.0),
    *unary("rpow_scalar", lambda t, a: 2**a),
    *unary("exp", lambda t, a: t.exp(a)),
    *unary("log", lambda t, a: t.log(a), low=0.2, high=3.0),
    *unary("sqrt", lambda t, a: t.sqrt(a), low=0.2, high=3.0),
    *unary("abs", lambda t, a: t.abs(a), away=0.1),
    *unary("sin", lambda t, a: t.sin(a)),
    *unary("cos", lambda t, a: t.cos(a)),
    *unary("tanh", lambda t, a: t.tanh(a)),
    *unary("sigmoid", lambda t, a: t.sigmoid(a), low=-6.0, high=6.0),
    *unary("relu", lambda t, a: t.relu(a), away=0.1),
    *unary("leaky_relu", lambda t, a: t.nn.functional.leaky_relu(a, 0.2), away=0.1),
    *binary("maximum", lambda t, a, b: t.maximum(a, b)),
    *binary("minimum", lambda t, a, b: t.minimum(a, b)),
    Case("maximum", lambda t, a, b: t.max(a, b), inputs(arr(3, 4), arr(3, 4)), "max-of-two"),
    Case("maximum", lambda t, a: t.maximum(a, a.detach().clamp(min=0.0)), inputs(arr(3, 4)), "ties",
         finite_diff=False),
    *unary("clamp", lambda t, a: t.clamp(a, -0.5, 0.7)),
    *unary("clamp", lambda t, a: a.clamp(min=0.1), shapes={"min-only": (3, 4)}),
    *unary("clamp_min", lambda t, a: a.clamp_min(0.1)),
    *unary("clamp_max", lambda t, a: t.clamp_max(a, 0.3)),
    Case(
        "where", lambda t, c, a, b: t.where(c, a, b), inputs(bools(arr(3, 4)), arr(3, 4), arr(3, 4)), "matrix"
    ),
    Case(
        "where", lambda t, c, a, b: t.where(c, a, b), inputs(bools(arr(3, 4)), arr(3, 1), arr(4)), "broadcast"
    ),
    Case("where", lambda t, a: t.where(a > 0, a, 0.0), inputs(arr(5)), "scalar-other"),
    Case("to_copy", lambda t, a: a.to(t.float32) * 1.0, inputs(arr(3, 4)), "matrix", finite_diff=False),
    Case("clone", lambda t, a: a.clone(), inputs(arr(3, 4)), "matrix"),
    # ---- reductions -----------------------------------------------------------------------------
    *unary("sum", lambda t, a: a.sum()),
    Case("sum_dim", lambda t, a: a.sum(1), inputs(arr(3, 4)), "matrix"),
    Case("sum_dim", lambda t, a: a.sum(dim=(0, 2), keepdim=True), inputs(arr(2, 3, 4)), "batched-tuple"),
    Case("sum_dim", lambda t, a: t.sum(a, -1), inputs(arr(5)), "vector"),
    *unary("mean", lambda t, a: a.mean()),
    Case("mean_dim", lambda t, a: a.mean(0), inputs(arr(3, 4)), "matrix"),
    Case("mean_dim", lambda t, a: a.mean((0, 1), keepdim=True), inputs(arr(2, 3, 4)), "batched-tuple"),
    *unary("max", lambda t, a: a.max()),
    Case("max", lambda t, a: t.max(a.detach().clamp(max=0.5) + a * 0.0), inputs(arr(3, 4)), "ties",
         finite_diff=False),
    *unary("min", lambda t, a: a.min()),
    Case("max_dim", lambda t, a: t.max(a, 1).values, inputs(arr(3, 4)), "matrix"),
    Case("max_dim", lambda t, a: a.max(dim=0, keepdim=True)[0], inputs(arr(3, 4)), "keepdim"),
    Case("max_dim", lambda t, a: a.max(-1).values, inputs(arr(2, 3, 4)), "batched"),
    Case("max_dim", lambda t, a: a.max(0).values, inputs(arr(5)), "vector"),
    Case("min_dim", lambda t, a: t.min(a, 0).values, inputs(arr(3, 4)), "matrix"),
    Case("min_dim", lambda t, a: a.min(1, True).values, inputs(arr(2, 3, 4)), "batched"),
    Case("var", lambda t, a: a.var(), inputs(arr(3, 4)), "all"),
    Case("var", lambda t, a: a.var(1), inputs(arr(3, 4)), "dim"),
    Case("var", lambda t, a: t.var(a, 0, unbiased=False, keepdim=True), inputs(arr(3, 4)), "biased"),
    Case("var", lambda t, a: a.var(), inputs(arr(5)), "vector"),
    Case("std", lambda t, a: a.std(), inputs(arr(3, 4)), "all"),
    Case("std", lambda t, a: a.std(dim=(0, 2)), inputs(arr(2, 3, 4)), "batched"),
    Case("std", lambda t, a: t.std(a, 1, correction=0), inputs(arr(3, 4)), "biased"),
    # ---- matrix products --------------------------------------------------------------------------
    Case("mm", lambda t, a, b: a @ b, inputs(arr(3, 4), arr(4, 2)), "matrix"),
    Case("mm", lambda t, a, b: t.mm(a, b), inputs(arr(1, 4), arr(4, 1)), "row-col"),
    Case("mm", lambda t, a, b: a @ b, inputs(arr(4), arr(4, 3)), "vector-matrix"),
    Case("dot", lambda t, a, b: a @ b, inputs(arr(5), arr(5)), "vector"),
    Case("mv", lambda t, a, b: a @ b, inputs(arr(3, 4), arr(4)), "matrix-vector"),
    Case("bmm", lambda t, a, b: a @ b, inputs(arr(2, 3, 4), arr(2, 4, 5)), "batched"),
    Case("unsafe_view", lambda t, a, b: a @ b, inputs(arr(2, 3, 4), arr(4, 5)), "batched-matrix"),
    Case("unsafe_view", lambda t, a, b: a @ b, inputs(arr(2, 3, 4), arr(4)), "batched-vector"),
    Case("addmm", lambda t, c, a, b: t.addmm(c, a, b), inputs(arr(2), arr(3, 4), arr(4, 2)), "bias"),
    Case("addmm", lambda t, c, a, b: t.addmm(c, a, b), inputs(arr(3, 2), arr(3, 4), arr(4, 2)), "matrix"),
    # ---- shapes ---------------------------------------------------------------------------------------
    Case("view", lambda t, a: a.reshape(4, 3), inputs(arr(3, 4)), "matrix"),
    Case("view", lambda t, a: a.view(-1), inputs(arr(2, 3, 4)), "batched"),
    Case("view", lambda t, a: a.flatten(1), inputs(arr(2, 3, 4)), "flatten"),
    Case("view", lambda t, a: t.reshape(a, (1,)), inputs(arr()), "scalar"),
    Case("reshape_alias", lambda t, a: a.transpose(0, 1).reshape(3, 2, 4), inputs(arr(2, 3, 4)), "batched"),
    Case("reshape_alias", lambda t, a: a[:, :2].reshape(2, 8), inputs(arr(2, 3, 4)), "sliced"),
    Case("unsafe_view", lambda t, a: a.t().reshape(-1), inputs(arr(3, 4)), "transposed"),
    Case("clone", lambda t, a: a.t().contiguous(), inputs(arr(3, 4)), "contiguous"),
    Case("transpose", lambda t, a: a.transpose(0, 1), inputs(arr(3, 4)), "matrix"),
    Case("transpose", lambda t, a: t.transpose(a, 0, 2), inputs(arr(2, 3, 4)), "batched"),
    Case("t", lambda t, a: a.t(), inputs(arr(3, 4)), "matrix"),
    Case("t", lambda t, a: a.t(), inputs(arr(5)), "vector"),
    Case("permute", lambda t, a: a.permute(2, 0, 1), inputs(arr(2, 3, 4)), "batched"),
    Case("permute", lambda t, a: a.T, inputs(arr(3, 4)), "T"),
    Case("unsqueeze", lambda t, a: a.unsqueeze(1), inputs(arr(3, 4)), "matrix"),
    Case("unsqueeze", lambda t, a: t.unsqueeze(a, 0), inputs(arr()), "scalar"),
    Case("squeeze", lambda t, a: a.squeeze(), inputs(arr(3, 1, 4)), "matrix"),
    Case("squeeze_dim", lambda t, a: a.squeeze(1), inputs(arr(3, 1, 4)), "batched"),
    Case("squeeze_dim", lambda t, a: a.squeeze(0), inputs(arr(3, 4)), "no-op"),
    Case("expand", lambda t, a: a.expand(3, 4), inputs(arr(3, 1)), "matrix"),
    Case("expand", lambda t, a: a.expand(2, -1, 4), inputs(arr(3, 1)), "batched"),
    # ---- indexing ---------------------------------------------------------------------------------------
    Case("select", lambda t, a: a[1], inputs(arr(5)), "vector"),
    Case("select", lambda t, a: a[-1], inputs(arr(3, 4)), "matrix"),
    Case("select", lambda t, a: a[:, 2], inputs(arr(3, 4)), "column"),
    Case("select", lambda t, a: a[0, ..., 1], inputs(arr(2, 3, 4)), "ellipsis"),
    Case("select", lambda t, a: a[None, 0], inputs(arr(3, 4)), "none-first"),
    Case("slice", lambda t, a: a[1:4], inputs(arr(5)), "vector"),
    Case("slice", lambda t, a: a[:, 1:3], inputs(arr(3, 4)), "matrix"),
    Case("slice", lambda t, a: a[::2, 1:], inputs(arr(3, 4)), "step"),
    Case("slice", lambda t, a: a[:], inputs(arr(3, 4)), "full"),
    Case("slice", lambda t, a: a[1:, 2:, :3], inputs(arr(2, 3, 4)), "batched"),
    Case("alias", lambda t, a: a[...], inputs(arr(3, 4)), "matrix"),
    Case("unsqueeze", lambda t, a: a[..., None], inputs(arr(3, 4)), "index-none"),
    Case("index", lambda t, a, i: a[i], inputs(arr(5), ints([0, 2, 2, 4])), "vector-repeat"),
    Case("index", lambda t, a: a[[0, 2]], inputs(arr(3, 4)), "list"),
    Case("index", lambda t, a: a[:, [0, 2]], inputs(arr(3, 4)), "list-columns"),
    Case("index", lambda t, a: a[0, [1, 2]], inputs(arr(3, 4)), "select-then-list"),
    Case("index", lambda t, a: a[[0, 1], :, [1, 2]], inputs(arr(2, 3, 4)), "split-advanced"),
    Case("index", lambda t, a, i: a[1:, i], inputs(arr(3, 4), ints([[0, 1], [3, 3]])), "slice-then-2d"),
    Case("index", lambda t, a, m: a[m], inputs(arr(3, 4), bools(arr(3, 4))), "mask"),
    Case("index", lambda t, a: a[a > 0], inputs(arr(2, 3, 4)), "mask-batched"),
    Case("index", lambda t, a, i: a[:, i, None], inputs(arr(3, 4), ints([3, 0])), "none-after"),
    Case(
        "index_put",
        lambda t, a, v, i: t.index_put(a, (i,), v, accumulate=True),
        inputs(arr(5), arr(3), ints([0, 2, 2])),
        "accumulate",
    ),
    Case(
        "index_put",
        lambda t, a, v, i: t.index_put(a, (i,), v),
        inputs(arr(3, 4), arr(4), ints([2, 0])),
        "rows",
    ),
    Case(
        "index_put",
        lambda t, a, m: _mask_setitem(t, a, m),
        inputs(arr(3, 4), bools(arr(3, 4))),
        "mask-setitem",
    ),
    Case("index_put", lambda t, a, v: _setitem(a, [0, 2], v), inputs(arr(3, 4), arr(2, 4)), "list-setitem"),
    Case("copy_slices", lambda t, a, v: _setitem(a, 0, v), inputs(arr(3, 4), arr(4)), "row"),
    Case(
        "copy_slices",
        lambda t, a, v: _setitem(a, (slice(1, None), slice(1, 3)), v),
        inputs(arr(3, 4), arr(2)),
        "broadcast",
    ),
    Case("copy_slices", lambda t, a: _setitem(a, (0, [1, 2]), 7.0), inputs(arr(3, 4)), "number"),
    Case(
        "copy_slices",
        lambda t, a, v: _setitem(a * 2, (Ellipsis, 1), v * 3),
        inputs(arr(2, 3, 4), arr(3)),
        "batched",
    ),
    Case("as_strided", lambda t, a: _changed_view(a, lambda y: y[1:3], lambda v: v.mul_(10)),
         inputs(arr(4, 3)), "slice-mul_"),
    Case("as_strided", lambda t, a, b: _changed_view(a, lambda y: y[0], lambda v: v.add_(b)),
         inputs(arr(3, 4), arr(4)), "row-add_"),
    Case("as_strided", lambda t, a: _changed_view(a, lambda y: y.t(), lambda v: v.sigmoid_()),
         inputs(arr(2, 3)), "transpose-sigmoid_"),
    Case("as_strided", lambda t, a: _changed_view(a, lambda y: y.view(-1)[::2], lambda v: v.zero_()),
         inputs(arr(2, 3)), "flat-step-zero_"),
    # ---- joining ------------------------------------------------------------------------------------------
    Case("cat", lambda t, a, b: t.cat([a, b]), inputs(arr(2, 4), arr(3, 4)), "rows"),
    Case(
        "cat", lambda t, a, b, c: t.cat((a, b, c), dim=1), inputs(arr(3, 1), arr(3, 2), arr(3, 4)), "columns"
    ),
    Case("cat", lambda t, a, b: t.cat([a, b], -1), inputs(arr(3), arr(5)), "vector"),
    Case(
        "cat", lambda t, a, b: t.cat([a, b.detach()]), inputs(arr(2, 3, 4), arr(1, 3, 4)), "batched-detached"
    ),
    Case("stack", lambda t, a, b: t.stack([a, b]), inputs(arr(3, 4), arr(3, 4)), "matrix"),
    Case("stack", lambda t, a, b, c: t.stack([a, b, c], dim=1), inputs(arr(5), arr(5), arr(5)), "vector"),
    Case("stack", lambda t, a, b: t.stack([a, b], -1), inputs(arr(), arr()), "scalar"),
    # ---- in place ---------------------------------------------------------------------------------
    Case("add", lambda t, a, b: (a * 1.0).add_(b), inputs(arr(3, 4), arr(4)), "inplace"),
    Case("add_alpha", lambda t, a, b: (a * 1.0).add_(b, alpha=3), inputs(arr(3, 4), arr(3, 4)), "inplace"),
    Case("sub_alpha", lambda t, a, b: (a * 1.0).sub_(b, alpha=3), inputs(arr(3, 4), arr(3, 4)), "inplace"),
    Case("mul", lambda t, a, b: t.sin(a).mul_(b), inputs(arr(3, 4), arr(3, 1)), "inplace"),
    Case("div", lambda t, a: (a * 1.0).div_(3.0), inputs(arr(3, 4)), "inplace"),
    Case("zero", lambda t, a: (a * 2.0).zero_(), inputs(arr(3, 4)), "matrix"),
    Case("fill", lambda t, a: (a * 2.0).fill_(1.5), inputs(arr(3, 4)), "matrix"),
    Case("fill_tensor", lambda t, a, v: (a * 2.0).fill_(v), inputs(arr(3, 4), arr()), "tensor"),
    Case("copy", lambda t, a, b: (a * 2.0).copy_(b), inputs(arr(3, 4), arr(4)), "broadcast"),
    Case("clamp", lambda t, a: (a * 2.0).clamp_(-1.0, 1.0), inputs(arr(3, 4)), "inplace"),
]

CASES += [
    Case("squeeze_tuple", lambda t, a: a.squeeze((0, 2)), inputs(arr(1, 3, 1, 4)), "batched"),
    Case("squeeze_dims", lambda t, a, b: a @ b, inputs(arr(4), arr(4, 3)), "vector-matrix"),
]


# ---- rounding divisions and norms -------------------------------------------------------------------
CASES += [
    Case("floor_divide", lambda t, a, b: a // b, inputs(arr(3, 4), arr(3, 4, away=0.5)), "matrix",
         finite_diff=False, backward_error=True),
    Case("floor_divide_scalar", lambda t, a: a // 0.7, inputs(arr(3, 4)), "number", finite_diff=False,
         backward_error=True),
    Case("floor_divide_scalar", lambda t, a: 3 // a, inputs(arr(5, away=0.5)), "number-first",
         finite_diff=False, backward_error=True),
    # rounded divisions are piecewise constant: the oracle checks their zero gradients, and finite
    # differences across a step would not
    Case("div_rounding", lambda t, a, b: t.div(a, b, rounding_mode="floor"),
         inputs(arr(3, 4), arr(3, 4, away=0.5)), "matrix", finite_diff=False),
    Case("div_rounding", lambda t, a, b: t.div(a, b, rounding_mode="floor"),
         inputs(arr(3, 1), arr(1, 4, away=0.5)), "broadcast", finite_diff=False),
    Case("div_rounding", lambda t, a: t.div(a, 0.3, rounding_mode="trunc"), inputs(arr(5)), "trunc-number",
         finite_diff=False),
    *binary("remainder", lambda t, a, b: a % b, away_b=0.5,
            shapes={"matrix": ((3, 4), (3, 4)), "broadcast-row": ((3, 4), (4,))}),
    Case("remainder_scalar", lambda t, a: a % 1.5, inputs(arr(3, 4)), "matrix"),
    *unary("norm", lambda t, a: a.norm(), away=0.1),
    Case("norm", lambda t, a: t.norm(a, p=1), inputs(arr(3, 4, away=0.1)), "p1"),
    Case("norm", lambda t, a: a.norm(p=3), inputs(arr(3, 4, away=0.1)), "p3"),
    Case("norm", lambda t, a: a.norm(p=0.5), inputs(arr(5, away=0.1)), "p-half"),
    Case("norm", lambda t, a: a.norm(p=float("inf")), inputs(arr(3, 4)), "inf"),
    Case("norm", lambda t, a: a.norm(p=float("-inf"), dim=1), inputs(arr(3, 4)), "minus-inf-dim"),
    Case("norm", lambda t, a: a.norm(dim=1), inputs(arr(3, 4)), "dim"),
    Case("norm", lambda t, a: t.norm(a, p=1, dim=0, keepdim=True), inputs(arr(3, 4, away=0.1)), "p1-keepdim"),
    Case("norm", lambda t, a: t.norm(a, p="fro", dim=(0, 2)), inputs(arr(2, 3, 4)), "fro-dims"),
    Case("norm", lambda t, a: t.linalg.vector_norm(a, 4, dim=-1), inputs(arr(2, 3, 4, away=0.1)),
         "vector-norm"),
]


# ---- more functions of one number ---------------------------------------------------------------------
CASES += [
    *[Case(name, lambda t, a, f=name: getattr(t, f)(a), inputs(arr(3, 4, low=-3.0, high=3.0)), "matrix",
           finite_diff=False) for name in ("round", "floor", "ceil", "trunc", "sign")],
    Case("round_decimals", lambda t, a: t.round(a, decimals=1), inputs(arr(3, 4)), "matrix",
         finite_diff=False),
    *unary("rsqrt", lambda t, a: t.rsqrt(a), low=0.3, high=3.0),
    *unary("log1p", lambda t, a: a.log1p(), low=-0.5, high=3.0),
    *unary("expm1", lambda t, a: t.expm1(a)),
    *unary("log2", lambda t, a: t.log2(a), low=0.2, high=3.0, shapes={"matrix": (3, 4)}),
    *unary("log10", lambda t, a: a.log10(), low=0.2, high=3.0, shapes={"matrix": (3, 4)}),
    *unary("tan", lambda t, a: t.tan(a), low=-1.2, high=1.2, shapes={"vector": (5,), "matrix": (3, 4)}),
    *unary("sinh", lambda t, a: t.sinh(a), shapes={"matrix": (3, 4)}),
    *unary("cosh", lambda t, a: a.cosh(), shapes={"matrix": (3, 4)}),
    *unary("atan", lambda t, a: t.atan(a), shapes={"vector": (5,), "matrix": (3, 4)}),
    *unary("asin", lambda t, a: t.asin(a), low=-0.9, high=0.9, shapes={"matrix": (3, 4)}),
    *unary("acos", lambda t, a: a.acos(), low=-0.9, high=0.9, shapes={"matrix": (3, 4)}),
    *unary("erf", lambda t, a: t.erf(a), shapes={"vector": (5,), "matrix": (3, 4)}),
    Case("pow_scalar", lambda t, a: t.square(a), inputs(arr(3, 4)), "square"),
]


def all_cases() -> list[Case]:
    """Every oracle case: this module's and those of oracle_cases_nn (which builds on this one)."""
    from oracle_cases_backward import CASES as BACKWARD_CASES
    from oracle_cases_idioms import CASES as IDIOM_CASES
    from oracle_cases_nn import CASES as NN_CASES
    from oracle_cases_ops import CASES as OPS_CASES

    return CASES + NN_CASES + OPS_CASES + BACKWARD_CASES + IDIOM_CASES

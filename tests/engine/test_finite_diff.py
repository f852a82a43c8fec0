"""Central finite differences in float64 on inputs chosen by hypothesis, with random projections:
first order (backward) and second order (create_graph=True, so the rules' Tensor world is checked).

For f: R^n -> R^m and a fixed random projection P, F(x) = <f(x), P> is a scalar. Along a random
direction v, (F(x + εv) − F(x − εv)) / 2ε must equal <∇F(x), v>; and for G(x) = <∇F(x), u>,
(G(x + εv) − G(x − εv)) / 2ε must equal <∇G(x), v> = uᵀ H v.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import engine

EPS = 1e-6
RTOL, ATOL = 1e-5, 1e-6

SHAPES = {
    "scalar": [(), ()],
    "vector": [(4,), (4,)],
    "matrix": [(2, 3), (2, 3)],
    "broadcast": [(2, 1), (3,)],
}


def _kink_free(*points):
    """A predicate: every input element is at least 1e-3 away from each of ``points``."""
    return lambda xs: all(np.all(np.abs(x - p) > 1e-3) for x in xs for p in points)


def _distinct(xs):
    flat = np.concatenate([np.ravel(x) for x in xs])
    return flat.size < 2 or np.min(np.diff(np.sort(flat))) > 1e-3


def _distinct_after(f):
    """The values an op compares (``f`` of its input) have no near-ties: max/min are smooth there."""
    return lambda xs: _distinct([f(xs[0])])


def _apart(f):
    """Elementwise max/min of ``f(a)`` and ``b``: no pair closer than a finite-difference step."""
    return lambda xs: np.all(np.abs(f(xs[0]) - xs[1]) > 1e-3)


# name -> (fn(t, *xs), arity, low, high, condition on inputs, shape families)
OPS = {
    "add": (lambda t, a, b: a + b, 2, -2, 2, None, SHAPES),
    "sub": (lambda t, a, b: a - b, 2, -2, 2, None, SHAPES),
    "rsub": (lambda t, a: 1.5 - a, 1, -2, 2, None, SHAPES),
    "mul": (lambda t, a, b: a * b, 2, -2, 2, None, SHAPES),
    "div": (lambda t, a, b: a / b, 2, 0.5, 2, None, SHAPES),
    "rdiv": (lambda t, a: 2 / a, 1, 0.5, 2, None, SHAPES),
    "pow": (lambda t, a, b: a**b, 2, 0.5, 2, None, SHAPES),
    "pow_scalar": (lambda t, a: a**3, 1, -2, 2, None, SHAPES),
    "rpow": (lambda t, a: 2**a, 1, -2, 2, None, SHAPES),
    "exp": (lambda t, a: t.exp(a), 1, -2, 2, None, SHAPES),
    "log": (lambda t, a: t.log(a), 1, 0.3, 3, None, SHAPES),
    "sqrt": (lambda t, a: t.sqrt(a), 1, 0.3, 3, None, SHAPES),
    "sin": (lambda t, a: t.sin(a), 1, -2, 2, None, SHAPES),
    "cos": (lambda t, a: t.cos(a), 1, -2, 2, None, SHAPES),
    "tanh": (lambda t, a: t.tanh(a), 1, -2, 2, None, SHAPES),
    "sigmoid": (lambda t, a: t.sigmoid(a), 1, -3, 3, None, SHAPES),
    "neg": (lambda t, a: -a, 1, -2, 2, None, SHAPES),
    "abs": (lambda t, a: t.abs(a) * a, 1, -2, 2, _kink_free(0.0), SHAPES),
    "relu": (lambda t, a: t.relu(a) * a, 1, -2, 2, _kink_free(0.0), SHAPES),
    "leaky_relu": (lambda t, a: t.nn.functional.leaky_relu(a, 0.1) * a, 1, -2, 2, _kink_free(0.0), SHAPES),
    "clamp": (lambda t, a: a.clamp(-0.5, 0.5) * a, 1, -2, 2, _kink_free(-0.5, 0.5), SHAPES),
    "maximum": (lambda t, a, b: t.maximum(a, b) * a, 2, -2, 2, _apart(lambda a: a), SHAPES),
    "where": (lambda t, a, b: t.where(a > 0, a * a, b * a), 2, -2, 2, _kink_free(0.0), SHAPES),
    "sum": (lambda t, a: (a * a).sum(), 1, -2, 2, None, SHAPES),
    "mean_dim": (lambda t, a: (a * a).mean(-1), 1, -2, 2, None, SHAPES),
    "max": (lambda t, a: (a * a).max(), 1, -2, 2, _distinct_after(lambda a: a * a), SHAPES),
    "max_dim": (lambda t, a: (a * a.sin()).max(0).values, 1, -2, 2, _distinct_after(lambda a: a * np.sin(a)),
                SHAPES),
    "var": (lambda t, a: a.var() if a.numel() > 1 else a * a, 1, -2, 2, None, SHAPES),
    "std": (lambda t, a: a.std(-1), 1, -2, 2, _distinct, {"vector": [(4,)], "matrix": [(2, 3)]}),
    "matmul": (
        lambda t, a, b: (a.reshape(1, -1) @ b.reshape(-1, 1)) * a.sum(),
        2,
        -2,
        2,
        None,
        {"vector": [(4,), (4,)], "matrix": [(2, 3), (2, 3)]},
    ),
    "mm": (lambda t, a, b: a @ b, 2, -2, 2, None, {"matrix": [(2, 3), (3, 4)], "row": [(1, 3), (3, 2)]}),
    "bmm": (lambda t, a, b: (a @ b).tanh(), 2, -2, 2, None, {"batched": [(2, 2, 3), (2, 3, 2)]}),
    "mv": (lambda t, a, b: (a @ b) ** 2, 2, -2, 2, None, {"matrix-vector": [(2, 3), (3,)]}),
    "dot": (lambda t, a, b: (a @ b) ** 2, 2, -2, 2, None, {"vector": [(4,), (4,)]}),
    "addmm": (lambda t, c, a, b: t.addmm(c, a, b) ** 2, 3, -2, 2, None, {"matrix": [(2,), (3, 2), (2, 2)]}),
    "shapes": (
        lambda t, a: (a.reshape(-1).unsqueeze(0).t() * a.reshape(1, -1)).permute(1, 0).exp(),
        1,
        -1,
        1,
        None,
        SHAPES,
    ),
    "expand": (lambda t, a: a.reshape(1, -1).expand(2, -1) * a.reshape(1, -1), 1, -2, 2, None, SHAPES),
    "select_slice": (
        lambda t, a: a.reshape(-1)[1:] * a.reshape(-1)[0],
        1,
        -2,
        2,
        None,
        {"vector": [(4,)], "matrix": [(2, 3)]},
    ),
    "index": (
        lambda t, a: a.reshape(-1)[[0, 1, 1, -1]] ** 2,
        1,
        -2,
        2,
        None,
        {"vector": [(4,)], "matrix": [(2, 3)]},
    ),
    "setitem": (lambda t, a, b: _set(a, b), 2, -2, 2, None, {"matrix": [(2, 3), (3,)]}),
    "cat_stack": (
        lambda t, a, b: t.cat([(a * b).reshape(-1), t.stack([a, b]).reshape(-1)]) ** 2,
        2,
        -2,
        2,
        None,
        {"vector": [(4,), (4,)], "matrix": [(2, 3), (2, 3)]},
    ),
    "min": (lambda t, a: (a * a.cos()).min(), 1, -2, 2, _distinct_after(lambda a: a * np.cos(a)), SHAPES),
    "min_dim": (lambda t, a: (a * a.cos()).min(-1, keepdim=True).values, 1, -2, 2,
                _distinct_after(lambda a: a * np.cos(a)), SHAPES),
    "minimum": (lambda t, a, b: t.minimum(a * a, b), 2, -2, 2, _apart(lambda a: a * a), SHAPES),
    "clamp_min_max": (
        lambda t, a: a.clamp_min(-0.5) * a.clamp_max(0.5),
        1,
        -2,
        2,
        _kink_free(-0.5, 0.5),
        SHAPES,
    ),
    "mean": (lambda t, a: (a * a.exp()).mean(), 1, -2, 2, None, SHAPES),
    "var_dim": (lambda t, a: a.var(0, keepdim=True) * a, 1, -2, 2, None, {"matrix": [(3, 2)]}),
    "index_put": (
        lambda t, a, v: t.index_put(a * a, (t.tensor([0, 2, 0]),), v * v, accumulate=True),
        2,
        -2,
        2,
        None,
        {"vector": [(4,), (3,)]},
    ),
    "copy_fill": (
        lambda t, a, b: (a * 1.0).copy_(b * b) * a + (a * 1.0).fill_(b.sum()) * a,
        2,
        -2,
        2,
        None,
        {"matrix": [(2, 3), (3,)]},
    ),
    "squeeze_unsqueeze": (
        lambda t, a: a.reshape(1, -1, 1).squeeze(0).squeeze(-1).unsqueeze(0) ** 3,
        1,
        -2,
        2,
        None,
        SHAPES,
    ),
}


def _set(a, b):
    h = a * 1.0
    h[0] = b * b
    return h * a


def _leaves(xs):
    return [engine.tensor(x.tolist(), dtype=engine.float64, requires_grad=True) for x in xs]


def _F(fn, xs, proj):
    """F(x) = <f(x), P> as a float (no graph)."""
    with engine.no_grad():
        out = fn(engine, *_leaves(xs))
    return float(np.sum(np.asarray(out.tolist()) * proj))


def _grads(fn, xs, proj, create_graph=False):
    leaves = _leaves(xs)
    out = fn(engine, *leaves)
    P = engine.tensor(np.broadcast_to(proj, tuple(out.shape)).tolist(), dtype=engine.float64)
    F = (out * P).sum()
    return leaves, engine.autograd.grad(F, leaves, create_graph=create_graph, allow_unused=True)


def _case(name):
    fn, arity, low, high, cond, shapes = OPS[name]
    return fn, arity, low, high, cond, shapes


def _draw(data, arity, low, high, shapes):
    family = data.draw(st.sampled_from(sorted(shapes)))
    elements = st.floats(low, high, allow_nan=False, allow_infinity=False, width=64)
    return [data.draw(hnp.arrays(np.float64, shapes[family][i], elements=elements)) for i in range(arity)]


def _sample(name, data):
    """The op's function, inputs drawn by hypothesis, a generator, and a random output projection."""
    fn, arity, low, high, cond, shapes = _case(name)
    xs = _draw(data, arity, low, high, shapes)
    assume(cond is None or cond(xs))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    with engine.no_grad():
        out_shape = tuple(fn(engine, *_leaves(xs)).shape)
    return fn, xs, rng, rng.standard_normal(out_shape)


COMMON = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)


@pytest.mark.parametrize("name", sorted(OPS))
@COMMON
@given(data=st.data())
def test_first_order(name, data):
    fn, xs, rng, proj = _sample(name, data)
    vs = [rng.standard_normal(x.shape) for x in xs]
    _, grads = _grads(fn, xs, proj)
    plus = _F(fn, [x + EPS * v for x, v in zip(xs, vs)], proj)
    minus = _F(fn, [x - EPS * v for x, v in zip(xs, vs)], proj)
    numeric = (plus - minus) / (2 * EPS)
    analytic = sum(float(np.sum(np.asarray(g.tolist()) * v)) for g, v in zip(grads, vs) if g is not None)
    assert np.isclose(analytic, numeric, rtol=RTOL, atol=ATOL), (analytic, numeric)


def _G(fn, xs, proj, us):
    """G(x) = <∇F(x), u> (first-order gradients, no graph)."""
    _, grads = _grads(fn, xs, proj)
    return sum(float(np.sum(np.asarray(g.tolist()) * u)) for g, u in zip(grads, us) if g is not None)


LINEAR = {"add", "sub", "rsub", "neg"}  # constant gradients: nothing to differentiate twice


@pytest.mark.parametrize("name", sorted(set(OPS) - LINEAR))
@COMMON
@given(data=st.data())
def test_second_order(name, data):
    fn, xs, rng, proj = _sample(name, data)
    us = [rng.standard_normal(x.shape) for x in xs]
    vs = [rng.standard_normal(x.shape) for x in xs]
    leaves, grads = _grads(fn, xs, proj, create_graph=True)
    pairs = [(g, u) for g, u in zip(grads, us) if g is not None and g.requires_grad]
    assume(pairs)  # a linear op has a constant gradient: nothing to differentiate again
    G = sum((g * engine.tensor(u.tolist(), dtype=engine.float64)).sum() for g, u in pairs)
    hv = engine.autograd.grad(G, leaves, allow_unused=True)
    analytic = sum(float(np.sum(np.asarray(h.tolist()) * v)) for h, v in zip(hv, vs) if h is not None)
    plus = _G(fn, [x + EPS * v for x, v in zip(xs, vs)], proj, us)
    minus = _G(fn, [x - EPS * v for x, v in zip(xs, vs)], proj, us)
    numeric = (plus - minus) / (2 * EPS)
    assert np.isclose(analytic, numeric, rtol=1e-4, atol=1e-5), (analytic, numeric)

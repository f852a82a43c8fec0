"""Central finite differences in float64 for every oracle case (tests/engine/oracle_cases*.py):
first derivatives always, second derivatives (through ``create_graph=True``, so the rules' Tensor
world is checked too) where the case's ``second_order`` says they are meaningful.

For f: R^n -> R^m and a random projection v, F(x) = <f(x), v> is a scalar. Along a random
direction d of one input, (F(x + εd) − F(x − εd)) / 2ε must equal <∇F(x), d>. For the second
order F(x) = <f(x)², v>, so that the gradient reaching f depends on x even for a linear op, and
for G(x) = <∇F(x), u>, (G(x + εd) − G(x − εd)) / 2ε must equal <∇G(x), d> = uᵀ H d.
Integer and bool inputs (indices, masks, targets) are data, never perturbed, and so is a float
input the graph never reaches (a case that detaches it): it has no derivative to check.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from oracle_cases import all_cases

import engine

EPS = 1e-6
CASES = [c for c in all_cases() if c.finite_diff]
SECOND = [c for c in CASES if c.second_order]


def _tensors(arrays) -> list:
    """float64 arrays as leaves that require grad; the others as plain tensors."""
    return [engine.tensor(a.tolist(), dtype=engine.float64, requires_grad=True) if a.dtype == np.float64
            else engine.tensor(a.tolist()) for a in arrays]


def _setup(case):
    """The case's inputs, the projection v of its output and a generator for directions."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    arrays = case.inputs(rng)
    out = case.fn(engine, *_tensors(arrays))
    return rng, arrays, rng.uniform(-1, 1, tuple(out.shape))


def _grads(case, arrays, v, square: bool = False, create_graph: bool = False):
    """The leaves and ∇F of F = <f, v> (or <f², v>) for the float inputs (None where unused)."""
    leaves = _tensors(arrays)
    out = case.fn(engine, *leaves)
    if square:
        out = out * out
    F = (out * engine.tensor(v.tolist(), dtype=engine.float64)).sum()
    floats = [leaves[i] for i, a in enumerate(arrays) if a.dtype == np.float64]
    return floats, engine.autograd.grad(F, floats, create_graph=create_graph, allow_unused=True)


def _dot(t, a: np.ndarray) -> float:
    return 0.0 if t is None else float(np.sum(t.detach().numpy() * a))


def _shifted(arrays, i: int, step: np.ndarray) -> list:
    return [a + step if k == i else a for k, a in enumerate(arrays)]


def _central(fn, arrays, i: int, d: np.ndarray) -> float:
    """(fn(x + εd) − fn(x − εd)) / 2ε along input ``i``."""
    return (fn(_shifted(arrays, i, EPS * d)) - fn(_shifted(arrays, i, -EPS * d))) / (2 * EPS)


def _float_inputs(arrays) -> list[int]:
    return [i for i, a in enumerate(arrays) if a.dtype == np.float64]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_first_order(case):
    rng, arrays, v = _setup(case)
    _, grads = _grads(case, arrays, v)

    def F(xs) -> float:
        out = case.fn(engine, *_tensors(xs))
        return float(np.sum(out.detach().numpy().astype(np.float64) * v))

    for i, g in zip(_float_inputs(arrays), grads):
        d = rng.uniform(-1, 1, arrays[i].shape)
        if g is not None:
            assert _dot(g, d) == pytest.approx(_central(F, arrays, i, d), rel=1e-5, abs=1e-6), f"input {i}"


@pytest.mark.parametrize("case", SECOND, ids=[c.id for c in SECOND])
def test_second_order(case):
    rng, arrays, v = _setup(case)
    floats = _float_inputs(arrays)
    us = [rng.uniform(-1, 1, arrays[i].shape) for i in floats]
    leaves, grads = _grads(case, arrays, v, square=True, create_graph=True)
    live = [(g, u) for g, u in zip(grads, us) if g is not None and g.requires_grad]
    if live:  # else every gradient is constant: the Hessian is 0, which the differences must show
        G = sum((g * engine.tensor(u.tolist(), dtype=engine.float64)).sum() for g, u in live)
        hv = engine.autograd.grad(G, leaves, allow_unused=True)
    else:
        hv = [None] * len(leaves)

    def G(xs) -> float:
        return sum(_dot(g, u) for g, u in zip(_grads(case, xs, v, square=True)[1], us))

    for i, g, h in zip(floats, grads, hv):
        d = rng.uniform(-1, 1, arrays[i].shape)
        if g is not None:
            assert _dot(h, d) == pytest.approx(_central(G, arrays, i, d), rel=1e-4, abs=1e-5), f"input {i}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_forward_mode(case):
    """Forward mode: the output's tangent along a random direction t of every float input (by the
    ops' forward-mode rules, ``engine.func.jvp``) equals (f(x + εt) − f(x − εt)) / 2ε, projected on v."""
    rng, arrays, v = _setup(case)
    _, grads = _grads(case, arrays, v)
    # a float input the graph never reaches (a case detaches it) has no tangent to push: hold it fixed
    floats = [i for i, g in zip(_float_inputs(arrays), grads) if g is not None]
    directions = {i: rng.uniform(-1, 1, arrays[i].shape) for i in floats}
    held = _tensors(arrays)

    def f(*xs):
        args = list(held)
        for i, x in zip(floats, xs):
            args[i] = x
        return case.fn(engine, *args)

    # primals that require grad, so a case that differentiates inside (forward over reverse) can
    primals = tuple(engine.tensor(arrays[i].tolist(), dtype=engine.float64, requires_grad=True)
                    for i in floats)
    tangents = tuple(engine.tensor(directions[i].tolist(), dtype=engine.float64) for i in floats)
    _, tangent = engine.func.jvp(f, primals, tangents)

    def F(step: float) -> float:
        xs = [a + step * directions[i] if i in directions else a for i, a in enumerate(arrays)]
        out = case.fn(engine, *_tensors(xs))
        return float(np.sum(out.detach().numpy().astype(np.float64) * v))

    expected = (F(EPS) - F(-EPS)) / (2 * EPS)
    assert _dot(tangent, v) == pytest.approx(expected, rel=1e-5, abs=1e-6)

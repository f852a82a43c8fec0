"""torch.func.vmap: the engine's results (values, and gradients through it) are torch's for the
common in_dims/out_dims cases, and its refusals are torch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import engine

CASES = [
    ("dot", lambda t: t.func.vmap(t.dot), 2),
    ("broadcast", lambda t: t.func.vmap(t.dot, in_dims=(0, None)), 2),
    ("dim1-out1", lambda t: t.func.vmap(lambda a, b: a * b.sum(), in_dims=(1, 0), out_dims=1), 2),
    ("tuple-out", lambda t: t.func.vmap(lambda a, b: (a.exp(), (a * b).sum()), out_dims=(1, 0)), 2),
    ("nested", lambda t: t.func.vmap(t.func.vmap(t.mul)), 2),
    ("per-sample-grad",
     lambda t: t.func.vmap(t.func.grad(lambda w, x: (w * x).sin().sum()), in_dims=(None, 0)), 2),
]


@pytest.mark.parametrize("name, make, n", CASES, ids=[c[0] for c in CASES])
def test_vmap_matches_torch(name, make, n):
    rng = np.random.default_rng(7)
    arrays = [rng.normal(size=(4, 3)) for _ in range(n)]
    if name == "dim1-out1":
        arrays[1] = rng.normal(size=(3, 2))
    if name == "broadcast":
        arrays[1] = rng.normal(size=3)
    if name == "per-sample-grad":
        arrays[0] = rng.normal(size=3)
    ours_in = [engine.tensor(a, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours, theirs = make(engine)(*ours_in), make(torch)(*theirs_in)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for a, b in zip(ours, theirs):
        assert a.shape == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    sum(o.sum() for o in ours).backward()
    sum(o.sum() for o in theirs).backward()
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_vmap_refusals_are_torchs():
    x, y = engine.randn(3, 2), engine.randn(4, 2)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes \\[3, 4\\]"):
        engine.func.vmap(engine.add)(x, y)
    with pytest.raises(ValueError, match="expected in_dim to satisfy -2 <= in_dim < 2"):
        engine.func.vmap(engine.sin, in_dims=2)(x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        engine.func.vmap(engine.mul, in_dims=(0, 0))(x, 2.0)
    with pytest.raises(ValueError, match="must only return Tensors"):
        engine.func.vmap(lambda a: 1.0)(x)


def test_vmap_over_an_empty_dimension_keeps_the_shape():
    assert engine.func.vmap(lambda r: r.sum(0, keepdim=True))(engine.zeros(0, 5)).shape == (0, 1)

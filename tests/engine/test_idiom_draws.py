"""exponential_, multinomial and nn.init.trunc_normal_ against PyTorch, bit for bit, over sampled
seeds, sizes and both float types; orthogonal_ gives an orthogonal matrix from torch's draws."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import engine
from engine import nn

_PICK = random.Random(20261206)
SEEDS = [0, 1, 42, *(_PICK.getrandbits(32) for _ in range(12))]
DTYPES = [(engine.float32, torch.float32), (engine.float64, torch.float64)]


def _both(seed, draw):
    """``draw(lib, dtype)`` after ``manual_seed(seed)`` with the engine and with torch, per dtype."""
    for ours_dt, theirs_dt in DTYPES:
        engine.manual_seed(seed)
        torch.manual_seed(seed)
        a, b = draw(engine, ours_dt), draw(torch, theirs_dt)
        assert np.array_equal(np.asarray(a.tolist()), np.asarray(b.tolist())), (seed, ours_dt)
        # the generators were left in the same state too
        assert engine.rand(4).tolist() == torch.rand(4).tolist()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", [1, 7, 16, 100])
def test_exponential(seed, size):
    _both(seed, lambda t, dt: t.empty(size, dtype=dt).exponential_(0.5 + seed % 4))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n, replacement", [(1, False), (3, False), (6, False), (1, True), (9, True)])
def test_multinomial(seed, n, replacement):
    def draw(t, dt):
        p = t.rand(4, 6, dtype=dt)
        p[1, 3] = 0
        return t.cat([t.multinomial(p, n, replacement), t.multinomial(p[2], n, replacement)[None]])

    _both(seed, draw)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("args", [dict(std=0.02), dict(), dict(mean=0.0, std=1.0, a=1.5, b=2.5),
                                  dict(mean=1.0, std=0.5, a=-1.0, b=0.0)])
def test_trunc_normal(seed, args):
    _both(seed, lambda t, dt: t.nn.init.trunc_normal_(t.empty(6, 5, dtype=dt), **args))


def test_trunc_normal_stays_in_its_bounds():
    w = nn.init.trunc_normal_(engine.empty(2000), mean=0.0, std=1.0, a=-0.5, b=0.25)
    assert w.min().item() >= -0.5 and w.max().item() <= 0.25


@pytest.mark.parametrize("shape", [(3, 6), (6, 3), (4, 2, 3)])
def test_orthogonal(shape):
    q = nn.init.orthogonal_(engine.empty(*shape, dtype=engine.float64), gain=2.0).reshape(shape[0], -1)
    small = q @ q.T if shape[0] <= q.shape[1] else q.T @ q
    assert np.allclose(small.numpy(), 4 * np.eye(small.shape[0]), atol=1e-12)


def test_multinomial_refusals_are_torchs():
    p = engine.tensor([0.2, 0.8])
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        engine.multinomial(p, 3)
    with pytest.raises(RuntimeError, match="probability tensor contains either"):
        engine.multinomial(engine.tensor([-1.0, 2.0]), 1)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0"):
        engine.empty(2).exponential_(-1.0)

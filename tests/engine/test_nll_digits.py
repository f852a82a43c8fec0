"""nll_loss and cross_entropy with class weights and reduction="mean" give torch's float32 gradient bit
for bit: the upstream gradient is divided by Σw first, then multiplied by each target's weight, as
ATen's nll_loss_backward does ((g / Σw) · w rounds differently from g · (w / Σw))."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import engine

SIZES = [(2, 3), (4, 5), (8, 10), (16, 3), (64, 7), (5, 100), (256, 10)]


def _grad(lib, x, target, weight, scale, ignore):
    logp = lib.tensor(x, requires_grad=True)
    loss = lib.nn.functional.nll_loss(logp, lib.tensor(target), weight=lib.tensor(weight),
                                      ignore_index=ignore)
    (loss * scale).backward()
    grad = logp.grad.numpy() if lib is torch else logp.grad._data
    return np.float32(loss.item()).tobytes(), grad.tobytes()


@pytest.mark.parametrize("n, c", SIZES)
def test_weighted_mean_gradients_are_torchs_bits(n, c):
    same = 0
    for seed in range(12):
        rng = np.random.default_rng(seed * 1000 + n * c)
        x = -rng.uniform(0, 5, (n, c)).astype(np.float32)
        target = rng.integers(0, c, n).astype(np.int64)
        weight = rng.uniform(0.1, 2, c).astype(np.float32)
        scale = float(np.float32(rng.uniform(0.1, 3)))  # an upstream gradient other than 1 too
        ignore = int(target[0]) if seed % 3 == 0 else -100
        args = (x, target, weight, scale, ignore)
        same += _grad(engine, *args) == _grad(torch, *args)
    assert same == 12

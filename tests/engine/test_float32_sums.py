"""float32 sums to the last bit: the engine's sum, mean and the reductions built on them (losses,
norms, var/std, the gradients that undo broadcasting) against PyTorch on the CPU, on seeded
random inputs of the sizes courses use. Tutorials print ``loss.item()`` at full precision, so a
sum in another order (NumPy's pairwise summation) shows other last digits."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import engine
from engine.ops import cascade

SIZES = [1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 4097, 100000]
SHAPES = [(1, 5), (7, 8), (8, 7), (15, 17), (31, 33), (64, 10), (10, 64), (63, 65), (100, 100),
          (3, 4097), (4097, 3), (256, 784)]


@pytest.fixture(autouse=True)
def _threads(monkeypatch):
    """The engine splits a large full sum among as many threads as this PyTorch uses."""
    monkeypatch.setattr(cascade, "THREADS", torch.get_num_threads())


def _inputs(seed: int, shape) -> list[np.ndarray]:
    """Three float32 arrays of one shape: centred, shifted (sums far from 0), and all 0.1."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32),
            (rng.random(shape) * 10 + 3).astype(np.float32),
            np.full(shape, 0.1, dtype=np.float32)]


def _bits(x) -> bytes:
    a = x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)
    return np.ascontiguousarray(a).tobytes()


def _same(ours, theirs, what: str) -> None:
    o = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    t = theirs.detach().numpy()
    assert o.shape == t.shape and o.dtype == t.dtype, f"{what}: {o.shape} {o.dtype} vs {t.shape} {t.dtype}"
    assert _bits(o) == _bits(t), f"{what}: {o.ravel()[:4]!r} vs torch {t.ravel()[:4]!r}"


@pytest.mark.parametrize("n", SIZES)
def test_sum_and_mean_of_all_elements(n):
    for i, a in enumerate(_inputs(n, (n,))):
        x, tx = engine.tensor(a), torch.tensor(a)
        _same(x.sum(), tx.sum(), f"sum n={n} input {i}")
        _same(x.mean(), tx.mean(), f"mean n={n} input {i}")
        _same(engine.mean(x.reshape(-1, 1)), torch.mean(tx.reshape(-1, 1)), f"mean (n, 1) n={n} input {i}")
        assert x.mean().item() == tx.mean().item()


def test_the_mean_of_a_hundred_tenths_prints_as_in_pytorch():
    assert engine.full((100,), 0.1).mean().item() == torch.full((100,), 0.1).mean().item()
    assert repr(engine.full((100,), 0.1).mean().item()) == "0.09999999403953552"


@pytest.mark.parametrize("shape", SHAPES)
def test_sum_and_mean_along_a_dim(shape):
    for i, a in enumerate(_inputs(sum(shape), shape)):
        x, tx = engine.tensor(a), torch.tensor(a)
        for dim in (0, 1, -1, (0, 1)):
            for keepdim in (False, True):
                what = f"{shape} dim={dim} keepdim={keepdim} input {i}"
                _same(x.sum(dim, keepdim=keepdim), tx.sum(dim, keepdim=keepdim), "sum " + what)
                _same(x.mean(dim, keepdim=keepdim), tx.mean(dim, keepdim=keepdim), "mean " + what)
        _same(x.t().sum(0), tx.t().sum(0), f"sum of the transpose {shape}")
        _same(x.t().sum(), tx.t().sum(), f"full sum of the transpose {shape}")


@pytest.mark.parametrize("shape", [(5, 6, 7), (4, 33, 9), (2, 3, 4, 5), (16, 3, 28, 28)])
def test_sum_over_dims_of_more_dims(shape):
    a = _inputs(len(shape), shape)[0]
    x, tx = engine.tensor(a), torch.tensor(a)
    for dim in [d for d in range(len(shape))] + [(0, 2), (1, 2), (0, 1, 2), (-1, -2)]:
        _same(x.sum(dim), tx.sum(dim), f"sum {shape} dim={dim}")
        _same(x.mean(dim, keepdim=True), tx.mean(dim, keepdim=True), f"mean {shape} dim={dim}")
    _same(x.sum(), tx.sum(), f"sum {shape}")


@pytest.mark.parametrize("batch", [1, 7, 16, 17, 64, 100, 1000, 4097])
def test_losses_reduce_as_pytorch(batch):
    rng = np.random.default_rng(batch)
    for classes in (3, 10):
        logits = torch.tensor(rng.standard_normal((batch, classes)).astype(np.float32) * 2)
        logp = torch.log_softmax(logits, 1).numpy()  # the same log-probabilities for both
        target = rng.integers(0, classes, batch)
        ignored = np.where(rng.random(batch) < 0.2, -100, target)
        weight = rng.random(classes).astype(np.float32)
        F, tF = engine.nn.functional, torch.nn.functional
        x, tx = engine.tensor(logp), torch.tensor(logp)
        weighted = ({"weight": engine.tensor(weight)}, {"weight": torch.tensor(weight)})
        for reduction in ("mean", "sum"):
            for t, kw, tkw in [(target, {}, {}), (ignored, {}, {}),
                               (target, *weighted), (ignored, *weighted)]:
                _same(F.nll_loss(x, engine.tensor(t), reduction=reduction, **kw),
                      tF.nll_loss(tx, torch.tensor(t), reduction=reduction, **tkw),
                      f"nll_loss {batch}x{classes} {reduction} {sorted(kw)} ignored={bool((t < 0).any())}")
        y = rng.standard_normal((batch, classes)).astype(np.float32)
        pred = logits.numpy()
        ours, theirs = (engine.tensor(pred), engine.tensor(y)), (torch.tensor(pred), torch.tensor(y))
        for reduction in ("mean", "sum"):
            _same(F.mse_loss(*ours, reduction=reduction), tF.mse_loss(*theirs, reduction=reduction),
                  f"mse_loss {reduction}")
            _same(F.l1_loss(*ours, reduction=reduction), tF.l1_loss(*theirs, reduction=reduction),
                  f"l1_loss {reduction}")


@pytest.mark.parametrize("shape", [(1,), (7,), (8,), (13,), (17,), (100,), (1000,), (4097,), (100000,),
                                   (64, 10), (10, 64), (31, 33), (5, 6, 7)])
def test_norm_var_std(shape):
    a = _inputs(7 * len(shape), shape)[0] * 3
    x, tx = engine.tensor(a), torch.tensor(a)
    dims = [None] + list(range(len(shape)))
    for dim in dims:
        for p in (2, 1, 3):
            _same(engine.linalg.vector_norm(x, ord=p, dim=dim), torch.linalg.vector_norm(tx, ord=p, dim=dim),
                  f"vector_norm p={p} {shape} dim={dim}")
        _same(x.norm(dim=dim), tx.norm(dim=dim), f"norm {shape} dim={dim}")
        if a.size > 1:
            _same(x.var(dim), tx.var(dim), f"var {shape} dim={dim}")
            _same(x.std(dim, correction=0), tx.std(dim, correction=0), f"std {shape} dim={dim}")


@pytest.mark.parametrize("shape", SHAPES + [(2, 3), (64, 128), (300, 33), (17, 1)])
def test_a_bias_gradient_over_a_batch(shape):
    """``out = x * w + b`` with ``b`` one row broadcast over the batch, then a loss: ``b.grad`` is the
    sum of the batch's rows (the sum that undoes broadcasting), and ``w``'s too, as PyTorch adds them."""
    a, shift, _ = _inputs(shape[0] + 7 * shape[1], shape)
    row = shift[0]
    seen = []
    for lib in (engine, torch):
        x = lib.tensor(a)
        w, b = lib.tensor(row * 0.1, requires_grad=True), lib.tensor(row, requires_grad=True)
        (((x * w + b) ** 2).sum() / 3).backward()
        seen.append((w.grad, b.grad))
    _same(seen[0][0], seen[1][0], f"w.grad {shape}")
    _same(seen[0][1], seen[1][1], f"b.grad {shape}")


@pytest.mark.parametrize("n", [10, 100, 1000, 4097])
def test_linear_regression_gradients(n):
    """loss = mean((w·x + b − y)²) with scalar w and b: their gradients are sums over the data
    (the sum that undoes broadcasting), printed by every first tutorial."""
    rng = np.random.default_rng(n)
    xs = rng.standard_normal(n).astype(np.float32)
    ys = (3 * xs + 2 + rng.standard_normal(n) * 0.1).astype(np.float32)
    seen = []
    for lib in (engine, torch):
        w = lib.tensor(0.5, requires_grad=True)
        b = lib.tensor(0.1, requires_grad=True)
        loss = ((w * lib.tensor(xs) + b - lib.tensor(ys)) ** 2).mean()
        loss.backward()
        seen.append((loss.item(), w.grad.item(), b.grad.item()))
    assert seen[0] == seen[1]


def test_bit_identical_rate_on_random_inputs():
    """How often the last bit agrees with PyTorch on random float32 sums and means, for the
    engine and for NumPy's own order (what the engine used before): the engine always."""
    rng = np.random.default_rng(2024)
    same = {"engine": 0, "numpy": 0}
    total = 0
    for _ in range(300):
        n = int(rng.integers(1, 20000))
        a = (rng.standard_normal(n) * rng.uniform(0.1, 10) + rng.uniform(-5, 5)).astype(np.float32)
        tx, x = torch.tensor(a), engine.tensor(a)
        for ours, numpy_order, theirs in [(x.sum(), np.sum(a), tx.sum()),
                                          (x.mean(), np.mean(a, dtype=np.float32), tx.mean())]:
            total += 1
            same["engine"] += _bits(ours) == _bits(theirs)
            same["numpy"] += _bits(np.float32(numpy_order)) == _bits(theirs)
    print(f"\nbit-identical with torch over {total} random sums/means: "
          f"engine {same['engine'] / total:.1%}, NumPy pairwise {same['numpy'] / total:.1%}")
    assert same["engine"] == total
    assert same["numpy"] < total  # the inputs do tell the orders apart


@pytest.mark.parametrize("n", [2, 17, 100, 4097, 40000, 100000])
def test_float64_sums_and_variance_of_all_elements(n):
    """PyTorch sums float64 with the same cascade (4 lanes) and takes the variance of all elements
    as a running float64 sum of squared deviations from that mean: last bits again."""
    a = np.random.default_rng(n).standard_normal(n) * 3 + 1
    x, tx = engine.tensor(a), torch.tensor(a)
    _same(x.sum(), tx.sum(), f"float64 sum n={n}")
    _same(x.mean(), tx.mean(), f"float64 mean n={n}")
    _same(x.var(), tx.var(), f"float64 var n={n}")
    _same(x.std(correction=0), tx.std(correction=0), f"float64 std n={n}")
    m = x.reshape(-1, 1) if n < 100 else x.reshape(100, -1) if n % 100 == 0 else x.reshape(1, -1)
    tm = tx.reshape(m.shape)
    for dim in (0, 1):
        _same(m.sum(dim), tm.sum(dim), f"float64 sum {tuple(m.shape)} dim={dim}")

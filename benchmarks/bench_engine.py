"""Engine speed, measured against hand-written NumPy and PyTorch in the same run.

(a) one MLP training step (batch 64, 784 -> 128 ReLU -> 10, cross-entropy, float32, forward +
    backward): engine vs the same computation by hand in NumPy vs torch (target: engine within
    1.2x of hand NumPy);
(b) the overhead per op of a chain of 1,000 ops on 3-element tensors, forward + backward: engine
    vs torch (target: below torch's).

BLAS/OpenMP are pinned to one thread (environment set before NumPy loads, torch.set_num_threads(1)).
Runs are interleaved (engine, numpy, torch, engine, ...) and medians of process CPU time reported.

    python benchmarks/bench_engine.py [--rounds N]      or      python -m benchmarks.bench_engine
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402

try:
    import torch  # noqa: E402

    torch.set_num_threads(1)
except ImportError:  # the benchmark still compares engine and NumPy without torch
    torch = None

BATCH, IN, HIDDEN, OUT = 64, 784, 128, 10
CHAIN = 1000


# ---- (a) MLP step ---------------------------------------------------------------------------------
def _mlp_data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    y = rng.integers(0, OUT, BATCH)
    w1 = (rng.standard_normal((HIDDEN, IN)) * 0.05).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    w2 = (rng.standard_normal((OUT, HIDDEN)) * 0.05).astype(np.float32)
    b2 = np.zeros(OUT, np.float32)
    return x, y, [w1, b1, w2, b2]


def _cross_entropy(lib):
    """The library's cross_entropy (engine.nn.functional once the nn layer has it)."""
    return lib.nn.functional.cross_entropy


def make_library_step(lib):
    """One training step written as PyTorch code, runnable by the engine and by torch."""
    x, y, params = _mlp_data()
    x, y = lib.tensor(x), lib.tensor(y)
    w1, b1, w2, b2 = (lib.tensor(p, requires_grad=True) for p in params)
    F = lib.nn.functional
    ce = _cross_entropy(lib)

    def step():
        for p in (w1, b1, w2, b2):
            p.grad = None
        h = F.relu(F.linear(x, w1, b1))
        loss = ce(F.linear(h, w2, b2), y)
        loss.backward()
        return loss

    return step, (w1, b1, w2, b2)


def make_numpy_step():
    """The same step written by hand in NumPy: forward, log-softmax + NLL, and its backward."""
    x, y, (w1, b1, w2, b2) = _mlp_data()
    rows = np.arange(BATCH)
    grads = {}

    def step():
        z1 = x @ w1.T + b1
        h = np.maximum(z1, 0)
        logits = h @ w2.T + b2
        m = logits.max(axis=1, keepdims=True)
        shifted = logits - m
        lse = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        logp = shifted - lse
        loss = -logp[rows, y].mean()
        dlogits = np.exp(logp)
        dlogits[rows, y] -= 1.0
        dlogits /= BATCH
        grads["w2"] = dlogits.T @ h
        grads["b2"] = dlogits.sum(axis=0)
        dh = dlogits @ w2
        dz1 = dh * (z1 > 0)
        grads["w1"] = dz1.T @ x
        grads["b1"] = dz1.sum(axis=0)
        return loss

    return step, grads


# ---- (b) chain of small ops ----------------------------------------------------------------------------
def make_chain(lib):
    """1,000 alternating multiply/add ops on a 3-element tensor, then backward."""
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)

    def step():
        x.grad = None
        y = x
        for _ in range(CHAIN // 2):
            y = y * 1.001
            y = y + 0.5
        y.sum().backward()
        return y

    return step, x


# ---- timing -----------------------------------------------------------------------------------------------
def _time(fn, inner: int) -> float:
    # CPU time of this process: what the step itself costs, even when other processes share
    # the two cores (wall-clock medians swing by 2x here while tests run beside the benchmark).
    t0 = time.process_time()
    for _ in range(inner):
        fn()
    return (time.process_time() - t0) / inner


def interleaved(fns: dict, rounds: int, inner: int) -> dict:
    """Median seconds per call of each function, runs interleaved round by round."""
    for fn in fns.values():  # warm up
        fn()
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            times[k].append(_time(fn, inner))
    return {k: statistics.median(v) for k, v in times.items()}


def check_same_numbers() -> float:
    """The engine's MLP gradients against the hand NumPy ones (largest relative difference)."""
    step, params = make_library_step(engine)
    step()
    nstep, grads = make_numpy_step()
    nstep()
    worst = 0.0
    for p, k in zip(params, ("w1", "b1", "w2", "b2")):
        ref = grads[k]
        worst = max(worst, float(np.max(np.abs(p.grad.numpy() - ref)) / (np.max(np.abs(ref)) + 1e-30)))
    return worst


def main(argv=None) -> dict:
    """Run both benchmarks and print the figures; returns them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15, help="interleaved rounds (median over them)")
    args = ap.parse_args(argv)

    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'missing'}, "
          f"BLAS threads pinned to {os.environ['OPENBLAS_NUM_THREADS']}")
    print(f"engine vs hand NumPy MLP gradients: max relative difference {check_same_numbers():.2e}")

    mlp = {"engine": make_library_step(engine)[0], "numpy": make_numpy_step()[0]}
    if torch is not None:
        mlp["torch"] = make_library_step(torch)[0]
    t = interleaved(mlp, args.rounds, inner=10)
    print(f"\n(a) MLP step, batch {BATCH}, {IN}->{HIDDEN} ReLU->{OUT}, cross-entropy, float32, fwd+bwd")
    for k, v in t.items():
        print(f"    {k:7s} {v * 1e3:8.3f} ms")
    print(f"    engine / numpy = {t['engine'] / t['numpy']:.2f}x   (target <= 1.2x)")
    if "torch" in t:
        print(f"    torch  / numpy = {t['torch'] / t['numpy']:.2f}x")

    chain = {"engine": make_chain(engine)[0]}
    if torch is not None:
        chain["torch"] = make_chain(torch)[0]
    chain["engine+rec"] = _recorded(make_chain(engine)[0])
    c = interleaved(chain, args.rounds, inner=3)
    print(f"\n(b) chain of {CHAIN} ops on 3-element tensors, forward + backward")
    for k, v in c.items():
        print(f"    {k:10s} {v / CHAIN * 1e6:8.2f} us per op")
    if "torch" in c:
        print(f"    engine / torch = {c['engine'] / c['torch']:.2f}x   (target < 1.0x)")
    print(f"    (engine+rec: the same with engine.trace.recording() on, for reference: "
          f"{c['engine+rec'] / c['engine']:.1f}x)")
    return {"mlp": t, "chain": c}


def _recorded(step):
    """``step`` run inside ``engine.trace.recording()`` (a fresh recorder each call)."""

    def run():
        with engine.trace.recording():
            return step()

    return run


if __name__ == "__main__":
    main()

"""Training 500 steps of the 2-16-16-2 MLP on 200 points (two moons, Adam) through POST /api/run,
beside the step time of plain PyTorch for the same loop, measured in the same run (interleaved).

    .venv/bin/python benchmarks/bench_mlp.py [--reps 5] [--steps 500]

Starts the real server (``python -m app``) on a free port, with BLAS and OpenMP on one thread.
Prints medians: end-to-end request time, the server's own breakdown (run, serialize, layout),
the engine's time per training step (with the trace recorded), and PyTorch's time per step.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from app.mlp.builder import build_program  # noqa: E402
from app.schemas import MlpConfig  # noqa: E402
from benchmarks.local_server import start_server  # noqa: E402


def torch_loop(steps: int, n: int = 200) -> float:
    """Seconds per step of the same loop in plain PyTorch (same model, loss, optimizer, data size)."""
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(0)
    y = torch.randint(0, 2, (n,))
    t = torch.rand(n) * 3.141592653589793
    s = 1 - 2 * y
    X = torch.stack([y + s * torch.cos(t), 0.5 * y + s * torch.sin(t)], dim=1) + 0.1 * torch.randn(n, 2)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    t0 = time.perf_counter()
    for step in range(steps):
        opt.zero_grad()
        out = model(X)
        loss = loss_fn(out, y)
        loss.backward()
        opt.step()
        if (step + 1) % 100 == 0:
            (out.argmax(dim=1) == y).sum().item()
    return (time.perf_counter() - t0) / steps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--steps", type=int, default=500)
    args = ap.parse_args()
    source, _ = build_program(MlpConfig(steps=args.steps))
    proc, base = start_server()
    url = f"{base}/api/run"
    try:
        with httpx.Client(timeout=120) as client:
            first = time.perf_counter()
            r = client.post(url, json={"source": source})
            cold = time.perf_counter() - first
            r.raise_for_status()
            body = r.json()
            assert body["error"] is None, body["error"]
            assert len(body["iterations"]) == args.steps
            totals, parts, torch_steps, sizes = [], [], [], []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                r = client.post(url, json={"source": source})
                totals.append(time.perf_counter() - t0)
                sizes.append(len(r.content))
                parts.append(r.json()["timings"])
                torch_steps.append(torch_loop(args.steps))
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    def med(key: str) -> float:
        return statistics.median(p.get(key, float("nan")) for p in parts)

    total = statistics.median(totals)
    run = med("run")
    print(f"MLP 2-16-16-2, two moons, 200 points, Adam, {args.steps} steps, trace recorded "
          f"(median of {args.reps}, interleaved with PyTorch)")
    print(f"  POST /api/run end to end:  {total:.3f} s   (first call, cold layout cache: {cold:.3f} s)")
    print(f"    server: run {run:.3f} s, serialize {med('serialize'):.3f} s, layout {med('layout'):.3f} s, "
          f"total {med('total'):.3f} s; response {statistics.median(sizes) / 1e6:.2f} MB")
    rest = total - run - med("serialize") - med("layout")
    print(f"    the rest (worker hand-off, pickling, validation, JSON, HTTP): {rest:.3f} s")
    print(f"  engine step (runner + recording, from 'run'): {1e3 * run / args.steps:.3f} ms")
    print(f"  PyTorch step (same loop, no trace):           {1e3 * statistics.median(torch_steps):.3f} ms")
    print(f"  target: end to end under 2 s -> {'met' if total < 2 else 'NOT met'}")


if __name__ == "__main__":
    main()

"""The program runner's own cost: ``run_program`` minus the same program run as plain Python under
``engine.trace.recording()`` (same engine, same recorder), for the large cases of bench_scale.

Both are timed in this process, interleaved, with the cyclic collector off (as the sandboxed
worker runs) and BLAS on one thread; medians and minimums are printed, and the runner's overhead
per case as seconds and as a ratio to the plain run.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_runner.py [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_scale import ATTENTION, SHARED, TRAIN  # noqa: E402

CASES = {
    "20,000 ops (shared)": SHARED.replace("{steps}", "9999").replace("{name}", "w"),
    "training loop, 1000 its": TRAIN.replace("{name}", "x"),
    "10,000 ops (attention)": ATTENTION.replace("{blocks}", "384").replace("{name}", "x"),
}


CLOCK = time.perf_counter


def plain(source: str, max_ops: int) -> float:
    """The program as plain Python with the engine as ``torch``, recorded, seeded as the runner seeds."""
    import engine
    from engine import factory, trace

    names = {"torch": engine, "nn": engine.nn, "F": engine.nn.functional, "optim": engine.optim,
             "__name__": "__main__"}
    factory.manual_seed(0)
    code = compile(source, "<program>", "exec")
    t0 = CLOCK()
    with trace.recording(max_ops=max_ops):
        exec(code, names)  # the benchmark's own sources, never a user's
    return CLOCK() - t0


def interpreted(source: str) -> float:
    from engine.runner import run_program

    t0 = CLOCK()
    res = run_program(source)
    elapsed = CLOCK() - t0
    if res.error is not None:
        raise SystemExit(f"the program failed: {res.error}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print one JSON object of the timings")
    ap.add_argument("--cpu", action="store_true",
                    help="time CPU time instead of the wall clock (steadier on a busy machine)")
    args = ap.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    from engine.runner.results import Settings

    max_ops = Settings().max_ops
    times: dict[str, dict[str, list[float]]] = {k: {"runner": [], "plain": []} for k in CASES}
    gc.disable()
    for _ in range(args.repeat):
        for name, source in CASES.items():
            times[name]["runner"].append(interpreted(source))
            gc.collect()
            times[name]["plain"].append(plain(source, max_ops))
            gc.collect()
    if args.json:
        print(json.dumps(times))
        return
    print(f"{'case':26} {'runner':>9} {'plain':>9} {'overhead':>9} {'min ovh':>9}")
    for name, t in times.items():
        r, p = statistics.median(t["runner"]), statistics.median(t["plain"])
        low = min(a - b for a, b in zip(t["runner"], t["plain"]))
        print(f"{name:26} {r:9.3f} {p:9.3f} {r - p:9.3f} {low:9.3f}   ({r / p:.2f}x plain)")


if __name__ == "__main__":
    main()

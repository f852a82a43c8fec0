"""What the sandbox costs per request: POST /api/run of a small expression on servers that differ
only in their containment, interleaved in one run.

- full: a fresh child per request, forked inside bubblewrap with seccomp (the default);
- language-only: the same fresh child per request without the OS layer (GRADVIZ_SANDBOX);
- baseline (optional, ``--baseline DIR``): another checkout's server, e.g. the commit before the
  sandbox, started with its own .venv, for a same-run comparison.

Every request is a program of its own (a numbered comment), so a worker runs each one. Prints the
median and p90 of each and the ratios to the first. Loopback only, bounded in time.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_sandbox.py [--repeat N] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from benchmarks.bench_load import SMALL, numbered  # noqa: E402
from benchmarks.local_server import start_server  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--baseline", type=Path, help="another checkout to serve as the baseline")
    args = ap.parse_args()
    servers = {}
    try:
        servers["full"] = start_server(env={"GRADVIZ_SANDBOX": "full"})
        servers["language-only"] = start_server(env={"GRADVIZ_SANDBOX": "language-only"})
        if args.baseline:
            root = args.baseline.resolve()
            servers["baseline"] = start_server(root=root, python=str(root / ".venv" / "bin" / "python"))
        times = {name: [] for name in servers}
        with httpx.Client(timeout=60) as client:
            for _, base in servers.values():  # warm the layout cache and the connections
                for n in range(5):
                    assert client.post(f"{base}/api/run", json=numbered(SMALL, -1 - n)).status_code == 200
            deadline = time.monotonic() + 300
            for n in range(args.repeat):
                for name, (_, base) in servers.items():
                    t = time.perf_counter()
                    # a program of its own each time: the same one again is answered from the shared cache
                    r = client.post(f"{base}/api/run", json=numbered(SMALL, n))
                    times[name].append(time.perf_counter() - t)
                    assert r.status_code == 200, r.text
                if time.monotonic() > deadline:
                    break
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(10)
    first = statistics.median(times["full"])
    print(f"{'server':<15}{'median ms':>11}{'p90 ms':>9}{'ratio':>8}   (n={len(times['full'])})")
    for name, ts in times.items():
        med = statistics.median(ts)
        p90 = sorted(ts)[int(0.9 * (len(ts) - 1))]
        print(f"{name:<15}{med * 1e3:>11.1f}{p90 * 1e3:>9.1f}{med / first:>8.2f}")


if __name__ == "__main__":
    main()

"""End-to-end time of POST /api/run beside `dot -Tsvg` alone on the same graph, in one run.

Starts the real server (`python -m app` on a free port), then for each case runs, interleaved:
- cold: a fresh variable name each time, so the layout cache misses and `dot` runs;
- warm: the same source again (a layout cache hit: what re-running or stepping iterations costs);
- dot alone: `dot -Tsvg` on the DOT text the app builds for that response's first view.
Prints medians. Target: cold end to end at most 2x dot alone (the server's own work costs less
than the layout it waits for).

With ``--baseline REV`` instead: today's server against the one of an earlier commit in the same
run (``benchmarks/baseline.py``): small expression and 50-step MLP medians, 16-client throughput.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_api.py [--repeat N]
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_api.py --baseline 3283045
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from app.drawing.layout import layout_data, layout_input, view_dot  # noqa: E402
from app.examples import EXAMPLES  # noqa: E402
from app.schemas import LayoutInput  # noqa: E402
from benchmarks.local_server import start_server  # noqa: E402


def _example(example_id: str) -> str:
    return next(e["source"] for e in EXAMPLES if e["id"] == example_id)


CHAIN = """
{name} = torch.tensor(0.5, requires_grad=True)
h = {name}
for i in range(300):
    h = torch.tanh(h)
h.backward()
"""

CASES = {
    "logistic neuron": _example("neuron").replace("loss", "{name}"),
    "MLP example": _example("mlp").replace("loss", "{name}"),
    "tanh chain (300)": CHAIN,
}


def post(client: httpx.Client, base: str, source: str) -> tuple[float, dict]:
    t0 = time.perf_counter()
    r = client.post(f"{base}/api/run", json={"source": source})
    elapsed = time.perf_counter() - t0
    r.raise_for_status()
    return elapsed, r.json()


def dot_alone(body: dict) -> tuple[float, int]:
    """``dot`` alone on the first view's DOT text (open loops closed), and the nodes it shows."""
    data = layout_data(LayoutInput.model_validate(layout_input(body)))
    dot = view_dot(data, 0)
    t0 = time.perf_counter()
    subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, check=True)
    return time.perf_counter() - t0, len(body["views"][0]["nodes"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--baseline", metavar="REV", action="append",
                        help="compare with this commit's server, same run (repeat: more commits, all "
                             "against the first)")
    args = parser.parse_args()
    if args.baseline:
        from benchmarks.baseline import compare

        compare(args.baseline)
        return
    proc, base = start_server()
    rows = []
    try:
        with httpx.Client(timeout=120) as client:
            for label, template in CASES.items():
                post(client, base, template.format(name="warmup_0"))  # start-up, imports
                cold, warm, dot, timings = [], [], [], []
                drawn = 0
                for k in range(args.repeat):
                    t, body = post(client, base, template.format(name=f"v{k}_{os.getpid()}"))
                    assert body["error"] is None, body["error"]
                    cold.append(t)
                    timings.append(body["timings"])
                    t, _ = post(client, base, template.format(name=f"v{k}_{os.getpid()}"))
                    warm.append(t)
                    t, drawn = dot_alone(body)
                    dot.append(t)
                med = statistics.median
                parts = {k: med(t[k] for t in timings) for k in ("run", "serialize", "layout")}
                rows.append((label, drawn, med(cold), med(warm), med(dot), parts))
    finally:
        proc.terminate()
        proc.wait(timeout=15)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"POST /api/run end to end vs `dot -Tsvg` alone (medians of {args.repeat}, seconds; "
          f"{os.cpu_count()} cores, load average {load:.1f})")
    print(f"{'case':<18} {'drawn':>6} {'cold e2e':>9} {'warm e2e':>9} {'dot alone':>10} {'cold/dot':>9}"
          f"   {'run':>7} {'serial.':>7} {'layout':>7}")
    for label, drawn, cold, warm, dot, parts in rows:
        print(f"{label:<18} {drawn:>6} {cold:>9.4f} {warm:>9.4f} {dot:>10.4f} {cold / dot:>8.2f}x"
              f"   {parts['run']:>7.4f} {parts['serialize']:>7.4f} {parts['layout']:>7.4f}")


if __name__ == "__main__":
    main()

"""What a fresh worker child pays for its first run: a process warmed up as the template is
(app/worker/jobs.py ``warm_up``, then ``gc.freeze``) forks children, as the template does, and each
child runs one program and reports its CPU time, its minor page faults (the pages it copies from
the template's memory on first touch, or maps new) and the modules it imported; children that ran
the warm-up themselves first (a spare that waited) beside children that did not (a spare a waiting
request took at once), interleaved. No sandbox: only the process's own first touches.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_child.py [--repeat N]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.worker import jobs  # noqa: E402
from benchmarks.baseline import MLP50, SMALL  # noqa: E402

PROGRAMS = {"small expression": (SMALL["source"], SMALL["variables"]), "50-step MLP": (MLP50["source"], None)}


def first_run(source: str, variables, warm: bool) -> dict:
    """Fork a child that (after the warm-up, if ``warm``) runs ``source`` once: what it cost it."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: as app/sandbox/child.py, no automatic collection
        try:
            os.close(r)
            gc.disable()
            if warm:
                jobs.warm_up()
            before = set(sys.modules)
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            cpu = time.process_time()
            jobs.run(source, variables)
            out = {"cpu": time.process_time() - cpu,
                   "faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults,
                   "imported": sorted(set(sys.modules) - before)}
            os.write(w, json.dumps(out).encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 1 << 16):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    jobs.warm_up()
    gc.collect()
    gc.freeze()
    got: dict = {}
    for _ in range(args.repeat):
        for name, (source, variables) in PROGRAMS.items():
            for warm in (False, True):
                got.setdefault((name, warm), []).append(first_run(source, variables, warm))
    print(f"a child's first run after the fork, medians of {args.repeat} children (process CPU time)")
    print(f"{'program':<18}{'child':<22}{'CPU ms':>8}{'page faults':>13}   modules imported")
    for (name, warm), runs in got.items():
        imported = sorted({m for r in runs for m in r["imported"]})
        print(f"{name:<18}{'warmed up first' if warm else 'straight from fork':<22}"
              f"{statistics.median(r['cpu'] for r in runs) * 1e3:>8.1f}"
              f"{statistics.median(r['faults'] for r in runs):>13.0f}   {', '.join(imported) or 'none'}")


if __name__ == "__main__":
    main()

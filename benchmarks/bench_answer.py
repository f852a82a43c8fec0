"""Where the CPU time of one /api/run answer goes, in one process (no server, no sandbox): the
50-step MLP program of benchmarks/baseline.py.

(a) the worker: the whole job (run + serialize), and of it the writing of float32 values
    (app/worker/values.py), with each distinct tensor converted once against converted at every
    appearance, interleaved in the same run;
(b) the job as ``POST /api/run`` asks it (the check by hand and the course views but the heat left for
    ``POST /api/run/extras``) against the whole answer, and the ``extras`` job, interleaved;
(c) the server's handling of the worker's answer with every layout cached (what a re-run costs
    besides its run): checking the reply, drawing (the views kept whole), splicing, reading the
    answer checked against the schema in one pass (app/schemas/plain.py), checking the drawings;
    each part's share of the whole; beside them, interleaved, what the schema check and the drawing
    check cost as two parses (the model's own validator, then a JSON parser); and the drawing from
    the cached pieces instead (each piece's DOT text written: its cache key).

Medians of process CPU time, so a machine busy with other work changes the figures little.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_answer.py [--rounds N]
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
from types import SimpleNamespace  # noqa: E402

import numpy as np  # noqa: E402
import orjson  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.drawing.layout import draw_view, draw_views, layout_data  # noqa: E402
from app.routes import worker_calls  # noqa: E402
from app.schemas.plain import reader  # noqa: E402
from app.schemas.run import RunResponse  # noqa: E402
from app.server.splice import check_drawings, splice_answer  # noqa: E402
from app.settings import AppSettings  # noqa: E402
from app.worker import jobs, values  # noqa: E402
from benchmarks.baseline import MLP50  # noqa: E402


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def timed(fn, *args):
    """``fn(*args)`` and the CPU seconds it took."""
    t = time.process_time()
    out = fn(*args)
    return out, time.process_time() - t


def every_time(arr: np.ndarray) -> np.ndarray:
    """The values path without its memo: each appearance of a tensor converted again."""
    return np.array([float(str(v)) for v in arr.ravel()], dtype=np.float64).reshape(arr.shape)


def from_pieces(data: dict, settings) -> list:
    """Every view drawn from the cached pieces, as before views were kept whole."""
    return [draw_view(data, i, settings) for i in range(len(data["views"]))]


def worker(rounds: int) -> None:
    source = MLP50["source"]
    memo = values.shortest
    spent = {"once": [], "every time": []}
    writing = {"once": [], "every time": []}
    for _ in range(rounds):
        for name, fn in (("once", memo), ("every time", every_time)):
            total = [0.0]

            def timed(arr, fn=fn, total=total):
                t = time.process_time()
                out = fn(arr)
                total[0] += time.process_time() - t
                return out

            values.shortest = timed
            values._SHORTEST.clear()
            spent[name].append(cpu(lambda: jobs.run(source)))
            writing[name].append(total[0])
    values.shortest = memo
    med = statistics.median
    print("worker, 50-step MLP job (run + serialize), median CPU ms:")
    for name in spent:
        print(f"  float32 values converted {name:<10}  job {med(spent[name]) * 1e3:7.1f}"
              f"   of it values {med(writing[name]) * 1e3:6.1f}")
    print(f"  values: once / every time = {med(writing['once']) / med(writing['every time']):.2f}x, "
          f"job: {med(spent['once']) / med(spent['every time']):.2f}x")


def two_parses(answer: str) -> None:
    """The schema and the drawings checked as before one pass did both: the model, then a parser."""
    RunResponse.model_validate_json(answer)
    orjson.loads(answer)


def later(rounds: int) -> None:
    source = MLP50["source"]
    spent = {"whole answer": [], "extras later": [], "extras job": []}
    for _ in range(rounds):
        spent["whole answer"].append(cpu(lambda: jobs.run(source)))
        spent["extras later"].append(cpu(lambda: jobs.run(source, None, "auto", True)))
        spent["extras job"].append(cpu(lambda: jobs.extras(source)))
    med = {k: statistics.median(v) for k, v in spent.items()}
    print("worker, 50-step MLP: the answer with its extras later (POST /api/run), median CPU ms:")
    for k, v in med.items():
        print(f"  {k:<14} {v * 1e3:7.1f}  {v / med['whole answer']:5.2f}x the whole answer")


def server(rounds: int) -> None:
    value, text = jobs.run(MLP50["source"], None, "auto", True)  # as POST /api/run asks it
    reply = SimpleNamespace(value=orjson.loads(orjson.dumps(value)), body=text, fresh=True)
    settings = AppSettings()
    parts = {k: [] for k in ("reply checked", "drawn", "spliced", "read and schema", "drawings checked",
                             "drawn from pieces", "two parses")}
    for r in range(rounds + 1):  # the first round lays out (the cache is empty): not counted
        t = {}
        (prepared, body), t["reply checked"] = timed(worker_calls.prepared_of, reply)
        data = layout_data(prepared.layout)
        _, t["drawn from pieces"] = timed(from_pieces, data, settings.layout)
        drawings, t["drawn"] = timed(draw_views, data, settings.layout)
        answer, t["spliced"] = timed(splice_answer, {"json": body, "nonce": prepared.nonce}, drawings, {})
        data, t["read and schema"] = timed(reader(RunResponse).read, answer.encode())
        _, t["drawings checked"] = timed(check_drawings, data, drawings)
        _, t["two parses"] = timed(two_parses, answer)
        for k, v in t.items():
            parts[k] += [v] if r else []
    med = {k: statistics.median(v) for k, v in parts.items()}
    pieces = med.pop("drawn from pieces")
    two = med.pop("two parses")
    whole = sum(med.values())
    print(f"server, the same answer ({len(answer):,} chars), layouts cached, median CPU ms:")
    for k, v in med.items():
        print(f"  {k:<18} {v * 1e3:7.1f}  {v / whole:5.0%}")
    print(f"  {'all':<18} {whole * 1e3:7.1f}")
    one = med["read and schema"] + med["drawings checked"]
    print(f"  schema and drawings as two parses (model_validate_json, then orjson.loads): {two * 1e3:.1f}; "
          f"one pass / two = {one / two:.2f}x")
    print(f"  drawn from the cached pieces (DOT text written): {pieces * 1e3:.1f}; "
          f"kept whole / from pieces = {med['drawn'] / pieces:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    jobs.run(MLP50["source"])  # imports and first-call costs out of the figures
    worker(args.rounds)
    later(args.rounds)
    server(args.rounds)


if __name__ == "__main__":
    main()

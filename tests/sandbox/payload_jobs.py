"""Jobs for the sandbox tests: the production jobs plus test-only entries, among them ``raw``,
which runs a raw Python payload inside a sandboxed child, bypassing the interpreter (as if the
language layer had fallen). Only the tests' pools import this table; the server's never does."""

from __future__ import annotations

import os

from app.worker.jobs import JOBS as PRODUCTION
from app.worker.jobs import warm_up as production_warm_up

WARMED_IN = None  # the process that last ran the warm-up (the template's, or a child's own)


def warm_up() -> None:
    """The server's warm-up (the template warms up as the server's does), noting which process ran it."""
    global WARMED_IN
    production_warm_up()
    WARMED_IN = os.getpid()


def raw(payload: str) -> dict:
    """Run ``payload`` as Python; it leaves what it found in ``result`` (JSON data)."""
    scope: dict = {"result": None}
    exec(compile(payload, "<payload>", "exec"), scope)  # noqa: S102 - the point of this test entry
    return {"result": scope["result"]}


def run_summary(source: str, variables=None) -> dict:
    """Run a program with the runner and reduce it to what the tests compare."""
    from engine.runner import ProgramError, run_program

    try:
        r = run_program(source, variables)
    except ProgramError as e:
        return {"program_error": e.error.type, "message": e.error.message}
    return {"error": r.error.type if r.error else None, "stdout": r.stdout,
            "variables": {k: v.tolist() for k, v in r.variables.items()}}


def slow_numpy(n: int) -> float:
    """Block in one long NumPy call (a big matrix product)."""
    import numpy as np

    a = np.ones((n, n))
    return float((a @ a @ a).sum())


def boom() -> None:
    raise ValueError("raised in the worker")


def exits() -> None:
    raise SystemExit(3)


def die() -> None:
    os._exit(3)


JOBS = dict(PRODUCTION, raw=raw, run_summary=run_summary, slow_numpy=slow_numpy, boom=boom, exits=exits,
            die=die, pid=os.getpid)

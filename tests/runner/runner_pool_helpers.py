"""Module-level functions the WorkerPool tests run in worker processes (pickled by name)."""

from __future__ import annotations

import os


def run_summary(source: str, variables=None) -> dict:
    """What the HTTP app's worker function does, in brief: run, then reduce to picklable data."""
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


def pid() -> int:
    return os.getpid()


def boom() -> None:
    raise ValueError("raised in the worker")


def die() -> None:
    os._exit(3)


def try_write(path: str) -> str:
    """Writing a file in a worker fails (RLIMIT_FSIZE is 0 there)."""
    try:
        with open(path, "w") as f:
            f.write("x" * 10)
        return "written"
    except OSError as e:
        return f"refused: {e.errno}"

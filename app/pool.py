"""The worker pool that runs programs (engine.runner.WorkerPool), opened and closed with the app."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI


def run_deadline(settings) -> float:
    """Seconds the server waits for one run: the runner's wall-time limit plus a margin."""
    if settings.run_timeout_s is not None:
        return settings.run_timeout_s
    from engine.runner import Settings

    return float(Settings().timeout_s) + settings.timeout_margin_s


@asynccontextmanager
async def lifespan(app: FastAPI):
    """Start the pool when the server starts; stop its workers when it stops."""
    from engine.runner import WorkerPool

    pool = WorkerPool(workers=app.state.settings.pool_workers)
    app.state.pool = pool
    try:
        yield
    finally:
        close = getattr(pool, "close", None) or getattr(pool, "shutdown", None)
        if close is not None:
            close()

"""The sandboxed worker pool (app/sandbox/), opened and closed with the app, and the time budget
of one request."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI

from ..drawing.layout import DOT_SLOTS


def run_deadline(settings) -> float:
    """Seconds a run may take in its worker: the runner's wall-time limit plus a margin."""
    if settings.run_timeout_s is not None:
        return settings.run_timeout_s

    from engine.runner import Settings

    return float(Settings().timeout_s) + settings.timeout_margin_s


def request_budget(settings) -> float:
    """Seconds one request may take in all (run, then layout)."""
    return run_deadline(settings) + settings.layout_budget_s


@asynccontextmanager
async def lifespan(app: FastAPI):
    """Start the pool when the server starts (refusing to start without the OS sandbox unless it
    was switched off on purpose); stop it when the server stops."""
    from ..sandbox import SandboxPool

    pool = SandboxPool(app.state.settings.sandbox)
    DOT_SLOTS.resize(app.state.settings.sandbox.slots)
    app.state.pool = pool
    try:
        yield
    finally:
        pool.close()

"""POST /api/run: run a program in a worker process, then draw its graph here (the layout cache
lives in this process). A sync route: FastAPI runs it in its thread pool, so one slow run or
layout does not hold up other requests."""

from __future__ import annotations

import time
from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import Response

from engine.gcpause import gc_paused

from ..answer import splice_answer
from ..errors import error_response, internal_error
from ..execute import run_for_http
from ..layout import LayoutSettings, draw_views
from ..pool import run_deadline
from ..schemas import ErrorResponse, RunRequest, RunResponse

router = APIRouter(prefix="/api", tags=["run"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run (syntax, forbidden, limit)"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"}}


def fold_settings(layout: LayoutSettings, fold: str) -> LayoutSettings:
    """The layout settings for the requested graph level ("auto": the server's threshold)."""
    if fold == "module":
        return replace(layout, fold_threshold=0)
    if fold == "op":
        return replace(layout, fold_threshold=layout.max_nodes)
    return layout


@router.post("/run", response_model=RunResponse, responses=ERRORS)
def run(body: RunRequest, request: Request) -> Response:
    """Run the program; answer its graph, backward steps, variables, output and drawing."""
    settings = request.app.state.settings
    variables = {k: v.model_dump() for k, v in body.variables.items()} if body.variables else None
    deadline = run_deadline(settings)
    t0 = time.perf_counter()
    with gc_paused():  # a large answer is many small objects: see engine/gcpause.py
        return _run(body, request, settings, variables, deadline, t0)


def _run(body: RunRequest, request: Request, settings, variables, deadline: float, t0: float) -> Response:
    """Worker run (JSON with slots) → layout here → the spliced answer, or an error answer."""
    from engine.runner import RunTimeout, WorkerCrashed

    try:
        out = request.app.state.pool.call(run_for_http, body.source, variables, timeout=deadline)
    except RunTimeout as exc:  # the run passed its deadline, or every worker stayed busy
        return error_response(400, "TimeoutError", f"{exc} (limit: timeout_s)")
    except WorkerCrashed as exc:
        return error_response(400, "RuntimeError", f"the program stopped its worker process: {exc}")
    except Exception as exc:  # the worker failed in a way the runner did not report
        return internal_error(exc)
    if "program_error" in out:
        err = out["program_error"]
        return error_response(400, err["type"], err["message"], err["line"], err["col"])
    # The worker wrote the JSON (to the schema: tests validate every answer against RunResponse);
    # here the views are drawn and spliced in (app/answer.py).
    prepared = out["prepared"]
    t1 = time.perf_counter()
    drawings = draw_views(prepared["layout"], fold_settings(settings.layout, body.fold))
    timings = dict(prepared["timings"], layout=time.perf_counter() - t1, total=time.perf_counter() - t0)
    return Response(splice_answer(prepared, drawings, timings).encode(), media_type="application/json")

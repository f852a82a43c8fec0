"""POST /api/run: run the program in a fresh sandboxed worker, then draw its graph here (the
layout cache lives in this process). A sync route: FastAPI runs it in its thread pool, so one slow
run or layout does not hold up other requests. One time budget covers the run and the drawing."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..package import from_engine
from ..pool import request_budget
from ..sandbox import WorkerProtocolError
from ..schemas import ErrorResponse, RunRequest, RunResponse
from .open_ahead import answered
from .worker_calls import call_worker, drawn_answer, prepared_of
from .worker_errors import worker_error_response

(gc_paused,) = from_engine("gcpause", "gc_paused")
router = APIRouter(prefix="/api", tags=["run"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run (syntax, forbidden, limit)"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"},
          503: {"model": ErrorResponse, "description": "every worker is busy: retry after Retry-After s"}}


@router.post("/run", response_model=RunResponse, responses=ERRORS)
def run(body: RunRequest, request: Request) -> Response:
    """Run the program; answer its graph, backward steps, variables, output and drawing."""
    settings = request.app.state.settings
    variables = {k: v.model_dump() for k, v in body.variables.items()} if body.variables else None
    t0 = time.perf_counter()
    budget_end = time.monotonic() + request_budget(settings)
    reply = call_worker(request, "run", body.source, variables, body.fold)
    if isinstance(reply, Response):
        return reply
    with gc_paused():  # a large answer is many small objects: see engine/gcpause.py
        got = prepared_of(reply)
        if isinstance(got, Response):
            return got
        prepared, text = got
        answer, _ = drawn_answer(prepared, text, settings, body.direction, t0, budget_end, RunResponse)
    if answer is None:
        return worker_error_response(WorkerProtocolError("the worker's answer did not fit the schema"))
    return answered(request, body.source, variables, body.direction, answer, prepared)

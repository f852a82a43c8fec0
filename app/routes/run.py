"""POST /api/run: run the program in a fresh sandboxed worker, then draw its graph here (the
layout cache lives in this process). A sync route: FastAPI runs it in its thread pool, so one slow
run or layout does not hold up other requests. One time budget covers the run and the drawing."""

from __future__ import annotations

import time
from dataclasses import replace

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError

from ..answer import splice_answer
from ..clients import client_of, worker_key_of
from ..errors import error_response
from ..layout import LayoutSettings, draw_views, layout_data
from ..package import from_engine
from ..pool import request_budget, run_deadline
from ..sandbox import JobFailed, PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError
from ..schemas import ErrorResponse, RunRequest, RunResponse, WorkerRunReply
from .worker_errors import worker_error_response

(gc_paused,) = from_engine("gcpause", "gc_paused")
router = APIRouter(prefix="/api", tags=["run"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run (syntax, forbidden, limit)"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"},
          503: {"model": ErrorResponse, "description": "every worker is busy: retry after Retry-After s"}}


def direction_settings(layout: LayoutSettings, direction: str) -> LayoutSettings:
    """The layout settings for a direction ("down": every piece top to bottom, for a phone)."""
    if direction == "down":
        return replace(layout, max_lr_depth=-1)  # no graph is short enough to lie on its side
    return layout


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
        return _drawn(*got, settings, body.direction, t0, budget_end)


def call_worker(request: Request, job: str, *args):
    """Run ``job`` with ``args`` in a sandboxed worker for this request: its reply, or the error
    response to send (busy, timeout, crash, a reply that broke the protocol)."""
    settings = request.app.state.settings
    try:
        return request.app.state.pool.call(job, *args, timeout=run_deadline(settings),
                                           client=client_of(request.scope),
                                           keep_for=worker_key_of(request.scope))
    except (PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError, JobFailed) as exc:
        return worker_error_response(exc)


def prepared_of(reply, views: int | None = None):
    """A worker's reply to a run as ``(prepared answer, its JSON text)``, or the error response to
    send: a reply that does not fit the schema or is incomplete (``views``: how many views it must
    draw; default: as many as it says), a program that could not run."""
    try:
        out = WorkerRunReply.model_validate(reply.value)
    except ValidationError:
        return worker_error_response(WorkerProtocolError("the worker's answer did not fit the schema"))
    if out.program_error is not None:
        err = out.program_error
        return error_response(400, err.type, err.message, err.line, err.col)
    prepared = out.prepared
    if prepared is None or reply.body is None or prepared.views != len(prepared.layout.views) \
            or (views is not None and prepared.views != views):
        return worker_error_response(WorkerProtocolError("the worker's answer was incomplete"))
    return prepared, reply.body


def _drawn(prepared, text: str, settings, direction: str, t0: float, budget_end: float) -> Response:
    """Lay out the views within what is left of the budget, splice the drawings in, and check the
    whole answer against the schema before it leaves (the worker wrote most of it)."""
    answer, _ = drawn_answer(prepared, text, settings, direction, t0, budget_end, RunResponse)
    if answer is None:
        return worker_error_response(WorkerProtocolError("the worker's answer did not fit the schema"))
    return Response(answer.encode(), media_type="application/json")


def drawn_answer(prepared, text: str, settings, direction: str, t0: float, budget_end: float, model):
    """The answer text with its drawings (laid out within what is left of the budget), checked
    against ``model``, and whether every view was drawn; (None, False) when it does not fit."""
    t1 = time.perf_counter()
    # what is left of the request's budget, and never more than the drawing's own share of it
    deadline = min(budget_end, time.monotonic() + settings.layout_budget_s)
    drawings = draw_views(layout_data(prepared.layout), direction_settings(settings.layout, direction),
                          deadline=deadline)
    timings = dict(prepared.timings, layout=time.perf_counter() - t1, total=time.perf_counter() - t0)
    try:
        answer = splice_answer({"json": text, "nonce": prepared.nonce}, drawings, timings)
        model.model_validate_json(answer)
    except (ValidationError, KeyError, ValueError):
        return None, False
    return answer, all(d.undrawn is None for d in drawings)

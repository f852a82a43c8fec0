"""Calling a sandboxed worker for a request and checking what it answers: the one path of
``POST /api/run``, ``/api/open`` (and the answers worked out ahead for it) and the MLP builder's
boundary. A worker's reply is data only; it is checked against the schema here before anything
of it is drawn or sent."""

from __future__ import annotations

import time

from fastapi import Request
from pydantic import ValidationError

from ..answer import splice_answer
from ..clients import client_of, worker_key_of
from ..errors import error_response
from ..layout import draw_views, layout_data
from ..pool import run_deadline
from ..sandbox import JobFailed, PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError
from ..schemas import WorkerRunReply
from .directions import direction_settings
from .worker_errors import worker_error_response


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

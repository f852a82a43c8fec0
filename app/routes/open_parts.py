"""POST /api/open: one view of a run again with other parts open (a box the user opened or closed).

The nodes inside a closed part are not in a run's answer; to show them the program runs again in a
fresh sandboxed worker (runs are deterministic: the same source, inputs and seed record the same
graph, which the fingerprint checks), and the server draws that view at the new open set. Nothing
is kept between requests but what the shared cache holds (``app.layout.CACHE``: in this process,
or in Redis for every replica): the layouts by structure, and each answer of this route for a
while, so a part opened again, by anyone, on any replica, costs no run.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import error_response
from ..layout import CACHE
from ..package import from_engine
from ..pool import request_budget
from ..sandbox import WorkerProtocolError
from ..schemas import ErrorResponse, OpenRequest, OpenResponse
from .open_ahead import PENDING, answered
from .open_keys import OPEN_TTL_S, answer_key
from .worker_calls import call_worker, drawn_answer, prepared_of
from .worker_errors import worker_error_response

(gc_paused,) = from_engine("gcpause", "gc_paused")

router = APIRouter(prefix="/api", tags=["open"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run, or has no such view"},
          409: {"model": ErrorResponse, "description": "running the program again gave another graph"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"},
          503: {"model": ErrorResponse, "description": "every worker is busy: retry after Retry-After s"}}


def _other_run(fingerprint: str) -> Response:
    return error_response(409, "RunChanged", "running the program again recorded another graph "
                                             f"(fingerprint {fingerprint}): run it again to open its parts")


@router.post("/open", response_model=OpenResponse, responses=ERRORS)
def open_parts(body: OpenRequest, request: Request) -> Response:
    """The view ``view`` of the program's run with the parts ``open`` open."""
    settings = request.app.state.settings
    variables = {k: v.model_dump() for k, v in body.variables.items()} if body.variables else None
    key = answer_key(body.source, variables, body.view, body.open, body.direction, body.had)
    cached = CACHE.get(key)
    if cached is None and PENDING.wait(key, request_budget(settings)):  # being worked out ahead
        cached = CACHE.get(key)
    if cached is not None:
        fingerprint, _, answer = cached.partition("\n")
        if body.fingerprint and body.fingerprint != fingerprint:
            return _other_run(fingerprint)
        return answered(request, body.source, variables, body.direction, answer)
    t0 = time.perf_counter()
    budget_end = time.monotonic() + request_budget(settings)
    reply = call_worker(request, "open", body.source, variables, body.view, body.open, body.had)
    if isinstance(reply, Response):
        return reply
    with gc_paused():
        got = prepared_of(reply, views=1)
        if isinstance(got, Response):
            return got
        prepared, text = got
        if body.fingerprint and body.fingerprint != prepared.fingerprint:
            return _other_run(prepared.fingerprint)
        answer, complete = drawn_answer(prepared, text, settings, body.direction, t0, budget_end,
                                        OpenResponse)
        if answer is None:
            return worker_error_response(WorkerProtocolError("the worker's answer did not fit the schema"))
        if complete:
            CACHE.put(key, f"{prepared.fingerprint}\n{answer}", ttl_s=OPEN_TTL_S)
    return answered(request, body.source, variables, body.direction, answer, prepared)

"""POST /api/run/extras: what a run's answer leaves for later (``extras_later``): the check by hand and
the course views but the gradient heat, asked by the page when it shows them. A fresh sandboxed
worker runs the program again (runs are deterministic; the fingerprint checks it) and answers them
as JSON text, checked against the schema here. Answers are kept in the shared cache as
``POST /api/run``'s are (app/routes/shared_answers.py): by anyone's request, only when a worker that
had run nothing before worked them out."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError

from ..sandbox import WorkerProtocolError
from ..schemas.common import ErrorResponse
from ..schemas.extras import ExtrasRequest, ExtrasResponse, WorkerExtrasReply
from ..schemas.plain import reader
from ..server.errors import error_response
from ..words.messages import own_message
from .shared_answers import extras_key
from .worker_calls import UNFIT, Answer, call_worker, kept_or_worked
from .worker_errors import worker_error_response

router = APIRouter(prefix="/api", tags=["run"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run (syntax, forbidden, limit)"},
          409: {"model": ErrorResponse, "description": "running the program again gave another graph"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"},
          503: {"model": ErrorResponse, "description": "every worker is busy: retry after Retry-After s"}}


@router.post("/run/extras", response_model=ExtrasResponse, responses=ERRORS)
def run_extras(body: ExtrasRequest, request: Request) -> Response:
    """The check by hand and the course views (but the heat) of the program's run."""
    settings = request.app.state.settings
    variables = {k: v.model_dump() for k, v in body.variables.items()} if body.variables else None

    def work():
        reply = call_worker(request, "extras", body.source, variables)
        if isinstance(reply, Response):
            return reply, False
        return _checked(reply), reply.fresh

    answer = kept_or_worked(request, extras_key(settings, body.source, variables), work)
    if isinstance(answer, Response):
        return answer
    if body.fingerprint and body.fingerprint != answer.fingerprint:
        return error_response(409, "RunChanged", own_message("extras_run_changed", answer.fingerprint))
    return Response(answer.text.encode(), media_type="application/json",
                    headers={"X-Gradviz-Cache": "hit" if answer.cached else "miss"})


def _checked(reply) -> Answer | Response:
    """A worker's reply to ``extras`` as an ``Answer`` (its text checked against the schema), or the
    error response to send."""
    try:
        out = WorkerExtrasReply.model_validate(reply.value)
    except ValidationError:
        return worker_error_response(WorkerProtocolError(UNFIT))
    if out.program_error is not None:
        err = out.program_error
        return error_response(400, err.type, err.message, err.line, err.col)
    if reply.body is None:
        return worker_error_response(WorkerProtocolError(own_message("worker_answer_incomplete")))
    try:  # checked and read as the page reads it, in one pass (bare NaN refused: the page could not parse it)
        got = reader(ExtrasResponse).read(reply.body.encode())
    except ValueError:  # a ValidationError is one
        return worker_error_response(WorkerProtocolError(UNFIT))
    return Answer(reply.body, got["fingerprint"], sum(got.get("timings", {}).values()))

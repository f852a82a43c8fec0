"""POST /api/open: one view of a run again with other parts open (a box the user opened or closed).

The nodes inside a closed part are not in a run's answer; to show them the program runs again in a
fresh sandboxed worker (runs are deterministic: the same source, inputs and seed record the same
graph, which the fingerprint checks), and the server draws that view at the new open set. Nothing
is kept between requests but what the shared cache holds (app/routes/shared_answers.py): the
layouts by structure, and each answer for a while, so a part opened again, by anyone, on any
replica, costs no run.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..schemas.common import ErrorResponse
from ..schemas.open import OpenRequest, OpenResponse
from ..server.errors import error_response
from ..words.messages import own_message
from .open_ahead import answered
from .shared_answers import open_key
from .worker_calls import answer_once

RETRY_AFTER_S = 2
router = APIRouter(prefix="/api", tags=["open"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run, or has no such view"},
          409: {"model": ErrorResponse, "description": "running the program again gave another graph"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"},
          503: {"model": ErrorResponse,
                "description": "every worker is busy, or the rerun ran out of time: retry after Retry-After"}}


def _other_run(fingerprint: str, timed_out: bool = False) -> Response:
    """The answer when running again recorded another graph (``fingerprint``). A rerun that stopped on
    its wall-time limit (``timed_out``) recorded less than the first run only because the machine was
    busy: the page may ask again."""
    if timed_out:
        resp = error_response(503, "ServerBusy", own_message("rerun_out_of_time"))
        resp.headers["Retry-After"] = str(RETRY_AFTER_S)
        return resp
    return error_response(409, "RunChanged", f"running the program again recorded another graph (fingerprint "
                                             f"{fingerprint}): run it again to open its parts")


@router.post("/open", response_model=OpenResponse, responses=ERRORS)
def open_parts(body: OpenRequest, request: Request) -> Response:
    """The view ``view`` of the program's run with the parts ``open`` open."""
    settings = request.app.state.settings
    variables = {k: v.model_dump() for k, v in body.variables.items()} if body.variables else None
    key = open_key(settings, body.source, variables, body.view, body.open, body.direction, body.had)

    def same_run(got) -> Response | None:
        if body.fingerprint and body.fingerprint != got.fingerprint:
            return _other_run(got.fingerprint, getattr(got, "timed_out", False))
        return None

    answer = answer_once(request, key, "open", (body.source, variables, body.view, body.open, body.had),
                         OpenResponse, body.direction, views=1, check=same_run)
    if isinstance(answer, Response):
        return answer
    return answered(request, body.source, variables, body.direction, answer)

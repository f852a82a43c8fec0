"""POST /api/run: run the program in a fresh sandboxed worker, then draw its graph here. A sync
route: FastAPI runs it in its thread pool, so one slow run or layout does not hold up other
requests. One time budget covers the run and the drawing. The same request again (by anyone, while
the answer is kept) is answered from the shared cache (app/routes/shared_answers.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..schemas.common import ErrorResponse
from ..schemas.run import RunRequest, RunResponse
from .open_ahead import answered
from .shared_answers import run_key
from .worker_calls import answer_once

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
    key = run_key(settings, body.source, variables, body.fold, body.direction)
    # the check by hand and the course views but the heat: POST /api/run/extras, when the page shows them
    answer = answer_once(request, key, "run", (body.source, variables, body.fold, True), RunResponse,
                         body.direction)
    if isinstance(answer, Response):
        return answer
    return answered(request, body.source, variables, body.direction, answer)

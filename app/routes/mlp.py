"""The MLP builder's routes: the form → its program, and decision-boundary frames for training.

Training itself goes through ``POST /api/run`` like any program: these routes only add what the
training view needs beyond it. The boundary runs the program in the same worker pool as /api/run.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from ..mlp.builder import MlpConfigError, build_program
from ..sandbox import WorkerProtocolError
from ..schemas.common import ErrorResponse
from ..schemas.mlp import BoundaryRequest, BoundaryResponse, MlpConfig, MlpProgram
from ..server.errors import error_response
from ..words.messages import own_message
from .worker_calls import UNFIT, call_worker
from .worker_errors import worker_error_response

router = APIRouter(prefix="/api/mlp", tags=["mlp"])

ERRORS = {422: {"model": ErrorResponse, "description": "the form's values do not fit together"}}


def config_error(exc: MlpConfigError) -> JSONResponse:
    """A 422 with the usual error shape; the message names the field to change."""
    return error_response(422, "ConfigError", own_message("config_field", exc.field, exc))


@router.post("/program", response_model=MlpProgram, responses=ERRORS)
def program(cfg: MlpConfig):
    """The PyTorch-style program the form stands for."""
    try:
        source, p = build_program(cfg)
    except MlpConfigError as exc:
        return config_error(exc)
    sizes = [p.input_size, *p.hidden, p.output_size]
    return MlpProgram(source=source, task=p.task, classes=p.classes, input_size=p.input_size,
                      output_size=p.output_size, layers=[[a, b] for a, b in zip(sizes[:-1], sizes[1:])],
                      activation=cfg.activation)


@router.post("/boundary", response_model=BoundaryResponse, responses=ERRORS)
def boundary(req: BoundaryRequest, request: Request):
    """Run the program and return the decision boundary at a few points of its training."""
    try:
        build_program(req.config)
    except MlpConfigError as exc:
        return config_error(exc)
    reply = call_worker(request, "boundary", req.config.model_dump(), req.source, req.grid, req.frames)
    if isinstance(reply, Response):
        return reply
    try:
        return BoundaryResponse.model_validate(reply.value)
    except ValidationError:
        return worker_error_response(WorkerProtocolError(UNFIT))

"""The MLP builder's routes: the form → its program, and decision-boundary frames for training.

Training itself goes through ``POST /api/run`` like any program: these routes only add what the
training view needs beyond it.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from ..mlp_boundary import boundary_job
from ..mlp_builder import MlpConfigError, build_program
from ..schemas import BoundaryRequest, BoundaryResponse, ErrorResponse, MlpConfig, MlpProgram

router = APIRouter(prefix="/api/mlp", tags=["mlp"])

ERRORS = {422: {"model": ErrorResponse, "description": "the form's values do not fit together"}}


def config_error(exc: MlpConfigError) -> JSONResponse:
    """A 422 with the usual error shape; the message names what to change."""
    body = ErrorResponse(error={"type": "ConfigError", "message": f"{exc.field}: {exc}"})
    return JSONResponse(status_code=422, content=body.model_dump())


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
async def boundary(req: BoundaryRequest):
    """Run the program and return the decision boundary at a few points of its training."""
    try:
        build_program(req.config)
    except MlpConfigError as exc:
        return config_error(exc)
    data = await run_in_threadpool(boundary_job, req.config.model_dump(), req.source, req.grid, req.frames)
    return BoundaryResponse(**data)

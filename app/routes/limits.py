"""GET /api/limits: the limits a request meets on this server, for the page to show before it hits them
(the MLP form's bounds and its most steps) and to name in words when a message cites one."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Request

from ..mlp.limits import mlp_limits
from ..schemas.meta import Limits

router = APIRouter(prefix="/api", tags=["limits"])


@router.get("/limits", response_model=Limits)
def limits(request: Request) -> Limits:
    """The runner's limits, the drawing's largest view and the MLP form's bounds."""

    from engine.runner import Settings

    run = {k: float(v) for k, v in asdict(Settings()).items() if isinstance(v, int | float) and k != "seed"}
    return Limits(run=run, layout_max_nodes=request.app.state.settings.layout.max_nodes, mlp=mlp_limits())

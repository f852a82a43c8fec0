"""GET /api/limits: the limits a request meets on this server, for the page to show before it hits them
(the MLP form's bounds and its most steps) and to name in words when a message cites one."""

from __future__ import annotations

from dataclasses import asdict
from functools import lru_cache

from annotated_types import Ge, Gt, Le, Lt
from fastapi import APIRouter, Request

from ..mlp.builder import HIDDEN_SIZES, MAX_HIDDEN_LAYERS, max_steps_table
from ..schemas.meta import FieldRange, Limits, MlpLimits
from ..schemas.mlp import MlpConfig

router = APIRouter(prefix="/api", tags=["limits"])


def field_range(name: str) -> FieldRange | None:
    """The bounds pydantic checks on a numeric MlpConfig field (None: not a bounded number)."""
    out = FieldRange()
    found = False
    for m in MlpConfig.model_fields[name].metadata:
        if isinstance(m, Ge | Gt):
            out.min, out.min_open, found = float(m.ge if isinstance(m, Ge) else m.gt), isinstance(m, Gt), True
        elif isinstance(m, Le | Lt):
            out.max, out.max_open, found = float(m.le if isinstance(m, Le) else m.lt), isinstance(m, Lt), True
    return out if found else None


@lru_cache(maxsize=1)
def mlp_limits() -> MlpLimits:
    """The form's bounds (they do not change while the server runs)."""
    fields = {name: r for name in MlpConfig.model_fields if (r := field_range(name)) is not None}
    steps, names = max_steps_table(int(fields["accumulate"].max))
    lo, hi = HIDDEN_SIZES
    return MlpLimits(fields=fields, hidden_layers=MAX_HIDDEN_LAYERS, hidden_size=FieldRange(min=lo, max=hi),
                     max_steps=steps, max_steps_limit=names)


@router.get("/limits", response_model=Limits)
def limits(request: Request) -> Limits:
    """The runner's limits, the drawing's largest view and the MLP form's bounds."""

    from engine.runner import Settings

    run = {k: float(v) for k, v in asdict(Settings()).items() if isinstance(v, int | float) and k != "seed"}
    return Limits(run=run, layout_max_nodes=request.app.state.settings.layout.max_nodes, mlp=mlp_limits())

"""The MLP form's bounds, read from the checks of its request (``MlpConfig``) and the builder's own
limits: what ``GET /api/limits`` answers as ``mlp``, and what the page as one file carries instead."""

from __future__ import annotations

from functools import lru_cache

from annotated_types import Ge, Gt, Le, Lt

from ..schemas.meta import FieldRange, MlpLimits
from ..schemas.mlp import MlpConfig
from .builder import HIDDEN_SIZES, MAX_HIDDEN_LAYERS, max_steps_table


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

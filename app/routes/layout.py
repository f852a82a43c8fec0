"""POST /api/layout: draw a run's graph again at another level, without running the program again.

The page sends the layout input it has from the run's answer (graph nodes and edges, each view's
ids; validated strictly by ``LayoutRequest``), the level and the direction (a phone reads a graph
top to bottom); the answer is each view's new drawing.
Stateless: nothing is kept between requests but the layout cache of ``app.drawing.layout``. The drawing
takes one of the server's drawing places, fairly among clients like the workers (``DOT_SLOTS``:
a client that drew much lately, or one without a record, cannot hold every place); none within half
the time budget is 503 with Retry-After. It runs within one time budget for all its views; a view
cut short by it says so.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request

from ..drawing.layout import DOT_SLOTS, direction_settings, draw_views, layout_data
from ..sandbox import PoolBusy
from ..schemas.common import ErrorResponse
from ..schemas.layout import LayoutRequest, LayoutResponse
from .worker_errors import worker_error_response

router = APIRouter(prefix="/api", tags=["layout"])

ERRORS = {413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, wrong types, unknown fields or ids"},
          503: {"model": ErrorResponse, "description": "every drawing place is busy: retry later"}}


@router.post("/layout", response_model=LayoutResponse, responses=ERRORS)
def layout(body: LayoutRequest, request: Request):
    """Each view of the request drawn at the requested level (views in the request's order)."""
    app_settings = request.app.state.settings
    settings = direction_settings(app_settings.layout, body.direction)
    deadline = time.monotonic() + app_settings.layout_budget_s
    try:
        with DOT_SLOTS.drawing(app_settings.layout_budget_s / 2):
            drawings = draw_views(layout_data(body), settings, deadline=deadline, fold=body.fold)
    except PoolBusy as exc:
        return worker_error_response(exc)
    return LayoutResponse(views=[{"index": i, "svg": d.svg, "folded": d.folded, "folds": d.folds,
                                  "undrawn": d.undrawn, "open": d.open, "segments": d.segments}
                                 for i, d in enumerate(drawings)])

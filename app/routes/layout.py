"""POST /api/layout: draw a run's graph again at another level, without running the program again.

The page sends the layout input it has from the run's answer (graph nodes and edges, each view's
ids; validated strictly by ``LayoutRequest``), the level and the direction (a phone reads a graph
top to bottom); the answer is each view's new drawing.
Stateless: nothing is kept between requests but the layout cache of ``app.layout``. A few layouts
run at once (``dot`` is CPU-bound); one request gets one layout time budget for all its views.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from fastapi import APIRouter, Request

from ..errors import error_response
from ..layout import draw_views
from ..schemas import ErrorResponse, LayoutRequest, LayoutResponse
from .run import fold_settings

router = APIRouter(prefix="/api", tags=["layout"])

ERRORS = {413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, wrong types, unknown fields or ids"},
          503: {"model": ErrorResponse, "description": "every layout slot stayed busy: retry later"}}
WAIT_S = 5.0  # how long a request waits for a free slot before it is told to come back
_SLOTS_LOCK = threading.Lock()


def layout_slots(app) -> threading.BoundedSemaphore:
    """The app's layout slots: as many layouts at once as the pool has workers."""
    with _SLOTS_LOCK:
        slots = getattr(app.state, "layout_slots", None)
        if slots is None:
            slots = threading.BoundedSemaphore(max(1, app.state.settings.pool_workers))
            app.state.layout_slots = slots
        return slots


@router.post("/layout", response_model=LayoutResponse, responses=ERRORS)
def layout(body: LayoutRequest, request: Request):
    """Each view of the request drawn at the requested level (views in the request's order)."""
    settings = fold_settings(request.app.state.settings.layout, body.fold)
    if body.direction == "down":
        settings = replace(settings, max_lr_depth=-1)  # no graph is short enough to lie on its side
    data = {
        "nodes": {n.id: n.model_dump(exclude={"id"}) for n in body.nodes},
        "edges": {e.id: e.model_dump(exclude={"id"}) for e in body.edges},
    }
    slots = layout_slots(request.app)
    if not slots.acquire(timeout=WAIT_S):
        answer = error_response(503, "Busy", "the server is drawing other graphs: try again in a moment")
        answer.headers["Retry-After"] = "2"
        return answer
    try:
        return LayoutResponse(views=_draw(data, body, settings))
    finally:
        slots.release()


def _draw(data: dict, body: LayoutRequest, settings) -> list[dict]:
    """One drawing per view, all within one time budget (a view drawn past it says so instead)."""
    deadline = time.monotonic() + settings.timeout_s
    out = []
    for i, view in enumerate(body.views):
        left = max(0.05, deadline - time.monotonic())
        one = dict(data, views=[(view.nodes, view.edges)])
        (drawing,) = draw_views(one, replace(settings, timeout_s=min(settings.timeout_s, left)))
        out.append({"index": i, "svg": drawing.svg, "folded": drawing.folded, "folds": drawing.folds})
    return out


"""GET /offline: the page as one self-contained HTML file without a run in it (app/offline.py). The
page's "Save as HTML" button puts the run it shows into it and saves the file, with what
POST /api/offline/opened answers: its boxes opened (or closed) one at a time, planned by
app/offline.py's ``plan_opened`` (as ``gradviz render`` plans them), the program run again in a
sandboxed worker."""

from __future__ import annotations

import json
import time

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ..offline import OPENED_SECONDS, plan_opened, policy, shell
from ..sandbox import WorkerProtocolError
from ..schemas.common import ErrorResponse
from ..schemas.offline import OpenedRequest, OpenedResponse
from ..server.csp import HEADER
from ..server.pool import request_budget
from .open_ahead import drawn_opens
from .open_parts import _other_run
from .page import LANGUAGES
from .worker_calls import UNFIT, call_worker, prepared_of
from .worker_errors import worker_error_response

router = APIRouter(tags=["page"])

ERRORS = {400: {"model": ErrorResponse, "description": "the program cannot run"},
          409: {"model": ErrorResponse, "description": "running the program again gave another graph"},
          413: {"model": ErrorResponse, "description": "request body over 256 KB"},
          422: {"model": ErrorResponse, "description": "not JSON, or wrong types"},
          503: {"model": ErrorResponse, "description": "every worker is busy: retry after Retry-After s"}}


@router.get("/offline", response_class=HTMLResponse, response_model=None)
def offline_page(request: Request) -> HTMLResponse:
    """The page with its styles and modules inline and an empty data slot (``?lang=en|zh``)."""
    lang = request.query_params.get("lang")
    html = shell(lang if lang in LANGUAGES else "en")
    return HTMLResponse(html, headers={HEADER: policy(html)})


def held_answer(body: OpenedRequest) -> dict:
    """What the page holds of its run, in the shape of the run's answer that ``plan_opened`` reads."""
    return {"fingerprint": body.fingerprint,
            "views": [{"open": list(v.open or [])} for v in body.views],
            "parts": [p.model_dump() for p in body.parts],
            "graph": {"nodes": [{"id": i} for i in body.nodes], "edges": [{"id": i} for i in body.edges]},
            "backward": [{"index": bp.index, "steps": [{"index": i} for i in bp.steps]}
                         for bp in body.backward]}


@router.post("/api/offline/opened", response_model=OpenedResponse, responses=ERRORS, tags=["open"])
def offline_opened(body: OpenedRequest, request: Request) -> Response:
    """The answers of ``POST /api/open`` a page saved as one file holds for its boxes, without what
    the page holds already (``{"answers": {key: ...}, "left": n}``)."""
    settings = request.app.state.settings
    variables = {k: v.model_dump() for k, v in body.variables.items()} if body.variables else None
    held = held_answer(body)
    failed: list[Response] = []

    def open_some(states: list) -> list | None:
        t0 = time.perf_counter()
        reply = call_worker(request, "opens", body.source, variables,
                            [[v, o, held["views"][v]["open"]] for v, o in states], OPENED_SECONDS)
        value = None if isinstance(reply, Response) else reply.value
        if isinstance(value, dict) and "program_error" in value:
            reply = prepared_of(reply)  # the program cannot run: its error, as POST /api/open answers it
        if isinstance(reply, Response):
            failed.append(reply)
            return None
        drawn = list(drawn_opens(reply, len(states), body.fingerprint, settings, "auto", t0,
                                 time.monotonic() + request_budget(settings)))
        if not drawn:
            failed.append(_refused(reply, body.fingerprint))
            return None
        return [None if text is None else json.loads(text) for text, _ in drawn]

    opened = plan_opened(held, open_some)
    if failed:
        return failed[0]
    return Response(json.dumps(opened, separators=(",", ":")), media_type="application/json")


def _refused(reply, fingerprint: str) -> Response:
    """Why a worker's ``opens`` reply gave no answer: another run than the page's, or a broken reply."""
    value = reply.value if isinstance(reply.value, dict) else {}
    first = (value.get("prepared") or [None])[0]
    got = first.get("fingerprint") if isinstance(first, dict) else None
    if isinstance(got, str) and got != fingerprint:
        return _other_run(got[:64], first.get("timed_out") is True)
    return worker_error_response(WorkerProtocolError(UNFIT))

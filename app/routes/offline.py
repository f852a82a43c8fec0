"""GET /offline: the page as one self-contained HTML file without a run in it (app/offline.py). The
page's "Save as HTML" button puts the run it shows into it and saves the file."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..offline import policy, shell
from ..server.csp import HEADER
from .page import LANGUAGES

router = APIRouter(tags=["page"])


@router.get("/offline", response_class=HTMLResponse, response_model=None)
def offline_page(request: Request) -> HTMLResponse:
    """The page with its styles and modules inline and an empty data slot (``?lang=en|zh``)."""
    lang = request.query_params.get("lang")
    html = shell(lang if lang in LANGUAGES else "en")
    return HTMLResponse(html, headers={HEADER: policy(html)})

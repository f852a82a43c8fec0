"""GET /: the page (templates/index.html), given the examples and the language."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from ..examples import EXAMPLES
from ..package import TEMPLATES

templates = Jinja2Templates(directory=str(TEMPLATES))
router = APIRouter(tags=["page"])
LANGUAGES = ("en", "zh")


def page_language(request: Request, default: str) -> str:
    """?lang=zh|en, else the browser's first choice between them, else the default."""
    asked = request.query_params.get("lang")
    if asked in LANGUAGES:
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh"
        if tag.startswith("en"):
            return "en"
    return default if default in LANGUAGES else "en"


def examples_json() -> Markup:
    """The examples as JSON that is safe inside <script type="application/json">."""
    text = json.dumps(EXAMPLES, ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


@router.get("/", response_class=HTMLResponse, response_model=None)
def page(request: Request) -> HTMLResponse:
    """The visualizer page."""
    lang = page_language(request, request.app.state.settings.language)
    context = {"examples_json": examples_json(), "lang": lang, "languages": LANGUAGES}
    return templates.TemplateResponse(request, "index.html", context)

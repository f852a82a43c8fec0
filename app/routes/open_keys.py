"""How answers of ``POST /api/open`` are kept in the shared cache (``app.layout.CACHE``)."""

from __future__ import annotations

import hashlib
import json

OPEN_TTL_S = 3600  # how long an answer stays in the shared cache


def answer_key(source: str, variables: dict | None, view: int, opened: list[str], direction: str,
               had: list[str] | None) -> str:
    """The shared cache's key of an answer: everything the answer depends on (``variables`` as the
    routes dump a request's; ``had``: the parts open in the page's drawing, in any order)."""
    held = None if had is None else sorted(had)
    text = json.dumps([source, variables, view, list(opened), direction, held], sort_keys=True)
    return "open:" + hashlib.sha256(text.encode()).hexdigest()

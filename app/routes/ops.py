"""GET /api/ops and GET /ops: what gradviz supports, derived from the op table and the runner's
policy (the names a program may use), for the message that says a PyTorch name is not supported yet."""

from __future__ import annotations

import re
from functools import lru_cache

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ..schemas.common import LocalizedText
from ..schemas.meta import SupportedOp, SupportedOps
from ..words.page import page_words
from .page import page_language, templates

router = APIRouter(tags=["ops"])


@lru_cache(maxsize=1)
def supported() -> SupportedOps:
    """Every op of the table (grad_fn, what it computes in both languages, its rules) and every name a
    program may use, per module (they do not change while the server runs)."""
    from engine.ops.table import OPS
    from engine.runner.torch_modules import engine_tables

    ops = []
    for op in sorted(OPS.values(), key=lambda o: (o.grad_fn, o.name)):
        spec = op.explain
        about = LocalizedText(en=op.description, zh=spec.about_zh if spec else op.description)
        ops.append(SupportedOp(op=op.name, grad_fn=op.grad_fn, forward=_generic(spec.forward) if spec else "",
                               about=about, formulas=list(op.formulas)))
    modules, _, module_attrs, _, tensor_attrs = engine_tables()
    names = {path: sorted(module_attrs[mod]) for path, mod in modules.items()}
    names["Tensor"] = sorted(tensor_attrs)
    return SupportedOps(ops=ops, names=names)


_INPUTS = {"0": "x", "1": "y", "2": "z", "*": "x₀, x₁, …"}


def _generic(template: str) -> str:
    """An op's forward template with generic names: ``{0} · {1}`` → ``x · y``; arguments by name."""
    return re.sub(r"\{(\*|\w+)\}", lambda m: _INPUTS.get(m.group(1), m.group(1)), template)


@router.get("/api/ops", response_model=SupportedOps)
def api_ops() -> SupportedOps:
    """The ops gradviz records (one per grad_fn) and the names programs may use."""
    return supported()


@router.get("/ops", response_class=HTMLResponse, response_model=None)
def ops_page(request: Request) -> HTMLResponse:
    """The same, as a page in English or Chinese (?lang=zh)."""
    lang = page_language(request, request.app.state.settings.language)
    return templates.TemplateResponse(request, "ops.html", {"lang": lang, "data": supported(),
                                                             "words": page_words(lang)})

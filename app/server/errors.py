"""Every failure answers with the same JSON shape ``{"error": {type, message, line, col}}``.

Request validation (bad JSON, wrong types) → 422, a body over the limit → 413 (BodyLimitMiddleware),
unknown paths and methods → their 4xx, and anything unexpected → 400 ``InternalError``: never a 500,
never a traceback.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..schemas.common import error_info
from ..words.messages import own_message

log = logging.getLogger("gradviz")

_HTTP_TYPES = {404: "NotFound", 405: "MethodNotAllowed", 413: "RequestTooLarge", 400: "BadRequest"}


def error_response(status: int, type_: str, message: str, line: int | None = None,
                   col: int | None = None) -> JSONResponse:
    """A JSON error answer in the shape of ``schemas.ErrorResponse``."""
    return JSONResponse(status_code=status, content={"error": error_info(type_, message, line, col)})


def validation_error(exc: RequestValidationError) -> JSONResponse:
    """422: the body is not JSON (line/col of the JSON error) or has wrong types (the field path)."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        doc = exc.body if isinstance(exc.body, str) else ""
        loc = first.get("loc", ())
        pos = loc[-1] if loc and isinstance(loc[-1], int) else None
        line = col = None
        if pos is not None:
            line = doc.count("\n", 0, pos) + 1
            col = pos - (doc.rfind("\n", 0, pos) + 1) + 1
        detail = (first.get("ctx") or {}).get("error", "")
        message = own_message("body_not_json_detail", detail) if detail else own_message("body_not_json")
        return error_response(422, "JSONDecodeError", message, line, col)
    parts = []
    for err in errors[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return error_response(422, "ValidationError", "; ".join(parts) or "invalid request")


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that keep every answer in the error shape."""

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_error(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code if 400 <= exc.status_code < 500 else 400
        return error_response(status, _HTTP_TYPES.get(status, "HTTPError"), str(exc.detail))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        return internal_error(exc)


def internal_error(exc: BaseException) -> JSONResponse:
    """Our own bug: say so plainly, without a traceback."""
    return error_response(400, "InternalError",
                          own_message("internal_error_typed", type(exc).__name__, exc))

"""The answer for a request whose worker did not deliver: overload, deadline, crash, or a reply that
was not the agreed data. Always the usual error shape, never a 5xx but 503 for overload."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from ..sandbox import JobFailed, PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError
from ..server.errors import error_response
from ..words.messages import own_message


def worker_error_response(exc: Exception) -> JSONResponse:
    """The error answer for one of the pool's failures."""
    if isinstance(exc, PoolBusy):
        resp = error_response(503, "ServerBusy", own_message("workers_busy", exc))
        resp.headers["Retry-After"] = str(exc.retry_after_s)
        return resp
    if isinstance(exc, RunTimeout):
        return error_response(400, "TimeoutError", own_message("limit_timeout_note", exc), exc.line, exc.col)
    if isinstance(exc, WorkerCrashed):
        return error_response(400, "RuntimeError", own_message("worker_stopped_by_program", exc))
    if isinstance(exc, WorkerProtocolError):
        return error_response(400, "SandboxError", own_message("worker_stopped", exc))
    if isinstance(exc, JobFailed):
        return error_response(400, "InternalError", own_message("internal_error", exc))
    raise TypeError(f"not a worker failure: {exc!r}")

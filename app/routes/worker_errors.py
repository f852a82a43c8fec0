"""The answer for a request whose worker did not deliver: overload, deadline, crash, or a reply that
was not the agreed data. Always the usual error shape, never a 5xx but 503 for overload."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from ..sandbox import JobFailed, PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError
from ..server.errors import error_response


def worker_error_response(exc: Exception) -> JSONResponse:
    """The error answer for one of the pool's failures."""
    if isinstance(exc, PoolBusy):
        resp = error_response(503, "ServerBusy", f"{exc} (every worker is busy)")
        resp.headers["Retry-After"] = str(exc.retry_after_s)
        return resp
    if isinstance(exc, RunTimeout):
        return error_response(400, "TimeoutError", f"{exc} (limit: timeout_s)", exc.line, exc.col)
    if isinstance(exc, WorkerCrashed):
        return error_response(400, "RuntimeError", f"the program stopped its worker process: {exc}")
    if isinstance(exc, WorkerProtocolError):
        return error_response(400, "SandboxError", f"the worker was stopped: {exc}")
    if isinstance(exc, JobFailed):
        return error_response(400, "InternalError", f"gradviz could not handle this request ({exc})")
    raise TypeError(f"not a worker failure: {exc!r}")

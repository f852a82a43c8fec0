"""``python -m app --host 127.0.0.1 --port 8000 [--workers N]``: start gradviz with uvicorn."""

from __future__ import annotations

import argparse
import gc
import sys

import uvicorn

from .drawing.dot import dot_problem
from .package import APP
from .sandbox.confinement import SandboxUnavailable, bwrap_path
from .server.http_protocol import NoDelayHTTPProtocol
from .settings import load_settings


def sandbox_problem(mode: str) -> str | None:
    """Why the server cannot start with the sandbox it was asked for (None: it can try)."""
    if mode not in ("full", "language-only"):
        return f"GRADVIZ_SANDBOX={mode!r} is not a sandbox mode (full or language-only)"
    if mode == "full":
        try:
            bwrap_path()
        except SandboxUnavailable as exc:
            return str(exc)
    return None


def main(argv: list[str] | None = None, prog: str = "python -m app") -> None:
    """Parse the command line and serve until stopped."""
    parser = argparse.ArgumentParser(prog=prog, description="Start the gradviz server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1, help="server processes (each with its own pool)")
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    problem = sandbox_problem(load_settings().sandbox_mode) or dot_problem()
    if problem:
        sys.exit(f"gradviz: {problem}")
    # What the app imports lives as long as the server: frozen, the cyclic collector's full passes
    # (one every few hundred requests) skip it, ~50 ms each over ~90,000 objects on a busy machine.
    from . import main as served  # noqa: F401  (imported here: a bad setting above exits first)
    gc.collect()
    gc.freeze()
    # X-Forwarded-For is read by app/server/clients.py, from GRADVIZ_TRUSTED_PROXIES only (uvicorn's own
    # reading would trust it from 127.0.0.1)
    uvicorn.run(f"{APP}.main:app", host=args.host, port=args.port, workers=args.workers,
                log_level=args.log_level, http=NoDelayHTTPProtocol, proxy_headers=False)


if __name__ == "__main__":
    main()

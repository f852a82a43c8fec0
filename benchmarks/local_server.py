"""Start gradviz (`python -m app`) on a free loopback port for a benchmark, and wait until it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(timeout_s: float = 90.0, env: dict | None = None, root: Path = ROOT,
                 python: str = sys.executable) -> tuple[subprocess.Popen, str]:
    """The server process (BLAS pinned to one thread, log in a temporary file) and its base URL.
    ``env``: extra environment variables; ``root``/``python``: another checkout and its interpreter."""
    port = free_port()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", **(env or {}))
    log = tempfile.NamedTemporaryFile("w+", prefix="gradviz-bench-", suffix=".log", delete=False)
    proc = subprocess.Popen([python, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the server did not start; see {log.name}")


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def launch_chromium(playwright):
    """Debian's Chromium, headless, as the page benchmarks drive it (Playwright downloads none)."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)


def stop_server(proc: subprocess.Popen | None) -> None:
    """Stop a server ``start_server`` started (None: the benchmark used one already running)."""
    if proc:
        proc.terminate()
        proc.wait(timeout=10)

"""Start gradviz (`python -m app`) on a free loopback port for a benchmark, and wait until it answers."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
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


def _wait_healthy(base: str, proc: subprocess.Popen, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{base} did not become healthy")


@contextmanager
def start_stack(tmp: Path, replicas: int = 2, worker_connections: int = 4096):
    """deploy/'s stack on loopback ports: redis-server, ``replicas`` gradviz processes sharing it
    (``GRADVIZ_CACHE_URL``, one signing key, nginx as the trusted proxy) and nginx with
    deploy/nginx/gradviz.conf in front. Yields {"front": url, "replicas": [(proc, url)], "procs",
    "redis": url}."""
    tmp.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []

    def start(cmd, name, env=None):
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=(tmp / f"{name}.log").open("w"),
                                stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    try:
        redis_port = free_port()
        start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no"], "redis")
        env = dict(os.environ, GRADVIZ_CACHE_URL=f"redis://127.0.0.1:{redis_port}/0",
                   OPENBLAS_NUM_THREADS="1", GRADVIZ_POOL_WORKERS="1", GRADVIZ_TRUSTED_PROXIES="127.0.0.1",
                   GRADVIZ_SECRET="ab" * 32)
        ports = [free_port() for _ in range(replicas)]
        reps = [(start([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(p)],
                       f"replica-{p}", env), f"http://127.0.0.1:{p}") for p in ports]
        for proc, base in reps:
            _wait_healthy(base, proc)
        site = (ROOT / "deploy" / "nginx" / "gradviz.conf").read_text()
        upstreams = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in ports)
        site = re.sub(r"(    server 127\.0\.0\.1:\d+ [^\n]*\n)+", upstreams, site, count=1)
        nginx_port = free_port()
        site = site.replace("listen 80;", f"listen 127.0.0.1:{nginx_port};")
        (tmp / "gradviz.conf").write_text(site)
        (tmp / "nginx.conf").write_text(
            f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/nginx-error.log;\n"
            f"events {{ worker_connections {worker_connections}; }}\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {tmp}/body;\n"
            f"  proxy_temp_path {tmp}/proxy;\n"
            f"  fastcgi_temp_path {tmp}/fcgi;\n  uwsgi_temp_path {tmp}/uwsgi;\n  scgi_temp_path {tmp}/scgi;\n"
            f"  include {tmp}/gradviz.conf;\n}}\n")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        front_proc = start([nginx, "-c", str(tmp / "nginx.conf"), "-p", str(tmp), "-g", "daemon off;"],
                           "nginx")
        front = f"http://127.0.0.1:{nginx_port}"
        _wait_healthy(front, front_proc)
        yield {"front": front, "replicas": reps, "procs": procs, "redis": env["GRADVIZ_CACHE_URL"]}
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()

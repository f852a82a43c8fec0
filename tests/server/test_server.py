"""Start the real server as a user would (python -m app), call it over HTTP, stop it."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_python_m_app_serves_over_http():
    port = free_port()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stdout.read().decode()
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        page = httpx.get(f"{base}/", timeout=10)
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert len(httpx.get(f"{base}/api/examples", timeout=10).json()) >= 14
        r = httpx.post(f"{base}/api/run", json={"source": "(a + b) * c", "variables": {
            "a": {"value": 2.0}, "b": {"value": -3.0}, "c": {"value": 10.0}}}, timeout=30)
        assert r.status_code == 200
        body = r.json()
        assert body["variables"]["c"]["grad"] == -1.0 and body["views"][0]["svg"].startswith("<svg")
        bad = httpx.post(f"{base}/api/run", content=b"{not json", timeout=10,
                         headers={"content-type": "application/json"})
        assert bad.status_code == 422 and bad.json()["error"]["type"] == "JSONDecodeError"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode is not None

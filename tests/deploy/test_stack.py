"""The scale-out stack of deploy/: nginx (Debian's) in front of two gradviz replicas on loopback
ports, sharing the layout cache through Redis. Load goes through nginx while one replica is killed:
no request fails but those in flight on it, and a structure one replica laid out is a cache hit
for the other."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from browser.support import free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"source": "(a + b) * c",
         "variables": {"a": {"value": 2.0}, "b": {"value": -1.0}, "c": {"value": 10.0}}}
# as deploy/systemd sets it: nginx named as the proxy, one signing key for both replicas
DEPLOYED_ENV = {"GRADVIZ_TRUSTED_PROXIES": "127.0.0.1", "GRADVIZ_SECRET": "ab" * 32}
pytestmark = pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists())
                                or not shutil.which("redis-server"), reason="nginx and redis-server needed")


def _start(cmd, log: Path, env=None, cwd=ROOT) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
    proc.log_path = str(log)
    return proc


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stack")
    tmp.chmod(0o777)
    procs = []
    try:
        redis_port = free_port()
        procs.append(_start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], tmp / "redis.log"))
        env = dict(os.environ, GRADVIZ_CACHE_URL=f"redis://127.0.0.1:{redis_port}/0",
                   OPENBLAS_NUM_THREADS="1", GRADVIZ_POOL_WORKERS="1", **DEPLOYED_ENV)
        replicas = []
        for name in ("a", "b"):
            port = free_port()
            proc = _start([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                          tmp / f"replica-{name}.log", env=env)
            procs.append(proc)
            replicas.append((proc, f"http://127.0.0.1:{port}", port))
        for proc, base, _ in replicas:
            wait_healthy(base, proc)
        site = (ROOT / "deploy" / "nginx" / "gradviz.conf").read_text()
        site = site.replace("127.0.0.1:8001", f"127.0.0.1:{replicas[0][2]}")
        site = site.replace("127.0.0.1:8002", f"127.0.0.1:{replicas[1][2]}")
        nginx_port = free_port()
        site = site.replace("listen 80;", f"listen 127.0.0.1:{nginx_port};")
        (tmp / "gradviz.conf").write_text(site)
        (tmp / "nginx.conf").write_text(
            f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/nginx-error.log;\n"
            "events { worker_connections 512; }\n"
            f"http {{\n  access_log off;\n  client_body_temp_path {tmp}/body;\n"
            f"  proxy_temp_path {tmp}/proxy;\n"
            f"  fastcgi_temp_path {tmp}/fcgi;\n  uwsgi_temp_path {tmp}/uwsgi;\n  scgi_temp_path {tmp}/scgi;\n"
            f"  include {tmp}/gradviz.conf;\n}}\n")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        procs.append(_start([nginx, "-c", str(tmp / "nginx.conf"), "-p", str(tmp), "-g", "daemon off;"],
                            tmp / "nginx.log"))
        front = f"http://127.0.0.1:{nginx_port}"
        wait_healthy(front, procs[-1])
        yield {"front": front, "replicas": replicas}
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


def test_the_replicas_share_the_layout_cache(stack):
    (_, a, _), (_, b, _) = stack["replicas"]
    program = {"source": "u = torch.ones(3, requires_grad=True)\nv = (u.exp() * 4).sum()\nv.backward()\n"}

    def hits(base: str) -> float:
        text = httpx.get(f"{base}/metrics", timeout=10).text
        return float(next(line.split()[-1] for line in text.splitlines()
                          if line.startswith("gradviz_layout_cache_hits_total ")))

    before = hits(b)
    assert httpx.post(f"{a}/api/run", json=program, timeout=30).status_code == 200  # laid out by a
    other = {"source": program["source"] + "# the same graph, another program\n"}
    r = httpx.post(f"{b}/api/run", json=other, timeout=30)  # runs in b, its drawing a hit for b
    assert r.status_code == 200 and r.headers["X-Gradviz-Cache"] == "miss"
    assert hits(b) == before + 1


def test_a_run_answered_by_one_replica_is_answered_by_the_other_from_the_shared_cache(stack):
    (_, a, _), (_, b, _) = stack["replicas"]
    program = {"source": "u = torch.ones(2, requires_grad=True)\nv = (u.sin() * 3).sum()\nv.backward()\n"}
    first = httpx.post(f"{a}/api/run", json=program, timeout=30)
    again = httpx.post(f"{b}/api/run", json=program, timeout=30)
    assert first.headers["X-Gradviz-Cache"] == "miss" and again.headers["X-Gradviz-Cache"] == "hit"
    assert again.content == first.content


def test_a_part_opened_through_either_replica_is_the_same_and_shared(stack):
    """A closed loop is opened by running the program again in whichever replica nginx picks; the
    answer goes into Redis, so opening it again anywhere costs no run."""
    (_, a, _), (_, b, _) = stack["replicas"]
    src = ("w = torch.tensor(0.9, requires_grad=True)\nh = torch.tensor(0.5, requires_grad=True)\n"
           "for i in range(250):\n    h = torch.tanh(h * w)\nh.backward()\n")
    run = httpx.post(f"{stack['front']}/api/run", json={"source": src}, timeout=60).json()
    body = {"source": src, "view": 0, "open": [run["parts"][0]["id"]], "fingerprint": run["fingerprint"]}

    def hits(base: str) -> float:
        text = httpx.get(f"{base}/metrics", timeout=10).text
        return float(next(line.split()[-1] for line in text.splitlines()
                          if line.startswith("gradviz_layout_cache_hits_total ")))

    first = httpx.post(f"{a}/api/open", json=body, timeout=60)
    assert first.status_code == 200, first.text
    before = hits(b)
    second = httpx.post(f"{b}/api/open", json=body, timeout=60)
    assert second.status_code == 200 and second.json() == first.json()
    assert hits(b) == before + 1  # served from the shared cache
    shown = {n["id"] for n in first.json()["graph"]["nodes"]}
    assert len(shown) == 502 and all(s["node"] in shown for s in first.json()["backward"][0]["steps"])


def _until(done, bound_s: float = 90.0) -> None:
    """Wait (polling) until ``done()`` holds, at most ``bound_s`` seconds."""
    deadline = time.monotonic() + bound_s
    while not done() and time.monotonic() < deadline:
        time.sleep(0.02)


def test_killing_a_replica_under_load_fails_only_its_requests_in_flight(stack):
    """Six clients keep nginx busy; once the load is flowing one replica is killed, and the clients go
    on until as many requests again have started after the kill."""
    front = stack["front"]
    victim = stack["replicas"][0][0]
    results: list[tuple[float, float, object]] = []
    lock = threading.Lock()
    finished = threading.Event()
    killed_at = float("inf")

    def client() -> None:
        with httpx.Client(timeout=30) as c:
            c.get(f"{front}/")  # the page sets the session cookie, as a browser's first visit does
            while not finished.is_set():
                t0 = time.monotonic()
                try:
                    outcome = c.post(f"{front}/api/run", json=SMALL).status_code
                except httpx.HTTPError as e:
                    outcome = type(e).__name__
                with lock:
                    results.append((t0, time.monotonic(), outcome))

    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    try:
        _until(lambda: len(results) >= 18)  # the load goes through both replicas
        killed_at = time.monotonic()
        victim.send_signal(signal.SIGKILL)
        _until(lambda: sum(r[0] > killed_at for r in results) >= 18)
    finally:
        finished.set()
        for t in threads:
            t.join(60)
    failed = [r for r in results if r[2] != 200]
    in_flight = [r for r in failed if r[0] <= killed_at <= r[1]]
    assert len(results) > 30, "the load did not get through"
    assert failed == in_flight, f"failed outside the kill: {failed}"
    after = [r for r in results if r[0] > killed_at]
    assert after and all(r[2] == 200 for r in after)

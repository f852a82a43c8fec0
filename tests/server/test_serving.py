"""Serving many clients: each browser gets a session cookie (its identity for fair sharing),
overload is 503 with Retry-After in the error shape, /api/health and /metrics say how busy the
server is, and every connection has TCP_NODELAY (small answers are not held back ~40 ms)."""

from __future__ import annotations

import socket
import threading

from fastapi.testclient import TestClient

from app.main import create_app
from app.server.http_protocol import NoDelayHTTPProtocol
from app.settings import AppSettings

SLOW = "a = torch.ones(1000, 1000)\nb = a\nfor i in range(2000):\n    b = (b @ a) / 1000\n"
SMALL = {"source": "(a + b) * c",
         "variables": {"a": {"value": 1.0}, "b": {"value": 2.0}, "c": {"value": 3.0}}}


def test_a_browser_gets_a_session_cookie_once(client):
    first = client.get("/")
    cookie = first.cookies.get("gv_client")
    assert cookie and len(cookie) == 32
    again = client.get("/api/health")  # the TestClient sends the cookie back
    assert "gv_client" not in again.headers.get("set-cookie", "")


def test_health_and_metrics_say_how_busy_the_server_is(client):
    assert client.post("/api/run", json=SMALL).status_code == 200
    health = client.get("/api/health").json()
    assert set(health["pool"]) >= {"places", "running", "queued", "spares", "restarts"}
    text = client.get("/metrics").text
    assert 'gradviz_requests_total{route="/api/run",status="2xx"}' in text
    assert 'gradviz_request_seconds_bucket{route="/api/run",le="+Inf"}' in text
    for name in ("gradviz_pool_queued", "gradviz_worker_restarts_total", "gradviz_layout_cache_hits_total"):
        assert f"\n{name} " in text
    buckets = [float(line.split()[-1]) for line in text.splitlines()
               if line.startswith('gradviz_request_seconds_bucket{route="/api/run"')]
    assert buckets == sorted(buckets)  # cumulative


def test_overload_is_503_with_retry_after():
    app = create_app(AppSettings(pool_workers=1, run_timeout_s=4.0))
    with TestClient(app, raise_server_exceptions=False) as c:
        app.state.pool.settings.queue_wait_s = 0.3
        hogs = []
        for i in range(2):  # the general place and the reserved one, by two clients
            hog = TestClient(app, raise_server_exceptions=False, cookies={"gv_client": f"{i:032x}"})
            # two programs: the same one twice would wait for the first's answer, not take a place
            t = threading.Thread(target=hog.post, args=("/api/run",),
                                 kwargs={"json": {"source": f"{SLOW}# hog {i}\n"}})
            t.start()
            hogs.append(t)
        import time

        time.sleep(1.0)
        r = c.post("/api/run", json={**SMALL, "source": "(a + b) * c * 2"})  # not answered before
        assert r.status_code == 503, r.text
        assert int(r.headers["Retry-After"]) >= 1
        assert r.json()["error"]["type"] == "ServerBusy"
        for t in hogs:
            t.join(30)


def test_every_connection_gets_tcp_nodelay():
    server = socket.create_server(("127.0.0.1", 0))
    peer = socket.create_connection(server.getsockname())
    conn, _ = server.accept()
    raw = socket.socket(fileno=conn.detach(), proto=0)  # as uvicorn's worker processes see it

    class Transport:
        def get_extra_info(self, name, default=None):
            return raw if name == "socket" else default

    proto = NoDelayHTTPProtocol.__new__(NoDelayHTTPProtocol)
    try:
        NoDelayHTTPProtocol.connection_made(proto, Transport())
    except Exception:  # noqa: BLE001 - the base protocol needs more state than this stub has
        pass
    assert raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    for s in (raw, peer, server):
        s.close()

"""Identities that cost nothing buy nothing: cookies are the server's own (signed), a cookie minted
for every request does not take the reserved worker place from a client with a record of light
use, X-Forwarded-For counts only from the proxies the operator names, and drawings are admitted
fairly like runs."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from fastapi.testclient import TestClient

from app.drawing.layout import DotSlots
from app.main import create_app
from app.sandbox import PoolBusy
from app.sandbox.admission import KNOWN_LIGHT, NEWCOMERS
from app.server.clients import ClientMiddleware, client_address, issue, trusted_networks, verified
from app.settings import AppSettings

SLOW = "a = torch.ones(300, 300)\nb = a\nwhile True:\n    b = (b @ a) / 300\n"
SMALL = {"source": "(a + b) * c",
         "variables": {"a": {"value": 1.0}, "b": {"value": 2.0}, "c": {"value": 3.0}}}


def wait_until(cond, seconds: float = 20.0) -> None:
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


@pytest.fixture()
def small_server():
    """One general worker place and one reserved, a short wait for a place."""
    app = create_app(AppSettings(pool_workers=1, run_timeout_s=6.0, open_ahead=0))
    with TestClient(app, raise_server_exceptions=False) as c:
        app.state.pool.settings.queue_wait_s = 1.0
        yield app, c


def minted(app) -> TestClient:
    """A client with a cookie of its own, fresh from the server (as a GET / gives one)."""
    c = TestClient(app, raise_server_exceptions=False)
    assert c.get("/api/health").cookies.get("gv_client")
    return c


def test_a_cookie_minted_per_request_does_not_take_the_reserved_place(small_server):
    app, student = small_server
    adm = app.state.pool.admission
    # light use is under a second of worker time; on a loaded machine the first tiny run can take more
    adm.s.heavy_after_s = 5.0
    assert student.post("/api/run", json={**SMALL, "source": "(a + b) * c  # the student"}).status_code == 200
    me = next(k for k, a in adm._accounts.items() if not k.startswith(NEWCOMERS) and a.done)
    assert adm.rank(me) == KNOWN_LIGHT  # a client with a record of light use
    results = []

    def attack(i: int) -> None:
        r = minted(app).post("/api/run", json={"source": f"{SLOW}# {i}\n"})
        results.append(r.status_code)

    threads = [threading.Thread(target=attack, args=(i,)) for i in range(3)]
    threads[0].start()
    wait_until(lambda: adm.snapshot()["running"] == 1)
    for t in threads[1:]:
        t.start()
    wait_until(lambda: adm.snapshot()["queued"] >= 1)
    assert adm.snapshot()["running"] == 1  # the reserved place stays free: no minted cookie has it
    r = student.post("/api/run", json={**SMALL, "source": "(a + b) * c  # the student, again"})
    assert r.status_code == 200, r.text
    for t in threads:
        t.join(30)
    assert 503 in results  # the minted ones wait for the general place, not the reserved one


def test_a_cookie_the_server_did_not_sign_is_no_identity(client):
    r = client.get("/api/health", headers={"cookie": "gv_client=" + "0" * 32})
    fresh = r.cookies.get("gv_client")
    assert fresh and fresh != "0" * 32
    secret = client.app.state.settings.client_secret
    assert verified(fresh, secret) and not verified("0" * 32, secret)
    again = client.get("/api/health", headers={"cookie": f"gv_client={fresh}"})
    assert "gv_client" not in again.headers.get("set-cookie", "")
    assert verified(issue(secret), secret) and not verified(issue(b"another secret"), secret)


def test_forwarded_for_counts_only_from_a_trusted_proxy():
    nets = trusted_networks("127.0.0.1, 10.1.0.0/16")
    assert client_address("127.0.0.1", ["6.6.6.6"], ()) == "127.0.0.1"  # trusted by no one: ignored
    assert client_address("8.8.8.8", ["6.6.6.6"], nets) == "8.8.8.8"  # not from a proxy: ignored
    assert client_address("127.0.0.1", ["203.0.113.5"], nets) == "203.0.113.5"
    # a client's own header is at the left; the proxies append what they saw
    assert client_address("127.0.0.1", ["6.6.6.6, 203.0.113.5, 10.1.2.3"], nets) == "203.0.113.5"
    assert client_address("127.0.0.1", ["not an address"], nets) == "127.0.0.1"
    assert client_address("127.0.0.1", [], nets) == "127.0.0.1"


@pytest.mark.parametrize("trusted, seen", [("", "127.0.0.1"), ("127.0.0.1", "203.0.113.5")])
def test_the_middleware_reads_forwarded_for_per_the_setting(trusted, seen):
    settings = AppSettings(trusted_proxies=trusted)
    got = {}

    async def inner(scope, receive, send):
        got["client"] = scope["state"]["client"]

    class App:
        state = type("State", (), {"settings": settings})()

    scope = {"type": "http", "app": App(), "client": ("127.0.0.1", 5000),
             "headers": [(b"x-forwarded-for", b"203.0.113.5")]}
    # in a thread of its own: a browser test's Playwright may hold this process's main thread's loop
    done = threading.Thread(target=asyncio.run, args=(ClientMiddleware(inner)(scope, None, None),))
    done.start()
    done.join(10)
    assert got["client"].startswith("s:") and got["client"].endswith(f"@{seen}")


def test_a_drawing_waits_its_turn_fairly():
    places = DotSlots(2).places  # one general drawing place, one for clients with a record of light use
    light = places.acquire("s:student@school", 1)
    places.release(light)
    hog = places.acquire("s:minted1@evil", 1)
    with pytest.raises(PoolBusy):
        places.acquire("s:minted2@evil", 0.1)
    student = places.acquire("s:student@school", 0.1)
    assert student.lane == "reserved"
    places.release(hog)
    places.release(student)

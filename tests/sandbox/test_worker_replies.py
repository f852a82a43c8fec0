"""The server accepts nothing from a worker but the agreed data: a compromised worker's pickles,
malformed frames, answers off the schema or DOT injections get a clear 4xx error, run no code in
the server, and the server keeps serving. (The worker's ``run`` job is swapped for a hostile one.)"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import AppSettings

from .test_process_layer import pwned


@pytest.fixture(scope="module")
def evil_client():
    settings = AppSettings(pool_workers=1, sandbox_jobs="tests.sandbox.evil_jobs",
                           sandbox_extra_code=("tests",))
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("kind", ["pickle", "pickle-in-frame", "huge-header", "deep-header", "nan",
                                  "wrong-shape", "bad-answer-text", "nan-in-answer-text", "text-for-a-number",
                                  "fingerprint-newline", "exit"])
def test_a_hostile_reply_is_a_4xx_and_runs_nothing_here(evil_client, kind):
    r = evil_client.post("/api/run", json={"source": kind})
    assert 400 <= r.status_code < 500, r.text
    err = r.json()["error"]
    assert err["type"] in ("SandboxError", "RuntimeError", "InternalError") and err["message"]
    assert "Traceback" not in r.text and not pwned()
    assert evil_client.get("/api/health").json()["status"] == "ok"


def test_a_dot_injection_in_node_names_stays_text(evil_client):
    r = evil_client.post("/api/run", json={"source": "dot-injection"})
    assert r.status_code == 200, r.text
    svg = r.json()["views"][0]["svg"]
    assert "<image" not in svg and "passwd" in svg  # the name is drawn as text, not read as a file


def test_extras_with_json_the_page_cannot_read_are_refused(evil_client):
    assert evil_client.post("/api/run/extras", json={"source": "honest"}).status_code == 200
    r = evil_client.post("/api/run/extras", json={"source": "nan-in-extras-text"})
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["error"]["type"] == "SandboxError" and "NaN" not in r.text

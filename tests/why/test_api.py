"""The diagnosis through ``POST /api/run``: the answer's ``why`` names the same cause and op for
every program of the corpus, with the path to highlight drawn from the answer's own graph."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import AppSettings

from .corpus import check_words, corpus


@pytest.fixture(scope="module")
def client():
    app = create_app(AppSettings(pool_workers=1))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("stem,source,name,cause,op", corpus(), ids=[c[0] for c in corpus()])
def test_api_finds_the_cause(client, stem, source, name, cause, op):
    r = client.post("/api/run", json={"source": source})
    assert r.status_code == 200, r.text
    body = r.json()
    why = body["why"]
    assert why["tiny"] == 1e-5 and why["huge"] == 1e4
    d = why["tensors"][name]
    assert (d["cause"], d["op"]) == (cause, op), d["text"]["en"]
    check_words(d, name)
    nodes = {n["id"] for n in body["graph"]["nodes"]}
    edges = {e["id"] for e in body["graph"]["edges"]}
    assert set(d["path"]) <= nodes and set(d["edges"]) <= edges
    assert d["symptom"] in ("none", "zero", "part_zero", "nonfinite", "tiny", "huge")

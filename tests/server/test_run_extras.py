"""POST /api/run/extras: a run's answer leaves the check by hand and the course views but the heat for
later, and this request answers them: the same numbers a whole answer holds, in the API's error
shape when it cannot, kept in the shared cache for anyone, but never an answer a reused worker
worked out."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from app.drawing import layout
from app.examples import example_source
from app.main import create_app
from app.sandbox import PoolBusy
from app.sandbox import pool as sandbox_pool
from app.settings import AppSettings
from app.worker.execute import run_and_serialize

from .test_answer_isolation import Replies
from .test_routes import assert_error_shape

TWO_PASSES = """x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
z = (x * 3).sum()
z.backward()
"""
EXPRESSION = {"source": "(a + b) * c", "variables": {"a": {"value": 2.0}, "b": {"value": -1.0},
                                                     "c": {"value": 10.0}}}


@pytest.fixture(scope="module")
def served():
    """An app of its own (nothing opened ahead), with an empty shared cache, that keeps a client's
    worker whatever its runs took on a busy machine: its test client and a record of whether each
    worker call was answered by a fresh worker. Each test runs programs of its own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sandbox_pool, "KEEP_IF_FASTER_S", 60.0)
        app = create_app(AppSettings(pool_workers=2, open_ahead=0))
        layout.CACHE.clear()
        with TestClient(app, raise_server_exceptions=False) as c:
            app.state.pool.admission.s.heavy_after_s = 1e9
            yield app, c, Replies(app)


@pytest.fixture()
def own_served():
    """``served`` of a test's own: no other client holds a kept worker (the pool keeps at most as
    many as it has places)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sandbox_pool, "KEEP_IF_FASTER_S", 60.0)
        app = create_app(AppSettings(pool_workers=2, open_ahead=0))
        with TestClient(app, raise_server_exceptions=False) as c:
            app.state.pool.admission.s.heavy_after_s = 1e9
            yield app, c, Replies(app)


def _cookie(c) -> str:
    value = c.get("/api/health").cookies.get("gv_client")
    c.cookies.clear()
    return value


def post(c, path: str, body: dict, cookie: str | None = None):
    return c.post(path, json=body, headers={"cookie": f"gv_client={cookie}"} if cookie else None)


def same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("body", [{"source": example_source("forward-reverse")}, {"source": TWO_PASSES},
                                  EXPRESSION], ids=["forward-reverse", "two-passes", "expression"])
def test_the_extras_are_what_a_whole_answer_holds(served, body):
    _, c, _ = served
    ran = post(c, "/api/run", body).json()
    assert ran["extras_later"] is True and "grad_check" not in ran and set(ran["lenses"]) == {"heat"}
    r = post(c, "/api/run/extras", dict(body, fingerprint=ran["fingerprint"]))
    assert r.status_code == 200, r.text
    extras = r.json()
    whole = run_and_serialize(body["source"], body.get("variables"))["response"]
    assert extras["fingerprint"] == ran["fingerprint"] == whole["fingerprint"]
    assert same(extras["grad_check"], whole["grad_check"]) and extras["grad_check"]
    assert set(extras["lenses"]) == {"modes", "orders", "compare", "memory"}
    for name, data in extras["lenses"].items():
        assert same(data, whole["lenses"][name]), name
    assert same(ran["lenses"]["heat"], whole["lenses"]["heat"])
    assert ran["why"] == whole["why"]  # cheap: the "Why?" buttons need it at once


def test_what_cannot_run_or_is_not_the_run_is_said_in_the_error_shape(served, monkeypatch):
    app, c, _ = served
    err = assert_error_shape(post(c, "/api/run/extras", {"source": "x = (1 +\n"}), 400)
    assert err["type"] == "SyntaxError" and err["line"] == 1
    assert_error_shape(post(c, "/api/run/extras", {"variables": {}}), 422)
    assert_error_shape(post(c, "/api/run/extras", {"source": 3}), 422)
    assert_error_shape(post(c, "/api/run/extras", {"source": "x = 1", "fingerprint": "f" * 65}), 422)
    assert_error_shape(post(c, "/api/run/extras", {"source": "#" * 300_000}), 413)
    other_run = dict(EXPRESSION, fingerprint="0123456789abcdef")
    err = assert_error_shape(post(c, "/api/run/extras", other_run), 409)
    assert err["type"] == "RunChanged" and err["explain"]["gradviz"]

    def busy(*args, **kwargs):
        raise PoolBusy(3)

    monkeypatch.setattr(app.state.pool, "call", busy)
    r = post(c, "/api/run/extras", {"source": TWO_PASSES + "# busy\n"})
    monkeypatch.undo()
    assert_error_shape(r, 503)
    assert r.headers["Retry-After"] == "3"


def test_the_same_extras_again_come_from_the_cache_for_anyone(served):
    _, c, replies = served
    A, B = _cookie(c), _cookie(c)
    source = TWO_PASSES + "# cached\n"
    before = len(replies.fresh)
    first = post(c, "/api/run/extras", {"source": source}, A)
    assert first.status_code == 200 and first.headers["X-Gradviz-Cache"] == "miss"
    assert replies.fresh[before:] == [True]
    again = post(c, "/api/run/extras", {"source": source, "fingerprint": first.json()["fingerprint"]}, B)
    assert again.headers["X-Gradviz-Cache"] == "hit" and again.content == first.content
    assert len(replies.fresh) == before + 1  # no worker ran it again
    other = post(c, "/api/run/extras", {"source": source + "# another program\n"}, B)
    assert other.headers["X-Gradviz-Cache"] == "miss" and len(replies.fresh) == before + 2
    stale = post(c, "/api/run/extras", {"source": source, "fingerprint": "0123456789abcdef"}, B)
    assert_error_shape(stale, 409)  # a kept answer of another run is not this run's


def test_extras_a_reused_worker_worked_out_are_never_a_hit_for_another_client(own_served):
    _, c, replies = own_served
    A, B = _cookie(c), _cookie(c)
    source = TWO_PASSES + "# reused\n"
    post(c, "/api/run", {"source": "x = 1\n"}, A)
    before = len(replies.fresh)
    mine = post(c, "/api/run/extras", {"source": source}, A)
    assert mine.status_code == 200
    assert replies.fresh[before:] == [False], "A's extras were not in its kept worker"
    theirs = post(c, "/api/run/extras", {"source": source}, B)
    assert theirs.headers["X-Gradviz-Cache"] == "miss" and replies.fresh[-1] is True
    assert same(mine.json()["grad_check"], theirs.json()["grad_check"])
    again = post(c, "/api/run/extras", {"source": source}, A)
    assert again.headers["X-Gradviz-Cache"] == "hit"  # the fresh worker's answer is anyone's

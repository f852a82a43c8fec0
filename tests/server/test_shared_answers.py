"""The same run asked again is answered from the shared cache: by anyone, without a worker, with the
same text; the same run asked while it runs waits for it instead of taking a second worker. What an
answer depends on is in its key (inputs, level, direction, the code and the job table); an answer
that was not drawn whole, a program that could not run, or an answer too large is not kept."""

from __future__ import annotations

import threading

import pytest

from app.routes import shared_answers
from app.routes.shared_answers import COUNTS, run_key
from app.settings import AppSettings

from .test_open import Counting

CHAIN = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range({steps}):
    h = torch.tanh(h * w)
h.backward()
print(w.grad)
"""


@pytest.fixture()
def app_client(fresh_app):
    """An app as a test of its own finds it (nothing opened ahead: only the requests' own runs are
    counted), with an empty shared cache."""
    app, c = fresh_app(pool_workers=2, open_ahead=0)
    return app, c, Counting(app)


def run(c, source: str, cookie: str | None = None, **extra):
    r = c.post("/api/run", json={"source": source, **extra},
               headers={"cookie": f"gv_client={cookie}"} if cookie else None)
    assert r.status_code == 200, r.text
    return r


def test_the_same_run_again_comes_from_the_cache_for_anyone(app_client):
    app, c, count = app_client
    source = CHAIN.format(steps=40)
    first = run(c, source, cookie="a" * 32)
    assert first.headers["X-Gradviz-Cache"] == "miss" and count.calls == 1
    hits = COUNTS.hits
    again = run(c, source, cookie="b" * 32)  # another browser
    assert again.headers["X-Gradviz-Cache"] == "hit" and count.calls == 1
    assert again.content == first.content and COUNTS.hits == hits + 1
    body = again.json()
    assert body["stdout"] == "tensor(0.2369)\n" and body["views"][0]["svg"].startswith("<svg")  # as torch
    metrics = c.get("/metrics").text
    assert f"\ngradviz_answers_shared_total {COUNTS.hits}\n" in metrics


BASE = {"source": "(a * b) + 1.0", "variables": {"a": {"value": 2.0}, "b": {"value": 5.0}}}


@pytest.mark.parametrize("change", [
    {"variables": {"a": {"value": 3.0}, "b": {"value": 5.0}}},
    {"variables": {"a": {"value": 2.0, "requires_grad": False}, "b": {"value": 5.0}}},
    {"fold": "op"},
    {"direction": "down"},
    {"source": "(a * b) + 1.0 "},
])
def test_anything_the_answer_depends_on_is_another_key(app_client, change):
    app, c, count = app_client
    first = run(c, **BASE)
    second = run(c, **dict(BASE, **change))
    assert count.calls == 2 and second.headers["X-Gradviz-Cache"] == "miss"
    assert run(c, **BASE).content == first.content and count.calls == 2


def test_the_code_and_the_job_table_are_part_of_the_key(monkeypatch):
    settings = AppSettings()
    key = run_key(settings, "x = 1", None, "auto", "auto")
    evil = AppSettings(sandbox_jobs="tests.sandbox.evil_jobs")
    assert run_key(evil, "x = 1", None, "auto", "auto") != key
    monkeypatch.setattr(shared_answers, "code_digest", lambda: "another version")
    assert run_key(settings, "x = 1", None, "auto", "auto") != key


def test_a_run_asked_again_while_it_runs_waits_for_it(app_client):
    app, c, count = app_client
    source = CHAIN.format(steps=3000)  # long enough for the others to arrive while it runs
    waited = COUNTS.waited
    bodies, errors = [None] * 4, []

    def ask(i):
        try:
            bodies[i] = run(c, source, cookie=f"{i:032x}").content
        except AssertionError as exc:  # noqa: PERF203 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
    threads[0].start()
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len(set(bodies)) == 1 and count.calls == 1
    assert COUNTS.waited >= waited + 1  # at least one arrived while the first ran (the rest: cached)


def test_what_ran_into_an_error_is_kept_but_what_could_not_run_is_not(app_client):
    app, c, count = app_client
    failing = "x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\ny.backward()\n"
    first = run(c, failing)
    assert first.json()["error"]["type"] == "RuntimeError"
    assert run(c, failing).headers["X-Gradviz-Cache"] == "hit" and count.calls == 1
    for _ in range(2):
        r = c.post("/api/run", json={"source": "x = (1 +"})
        assert r.status_code == 400 and r.json()["error"]["type"] == "SyntaxError"
    assert count.calls == 3


def test_an_answer_not_drawn_whole_is_not_kept(app_client):
    app, c, count = app_client
    app.state.settings.layout_budget_s = 0.0  # no time to lay anything out
    source = CHAIN.format(steps=30)
    first = run(c, source).json()
    assert first["views"][0]["undrawn"] == "time_budget"
    app.state.settings.layout_budget_s = 8.0
    again = run(c, source)
    assert again.headers["X-Gradviz-Cache"] == "miss" and count.calls == 2
    assert again.json()["views"][0]["undrawn"] is None


def test_a_large_answer_is_not_kept(app_client, monkeypatch):
    app, c, count = app_client
    monkeypatch.setattr(shared_answers, "MAX_KEPT_CHARS", 1000)
    source = CHAIN.format(steps=20)
    run(c, source)
    assert run(c, source).headers["X-Gradviz-Cache"] == "miss" and count.calls == 2

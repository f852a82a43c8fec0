"""A lying worker cannot put markup in an answer: the server splices its own drawings into the
worker's JSON text (app/worker/answer.py, app/server/splice.py) and refuses, as a protocol error that
is never kept in the shared cache, any answer whose drawings are not exactly the server's, for
``POST /api/run``, ``POST /api/open`` and the answers worked out ahead. (The worker's reply is the
real one, then changed the way a compromised worker could change it.)"""

from __future__ import annotations

import copy
import json
import re

import pytest
from fastapi.testclient import TestClient

from app.drawing import layout
from app.drawing.drawn import Drawing
from app.main import create_app
from app.routes.open_ahead import open_ahead
from app.routes.shared_answers import open_key, run_key
from app.server.splice import ForeignDrawing, check_drawings, splice_answer
from app.settings import AppSettings
from app.worker.answer import prepare_answer

from .test_open import SHARED

EVIL = '<svg xmlns=\\"http://www.w3.org/2000/svg\\"><image href=\\"data:,\\" onerror=\\"alert(1)\\"/></svg>'
VIEW = {"index": 1, "passes": [], "nodes": [], "edges": []}


def _slot(nonce: str, i: int = 0) -> str:
    return f'"svg":"@@{nonce}-view{i}@@"'


# Each lie: (the answer text, its nonce) -> the text a compromised worker sends instead.
LIES = {
    "own-svg-instead-of-the-slot": lambda t, n: t.replace(_slot(n), f'"svg":"{EVIL}"'),
    "a-second-svg-key-after-the-slot": lambda t, n: t.replace(_slot(n), _slot(n) + f',"svg":"{EVIL}"'),
    "an-escaped-svg-key-after-the-slot": lambda t, n: t.replace(_slot(n),
                                                                _slot(n) + f',"\\u0073vg":"{EVIL}"'),
    "the-slot-moved-out-of-its-view": lambda t, n: "{" + f'"moved":"@@{n}-view0@@",'
                                                   + t[1:].replace(_slot(n), f'"svg":"{EVIL}"'),
    "the-slot-written-twice": lambda t, n: "{" + f'"again":"@@{n}-view0@@",' + t[1:],
    "a-top-level-svg": lambda t, n: "{" + f'"svg":"{EVIL}",' + t[1:],
    "a-view-of-its-own": lambda t, n: t.replace('"views":[', '"views":[' + json.dumps(
        dict(VIEW, svg="<svg onload=alert(1)></svg>"), separators=(",", ":")) + ",", 1),
    "an-unknown-slot": lambda t, n: t.replace(_slot(n), _slot(n) + f',"x":"@@{n}-view9@@"'),
}


class LyingPool:
    """Wraps an app's pool: each job's real reply (asked once per job and arguments) comes back with
    its answer text changed by ``lie`` (None: as it is)."""

    def __init__(self, app):
        self.pool = app.state.pool
        self.real = self.pool.call
        self.replies: dict = {}
        self.lie = None
        self.calls = 0
        self.pool.call = self.call

    def call(self, job, *args, **kwargs):
        self.calls += 1
        key = json.dumps([job, args], sort_keys=True, default=str)
        if key not in self.replies:
            self.replies[key] = self.real(job, *args, **kwargs)
        reply = copy.copy(self.replies[key])
        if self.lie is not None and reply.body is not None:
            reply.value = copy.deepcopy(reply.value)
            reply.body = self._lied(reply.value, reply.body)
        return reply

    def _lied(self, value: dict, body: str) -> str:
        prepared = value["prepared"]
        if isinstance(prepared, dict):
            return self.lie(body, prepared["nonce"])
        texts, at = [], 0  # the answers worked out ahead: one text per answer, by sizes
        for p, size in zip(prepared, value["sizes"]):
            texts.append(self.lie(body[at:at + size], p["nonce"]))
            at += size
        value["sizes"] = [len(t) for t in texts]
        return "".join(texts)


@pytest.fixture(scope="module")
def lying():
    app = create_app(AppSettings(pool_workers=1, open_ahead=0))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c, app, LyingPool(app)


def unasked(name: str) -> str:
    """SHARED as a program no earlier test asked for: no answer of it is kept, while its graph (and
    so its drawings, laid out once for the module) is SHARED's."""
    return SHARED + f"# {name}\n"


def refused(r) -> None:
    assert r.status_code == 400, r.text
    assert r.json()["error"]["type"] == "SandboxError"
    assert "<image" not in r.text and "onload" not in r.text


@pytest.mark.parametrize("lie", LIES)
def test_a_run_whose_worker_writes_markup_is_refused_and_never_kept(lying, lie, caplog):
    client, app, pool = lying
    source = unasked(lie)
    pool.lie = LIES[lie]
    try:
        refused(client.post("/api/run", json={"source": source}))
    finally:
        pool.lie = None
    assert layout.CACHE.get(run_key(app.state.settings, source, None, "auto", "auto")) is None
    assert "a worker's answer was refused" in caplog.text
    # the same request again is worked out afresh (nothing was kept), and the honest answer is drawn
    calls = pool.calls
    honest = client.post("/api/run", json={"source": source})
    assert honest.status_code == 200 and pool.calls == calls + 1
    assert honest.json()["views"][0]["svg"].startswith("<svg")


@pytest.mark.parametrize("lie", ["own-svg-instead-of-the-slot", "a-second-svg-key-after-the-slot",
                                 "a-top-level-svg", "a-view-of-its-own"])
def test_an_opened_part_whose_worker_writes_markup_is_refused_and_never_kept(lying, lie):
    client, app, pool = lying
    source = unasked(lie)
    run = client.post("/api/run", json={"source": source}).json()
    (loop,) = run["parts"]
    body = {"source": source, "view": 0, "open": [loop["id"]], "fingerprint": run["fingerprint"]}
    pool.lie = LIES[lie]
    try:
        refused(client.post("/api/open", json=body))
    finally:
        pool.lie = None
    key = open_key(app.state.settings, source, None, 0, [loop["id"]], "auto", None)
    assert layout.CACHE.get(key) is None
    assert client.post("/api/open", json=body).status_code == 200


@pytest.mark.parametrize("lie", ["own-svg-instead-of-the-slot", "a-second-svg-key-after-the-slot",
                                 "a-top-level-svg"])
def test_answers_worked_out_ahead_with_markup_are_not_kept(lying, lie):
    client, app, pool = lying
    source = unasked(lie + " ahead")
    run = client.post("/api/run", json={"source": source}).json()
    (loop,) = run["parts"]
    states = [(0, [loop["id"]], [])]
    key = open_key(app.state.settings, source, None, 0, [loop["id"]], "auto", [])
    pool.lie = LIES[lie]
    try:
        assert open_ahead(app, "testclient", source, None, "auto", run["fingerprint"], states) == 0
    finally:
        pool.lie = None
    assert layout.CACHE.get(key) is None
    assert open_ahead(app, "testclient", source, None, "auto", run["fingerprint"], states) == 1
    assert layout.CACHE.get(key) is not None


def test_the_check_reads_the_answer_as_the_page_does():
    drawing = Drawing(svg='<svg><g id="n1"></g></svg>', folds=[{"id": "p0", "nodes": [1, 2]}])
    response = {"views": [dict(VIEW, index=0, svg="")], "graph": {"nodes": [], "edges": []},
                "stdout": '"svg":"<svg onload=x>"'}
    prepared = prepare_answer(copy.deepcopy(response))
    text = splice_answer(prepared, [drawing], {})
    # the server's own drawing, and a program's text that looks like one
    check_drawings(json.loads(text), [drawing])
    for lied in (text.replace('"folded":false', '"folded":false,"svg":"x"'), '{"svg":"x",' + text[1:],
                 text.replace('"nodes":[1,2]', '"nodes":[1,2,3]')):
        with pytest.raises(ForeignDrawing):
            check_drawings(json.loads(lied), [drawing])
    with pytest.raises(ForeignDrawing):  # a drawing left out by the worker
        splice_answer(dict(prepared, json=re.sub(r'"svg":"@@[^"]*"', '"svg":"x"', prepared["json"])),
                      [drawing], {})

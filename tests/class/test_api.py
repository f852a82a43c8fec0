"""The live class over HTTP, as pages use it: the teacher starts a class and publishes, a student
joins by link or code and follows the stream, guesses; whatever is wrong gets a 4xx in the error
shape, counted in /metrics, never a 5xx."""

from __future__ import annotations

import json
import threading

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.server import class_rules as rules
from app.settings import AppSettings

STATE = {"source": "y = x * 2", "variables": {"x": {"value": 3.0}}, "frame": 2, "fold": "auto",
         "open": {"0": ["p4", "p12"]}, "lens": None, "present": True, "predict": True, "asking": 2}


@pytest.fixture
def app_client():
    """The app in-process without its worker pool (a class runs no program)."""
    return TestClient(create_app(AppSettings(pool_workers=1)), raise_server_exceptions=False)


def _start(c) -> dict:
    r = c.post("/api/class")
    assert r.status_code == 200, r.text
    return r.json()


def test_teacher_and_student_roles(app_client):
    c = app_client
    cls = _start(c)
    teach = {"X-Class-Teacher": cls["teacher"]}
    u = f"/api/class/{cls['id']}"
    assert c.put(f"{u}/state", json=STATE, headers=teach).json() == {"seq": 1}
    # the short code typed in the address bar leads to the join link
    r = c.get(f"/c/{cls['code'].lower()}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/?class={cls['id']}", r.text
    joined = c.post("/api/class/join", json={"code": cls["code"].lower()}).json()
    assert joined["id"] == cls["id"] and joined["state"]["frame"] == 2 and joined["seq"] == 1
    student = {"X-Class-Student": joined["student"]}
    # a student posting the teacher's actions
    for r in (c.put(f"{u}/state", json=STATE, headers={"X-Class-Teacher": joined["student"]}),
              c.post(f"{u}/reveal", json={"frame": 2, "right": 1, "total": 1}, headers=student),
              c.get(f"{u}/answers?frame=2"),
              c.delete(u)):
        assert r.status_code == 403 and r.json()["error"]["type"] == "NotTheTeacher", r.text
        assert r.json()["error"]["explain"]["zh"]
    assert c.post(f"{u}/guess", json={"frame": 2, "guesses": [[6]]}, headers=student).status_code == 204
    assert c.get(f"{u}/answers?frame=2", headers=teach).json() == {"count": 1, "guesses": None}
    assert c.get(f"{u}/answers?frame=2&full=true", headers=teach).json()["guesses"] == [[[6.0]]]
    assert c.delete(u, headers=teach).status_code == 204
    assert c.post(f"{u}/guess", json={"frame": 2, "guesses": [[6]]}, headers=student).status_code == 404
    assert c.get(f"{u}/answers?frame=2", headers=teach).status_code == 404


def test_bad_input_is_a_clear_4xx_counted_in_metrics(app_client):
    c = app_client
    cls = _start(c)
    teach = {"X-Class-Teacher": cls["teacher"]}
    u = f"/api/class/{cls['id']}"
    big = dict(STATE, source="x" * (rules.MAX_STATE_BYTES + 10))
    cases = [
        c.post("/api/class/join", json={"code": "NOPE99"}),  # unknown code
        c.post("/api/class/AAAAAAAAAAAAAAAAAAAAAA/join"),  # unknown link
        c.get("/api/class/..%2F..%2Fetc/events"),
        c.get("/c/ZZZZZZ"),
        c.put(f"{u}/state", json=dict(STATE, frame=-1), headers=teach),  # bad shape
        c.put(f"{u}/state", json=dict(STATE, extra=1), headers=teach),
        c.put(f"{u}/state", json=dict(STATE, open={"0": ["../p1"]}), headers=teach),  # not a part
        c.put(f"{u}/state", json=big, headers=teach),  # oversized
        c.post(f"{u}/guess", json={"frame": 0, "guesses": [[1]]}),  # no student
        c.post(f"{u}/guess", json={"frame": 0, "guesses": [[1]]},
               headers={"X-Class-Student": "0" * 32}),  # forged student
    ]
    statuses = [r.status_code for r in cases]
    assert statuses == [404, 404, 404, 404, 422, 422, 422, 413, 403, 403], [r.text for r in cases]
    assert all("error" in r.json() for r in cases)
    student = {"X-Class-Student": c.post(f"{u}/join").json()["student"]}
    flood = [c.post(f"{u}/guess", json={"frame": 0, "guesses": [[1]]}, headers=student).status_code
             for _ in range(rules.GUESSES_PER_MINUTE + 3)]
    assert flood.count(204) == rules.GUESSES_PER_MINUTE and set(flood[-3:]) == {429}
    other = {"X-Class-Student": c.post(f"{u}/join").json()["student"]}
    shape = c.post(f"{u}/guess", json={"frame": 1, "guesses": [[1] * 10]}, headers=other)
    assert shape.status_code == 422 and shape.json()["error"]["type"] == "BadGuess"
    text = c.get("/metrics").text
    assert 'gradviz_requests_total{route="/api/class/guess",status="4xx"}' in text
    assert "gradviz_requests_total{route=\"/api/class/state\",status=\"4xx\"} 4" in text
    assert "gradviz_class_refused_guesses_total 3" in text
    assert "5xx" not in text


def test_joins_per_client_are_bounded(app_client):
    c = app_client
    cls = _start(c)
    u = f"/api/class/{cls['id']}"
    c.get("/api/health")  # the session cookie, as the page has it
    codes = [c.post(f"{u}/join").status_code for _ in range(rules.JOINS_PER_MINUTE + 1)]
    assert codes[:-1] == [200] * rules.JOINS_PER_MINUTE and codes[-1] == 429


def _read_events(resp, out: list, n: int) -> None:
    data = None
    for line in resp.iter_lines():
        if line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            out.append(data)
            data = None
            if len(out) >= n:
                return


def test_the_stream_gives_the_current_state_then_each_change_then_the_end(server):
    with httpx.Client(base_url=server, timeout=20) as c:
        cls = c.post("/api/class").json()
        u = f"/api/class/{cls['id']}"
        teach = {"X-Class-Teacher": cls["teacher"]}
        c.put(f"{u}/state", json=STATE, headers=teach)
        got: list = []
        with httpx.stream("GET", f"{server}/api/class/{cls['id']}/events", timeout=20) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            reader = threading.Thread(target=_read_events, args=(resp, got, 3))
            reader.start()
            c.put(f"{u}/state", json=dict(STATE, frame=5), headers=teach)
            c.delete(u, headers=teach)
            reader.join(20)
        assert [m["kind"] for m in got] == ["state", "state", "end"]
        assert [m["state"]["frame"] for m in got[:2]] == [2, 5] and got[0]["seq"] < got[1]["seq"]
        assert c.get(f"{u}/events").status_code == 404

"""A program at the runner's op limit (about 20,000 ops) through POST /api/run, as a user sends it:
it answers, its graph is drawn folded into a box on the first screen, and the answer stays small
enough to send (under 2 MB). The worker runs the production jobs with the runner's wall-time limit
raised (tests/server/roomy_jobs.py): on a busy machine the run may take longer than 5 s, and how
long it takes is benchmarks/bench_scale.py's measure."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import AppSettings
from engine.runner import Settings

STEPS = 9_999  # two ops an iteration: 19,998 ops, just under the runner's limit
SHARED = f"""w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range({STEPS}):
    h = torch.tanh(h * w)
h.backward()
"""
MAX_BYTES = 2 * 2**20


@pytest.fixture(scope="module")
def client():
    """The app with one worker running the production jobs, the wall-time limits raised (the
    server's deadline past roomy_jobs' runner limit; roomy_jobs is imported by the worker only: it
    changes the runner's settings in the process that imports it)."""
    app = create_app(AppSettings(pool_workers=1, open_ahead=0, run_timeout_s=130.0,
                                 sandbox_jobs="tests.server.roomy_jobs", sandbox_extra_code=("tests",)))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_the_program_is_at_the_op_limit():
    assert 2 * STEPS <= Settings().max_ops < 2 * STEPS + 10


def test_a_20000_op_program_answers_drawn_folded_and_under_2_mb(client):
    r = client.post("/api/run", json={"source": SHARED})
    assert r.status_code == 200, r.text[:500]
    assert len(r.content) < MAX_BYTES
    body = r.json()
    assert body["error"] is None
    # the answer names every op the program ran, in order: those drawn one by one, the others by id
    ops = sum(len(e["nodes"]) if e["kind"] == "ops" else e["kind"] == "op" for e in body["events"])
    assert ops == 2 * STEPS
    (view,) = body["views"]
    assert view["undrawn"] is None
    svg = view["svg"]
    assert svg.startswith("<svg") and "<g id=" in svg
    (loop,) = [p for p in body["parts"] if p["kind"] == "loop"]
    assert loop["iterations"] == STEPS and not loop["open"]
    # the loop is drawn as one closed box with the nodes outside it (the weights, the output)
    assert f'<g id="{loop["id"]}"' in svg
    drawn = set(re.findall(r'<g id="n(\d+)"', svg))
    assert 0 < len(drawn) < 50
    assert {str(n["id"]) for n in body["graph"]["nodes"]} >= drawn
    (bp,) = body["backward"]
    hidden = sum(len(h["nodes"]) for h in bp["hidden"])
    assert len(bp["steps"]) + hidden == 2 * STEPS + 2  # every op's step and the two leaves'

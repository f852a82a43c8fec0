"""A run the runner stopped on its wall-time limit is answered (the part that ran, and the limit it
hit), but kept for nobody: how far it got depends on how busy the machine was, so the same program
asked again, by anyone, runs again."""

from __future__ import annotations

import pytest

from app.routes.shared_answers import COUNTS
from app.worker.answer import ran_out_of_time

from .test_open import Counting

ENDLESS = """x = torch.ones(200, 200)
y = x
while True:
    y = x @ x
"""  # about a millisecond an op: the clock stops it long before the op or iteration limits


@pytest.fixture()
def hasty(fresh_app):
    """An app whose workers' runner stops a run after a fraction of a second (hasty_jobs)."""
    app, c = fresh_app(pool_workers=1, open_ahead=0, run_timeout_s=10.0,
                       sandbox_jobs="tests.server.hasty_jobs", sandbox_extra_code=("tests",))
    return app, c, Counting(app)


def test_a_run_stopped_by_the_clock_is_answered_but_not_kept(hasty):
    app, c, count = hasty
    hits = COUNTS.hits
    for asked in range(1, 3):
        r = c.post("/api/run", json={"source": ENDLESS})
        assert r.status_code == 200, r.text[:300]
        err = r.json()["error"]
        assert err["type"] == "LimitError" and "(limit: timeout_s)" in err["message"]
        assert err["line"] in (3, 4)
        assert r.headers["X-Gradviz-Cache"] == "miss" and count.calls == asked
    assert COUNTS.hits == hits


@pytest.mark.parametrize("error, stopped", [
    ({"type": "LimitError", "message": "the program ran longer than 5 s (limit: timeout_s)"}, True),
    ({"type": "LimitError", "message": "the program ran more than 100,000 loop iterations "
                                       "(limit: max_loop_iterations)"}, False),
    ({"type": "RuntimeError", "message": "the program ran longer than 5 s (limit: timeout_s)"}, False),
    (None, False),
])
def test_only_the_wall_time_limit_counts_as_stopped_by_the_clock(error, stopped):
    assert ran_out_of_time({"error": error}) is stopped


def test_opening_a_part_of_a_rerun_stopped_by_the_clock_says_busy_not_another_graph(hasty):
    """The rerun behind an opened part stopped on its wall-time limit, so it recorded another graph
    than the run the page shows: that is the machine being busy, which asking again may cure (503
    and Retry-After, which the page waits out), not the program having changed (409)."""
    app, c, count = hasty
    run = c.post("/api/run", json={"source": ENDLESS}).json()
    assert run["error"]["type"] == "LimitError"
    r = c.post("/api/open", json={"source": ENDLESS, "view": 0, "open": [],
                                  "fingerprint": "f" * len(run["fingerprint"])})
    assert r.status_code == 503, r.text[:300]
    err = r.json()["error"]
    assert err["type"] == "ServerBusy" and "time limit" in err["message"]
    assert int(r.headers["Retry-After"]) >= 1
    assert count.calls == 2  # the rerun was not kept: the next ask runs again

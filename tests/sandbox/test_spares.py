"""Spare workers: a spare forked while the pool is idle warms up before it is needed; one forked
while requests wait for a place starts at once (the request that takes it would wait for the
warm-up, and on a busy pool every child's warm-up was as much CPU as the runs themselves)."""

from __future__ import annotations

import threading
import time

import pytest

from .pools import make_pool, raw

WARMED = "import os\nimport tests.sandbox.payload_jobs as j\nresult = j.WARMED_IN == os.getpid()\n"
BUSY = "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 1.0:\n    pass\nresult = True\n"


@pytest.mark.parametrize("mode", ["language-only", "full"])
def test_a_waiting_request_gets_a_child_that_did_not_warm_up_and_an_idle_pool_a_warm_one(mode):
    with make_pool(mode, slots=1, reserved=0) as pool:
        assert raw(pool, WARMED) is True  # the spare an idle pool had ready warmed up
        busy = threading.Thread(target=raw, args=(pool, BUSY))
        busy.start()
        deadline = time.monotonic() + 30
        while pool.stats()["running"] < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        got: list[bool] = []
        waiting = [threading.Thread(target=lambda: got.append(raw(pool, WARMED))) for _ in range(3)]
        for t in waiting:
            t.start()
        for t in [busy, *waiting]:
            t.join(60)
        assert len(got) == 3 and got.count(False) >= 1, got  # forked while others waited: not warmed
        time.sleep(0.5)  # the pool idle again: its next spare warms up
        assert raw(pool, WARMED) is True

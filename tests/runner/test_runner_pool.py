"""WorkerPool: results and exceptions come back, a slow call is killed at its deadline and the pool
keeps serving, a crashed worker is replaced, workers write no files, callers can be concurrent."""

from __future__ import annotations

import os
import threading

import pytest
import runner_pool_helpers as helpers
from hostile_corpus import HOSTILE

from engine.runner import RunTimeout, WorkerCrashed, WorkerPool


@pytest.fixture(scope="module")
def pool():
    p = WorkerPool(workers=2)
    yield p
    p.close()


def test_result_and_exception_come_back(pool):
    out = helpers_call(pool, helpers.run_summary, "x = torch.tensor([1.0, 2.0]) * 2\nprint(x)")
    assert out == {"error": None, "stdout": "tensor([2., 4.])\n", "variables": {"x": [2.0, 4.0]}}
    with pytest.raises(ValueError, match="raised in the worker"):
        pool.call(helpers.boom, timeout=30)
    assert pool.call(helpers.pid, timeout=30) != os.getpid()


def helpers_call(pool, fn, *args):
    return pool.call(fn, *args, timeout=30)


def test_slow_numpy_call_is_killed_at_the_deadline(pool):
    with pytest.raises(RunTimeout):
        pool.call(helpers.slow_numpy, 4000, timeout=0.5)
    # the pool serves the next call (with a fresh worker)
    out = helpers_call(pool, helpers.run_summary, "print(1 + 1)")
    assert out["stdout"] == "2\n"


def test_crashed_worker_is_replaced(pool):
    with pytest.raises(WorkerCrashed):
        pool.call(helpers.die, timeout=30)
    assert helpers_call(pool, helpers.run_summary, "print('alive')")["stdout"] == "alive\n"


def test_workers_cannot_write_files(pool, tmp_path):
    target = tmp_path / "pwned.txt"
    result = pool.call(helpers.try_write, str(target), timeout=30)
    assert result.startswith("refused")
    assert not target.exists() or target.stat().st_size == 0


def test_hostile_programs_in_workers_then_a_normal_one(pool):
    picked = [h for h in HOSTILE if h[0] in (
        "import-os", "format-globals", "pow-tower", "str-mul", "zeros-huge", "while-true", "recursion",
        "numpy-tofile", "repr-shared-lists", "broadcast-huge", "open-write")]
    assert len(picked) == 11
    for hid, source, expected, *_ in picked:
        out = helpers_call(pool, helpers.run_summary, source)
        assert expected in (out.get("program_error"), out.get("error")), (hid, out)
    assert helpers_call(pool, helpers.run_summary, "print(2 * 3)")["stdout"] == "6\n"


def test_concurrent_callers(pool):
    results: dict[int, str] = {}

    def worker(i: int) -> None:
        results[i] = helpers_call(pool, helpers.run_summary, f"print({i} * 10)")["stdout"]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == {i: f"{i * 10}\n" for i in range(6)}


def test_a_slow_call_does_not_block_the_other_worker(pool):
    done = {}

    def slow() -> None:
        try:
            pool.call(helpers.slow_numpy, 4000, timeout=2.0)
        except RunTimeout:
            done["slow"] = "timeout"

    t = threading.Thread(target=slow)
    t.start()
    done["fast"] = helpers_call(pool, helpers.run_summary, "print('fast')")["stdout"]
    t.join(60)
    assert done == {"fast": "fast\n", "slow": "timeout"}

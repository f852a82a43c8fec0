"""A live class on deploy/'s stack: nginx in front of two replicas sharing Redis. A teacher on one
replica reaches followers on the other (Redis pub/sub), the class and its guesses are one whichever
replica answers and all of it leaves Redis when it ends, streams go through nginx unbuffered, and a
replica killed while the teacher steps leaves no follower behind for longer than its reconnect."""

from __future__ import annotations

import asyncio
import shutil
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from app.server.class_rules import IDLE_S  # noqa: E402
from benchmarks.bench_class import RETRY_S, class_run  # noqa: E402
from benchmarks.local_server import start_stack  # noqa: E402

pytestmark = pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists())
                                or not shutil.which("redis-server"), reason="nginx and redis-server needed")
STATE = {"source": "(a + b) * c", "frame": 3}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    with start_stack(tmp_path_factory.mktemp("class-stack"), worker_connections=1024) as st:
        yield st


def _first_event(url: str, out: list, n: int) -> None:
    with httpx.stream("GET", url, timeout=20) as resp:
        for line in resp.iter_lines():
            if line.startswith("data: "):
                out.append(line[6:])
                if len(out) >= n:
                    return


def test_a_teacher_on_one_replica_reaches_followers_on_the_other(stack):
    (_, a), (_, b) = stack["replicas"]
    cls = httpx.post(f"{a}/api/class", timeout=10).json()
    teach = {"X-Class-Teacher": cls["teacher"]}
    assert httpx.put(f"{a}/api/class/{cls['id']}/state", json=STATE, headers=teach).status_code == 200
    joined = httpx.post(f"{b}/api/class/join", json={"code": cls["code"]}, timeout=10).json()
    assert joined["id"] == cls["id"] and joined["state"]["frame"] == 3
    got: list[str] = []
    for base in (b, stack["front"]):
        seen: list[str] = []
        reader = threading.Thread(target=_first_event, args=(f"{base}/api/class/{cls['id']}/events", seen, 2))
        reader.start()
        for _ in range(50):  # until the stream is open: its first event is the class as it is
            if seen:
                break
            threading.Event().wait(0.1)
        httpx.put(f"{a}/api/class/{cls['id']}/state", json=dict(STATE, frame=4 + len(got)), headers=teach)
        reader.join(20)
        got += seen
    assert len(got) == 4 and '"frame":4' in got[1] and '"frame":6' in got[3], got
    student = {"X-Class-Student": joined["student"]}
    r = httpx.post(f"{a}/api/class/{cls['id']}/guess", json={"frame": 5, "guesses": [[1.0]]}, headers=student)
    assert r.status_code == 204  # a student token of replica b is good on a (one signing key)
    assert httpx.get(f"{b}/api/class/{cls['id']}/answers?frame=5", headers=teach).json()["count"] == 1
    kept = _kept(stack["redis"], cls)
    assert kept and all(0 < ttl <= IDLE_S for ttl in kept.values()), kept  # gone after idling, at the latest
    assert httpx.delete(f"{b}/api/class/{cls['id']}", headers=teach).status_code == 204
    assert httpx.post(f"{a}/api/class/{cls['id']}/join").status_code == 404
    assert _kept(stack["redis"], cls) == {}, "nothing of the class is kept after it ended"


def _kept(url: str, cls: dict) -> dict[str, int]:
    """The keys Redis holds of a class (its record, code, guesses), each with its time to live."""
    client = redis.Redis.from_url(url)
    try:
        keys = [k.decode() for k in client.scan_iter("gvc:*")]
        return {k: client.ttl(k) for k in keys if cls["id"] in k or cls["code"] in k}
    finally:
        client.close()


def test_a_replica_killed_under_load_leaves_no_follower_behind(stack):
    victim = stack["replicas"][0][0]

    def kill(i: int) -> None:
        if i == 8:
            victim.send_signal(signal.SIGKILL)

    with ThreadPoolExecutor(1) as pool:  # a loop of its own (a browser test's may be running)
        res = pool.submit(asyncio.run, class_run(stack["front"], 40, 20, 0.1, during=kill)).result()
    assert res["behind_at_end"] == 0 and res["missed"] == 0
    assert res["reconnected"] > 0, "some followers were on the killed replica"
    worst = max(res["worst"])
    assert worst < RETRY_S + 4.0, f"a follower was behind the teacher for {worst:.1f} s"

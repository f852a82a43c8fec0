"""A live class under load, on loopback: simulated students follow a class's stream while the
teacher steps, and each step's time from the teacher's request to each follower's copy is measured.

- one server process, ``--followers`` (300) students, ``--steps`` teacher steps, one every
  ``--interval`` seconds (0.5: a teacher clicking through fast);
- deploy/'s stack (nginx in front of two replicas sharing Redis), the same;
- the stack again with one replica killed (SIGKILL) while the teacher steps: each follower of the
  dead replica reconnects through nginx after the stream's retry time (1 s, as EventSource does);
  the longest time any follower was behind the teacher is measured, and none may be left behind.

A follower is a plain HTTP/1.0 connection reading the event stream's ``id:`` lines (the class's
sequence number); a follower that falls behind gets the newest state (a skipped number counts as
arriving with the next one it gets).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_class.py [--followers 300] [--steps 30]
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local_server import start_server, start_stack, stop_server  # noqa: E402

RETRY_S = 1.0  # the stream's retry time (app/routes/class_stream.py RETRY_MS)
STATE = {"source": "(a + b) * c", "variables": {}, "frame": 0, "fold": "auto", "open": {}, "lens": None,
         "present": True, "predict": False, "asking": None}


class Follower:
    """One student's stream: the time each sequence number arrived; reconnects like EventSource."""

    def __init__(self, base: str, cid: str):
        url = urlparse(base)
        self.host, self.port, self.path = url.hostname, url.port, f"/api/class/{cid}/events"
        self.arrived: dict[int, float] = {}
        self.connects = 0
        self.ready = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            writer = None
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
                writer.write(f"GET {self.path} HTTP/1.0\r\nHost: {self.host}\r\n\r\n".encode())
                await writer.drain()
                if b" 200 " not in await reader.readline():
                    raise ConnectionError("refused")
                self.connects += 1
                while line := await reader.readline():
                    if line.startswith(b"id: "):
                        self.arrived.setdefault(int(line[4:]), time.perf_counter())
                        self.ready.set()
            except (OSError, ConnectionError, asyncio.IncompleteReadError, ValueError):
                pass
            finally:
                if writer is not None:
                    writer.close()
            if not stop.is_set():
                await asyncio.sleep(RETRY_S)

    def delay(self, seq: int, sent: float) -> float | None:
        """When this follower had step ``seq`` (or a later one), after it was sent; None: never."""
        times = [t for s, t in self.arrived.items() if s >= seq]
        return min(times) - sent if times else None


async def class_run(front: str, followers: int, steps: int, interval_s: float = 0.5,
                    during=None) -> dict:
    """Start a class at ``front``, connect the followers, step ``steps`` times; ``during(i)`` is
    called before step i (e.g. to kill a replica). Returns the delays, connects and the missed."""
    async with httpx.AsyncClient(base_url=front, timeout=30) as http:
        cls = (await http.post("/api/class")).json()
        teach = {"X-Class-Teacher": cls["teacher"]}
        await http.put(f"/api/class/{cls['id']}/state", json=STATE, headers=teach)
        stop = asyncio.Event()
        fs = [Follower(front, cls["id"]) for _ in range(followers)]
        tasks = []
        for i, f in enumerate(fs):
            tasks.append(asyncio.create_task(f.run(stop)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)
        try:  # every follower has the class (on a loaded machine, some may still be connecting)
            await asyncio.wait_for(asyncio.gather(*(f.ready.wait() for f in fs)), 120)
        except TimeoutError:
            pass
        connected = sum(f.ready.is_set() for f in fs)
        sent: dict[int, float] = {}
        for i in range(steps):
            if during is not None:
                during(i)
            t0 = time.perf_counter()
            for _ in range(5):  # as the teacher's page: a step a replica dropped is sent again
                try:
                    r = await http.put(f"/api/class/{cls['id']}/state", json=dict(STATE, frame=i + 1),
                                       headers=teach)
                except httpx.HTTPError:
                    continue
                if r.status_code == 200:
                    sent[r.json()["seq"]] = t0
                    break
            await asyncio.sleep(interval_s)
        # until every follower has the last step, or one reconnect and two seconds have passed
        deadline = time.perf_counter() + RETRY_S + 2.0
        while sent and time.perf_counter() < deadline and any(f.delay(max(sent), 0) is None for f in fs):
            await asyncio.sleep(0.02)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    delays = [f.delay(s, t) for f in fs for s, t in sent.items()]
    worst = [max((d for s, t in sent.items() if (d := f.delay(s, t)) is not None), default=None) for f in fs]
    last = max(sent)
    behind = sum(f.delay(last, 0) is None for f in fs)
    return {"connected": connected, "delays": [d for d in delays if d is not None],
            "missed": sum(d is None for d in delays),
            "worst": worst, "behind_at_end": behind, "reconnected": sum(f.connects > 1 for f in fs)}


def summary(name: str, res: dict) -> str:
    d = sorted(res["delays"])
    p = lambda q: d[min(len(d) - 1, int(q * len(d)))] * 1000  # noqa: E731
    return (f"{name}: {res['connected']} followers connected before the first step, {len(d)} deliveries,"
            f" p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms, "
            f"max {d[-1] * 1000:.1f} ms, mean {statistics.mean(d) * 1000:.1f} ms, missed {res['missed']}, "
            f"followers reconnected {res['reconnected']}, left behind {res['behind_at_end']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--followers", type=int, default=300)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--only", choices=["single", "stack", "kill"], default=None)
    args = ap.parse_args()
    if args.only in (None, "single"):
        proc, base = start_server()
        try:
            res = asyncio.run(class_run(base, args.followers, args.steps, args.interval))
            print(summary("one process", res), flush=True)
        finally:
            stop_server(proc)
    if args.only in (None, "stack", "kill"):
        with tempfile.TemporaryDirectory(prefix="gv-class-") as tmp, start_stack(Path(tmp)) as stack:
            if args.only in (None, "stack"):
                res = asyncio.run(class_run(stack["front"], args.followers, args.steps, args.interval))
                print(summary("nginx + 2 replicas + Redis", res), flush=True)
            if args.only in (None, "kill"):
                victim = stack["replicas"][0][0]
                kill_at = max(2, args.steps // 3)
                def kill(i: int) -> None:
                    if i == kill_at:
                        victim.send_signal(signal.SIGKILL)

                res = asyncio.run(class_run(stack["front"], args.followers, args.steps * 2, 0.1, during=kill))
                worst = max(w for w in res["worst"] if w is not None)
                print(summary("a replica killed under load", res), flush=True)
                print(f"  longest any follower was behind the teacher: {worst * 1000:.0f} ms "
                      f"(reconnect: retry {RETRY_S * 1000:.0f} ms + connect)", flush=True)


if __name__ == "__main__":
    main()

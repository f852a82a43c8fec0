"""Load on the real server from many clients at once, on loopback, bounded in time.

Each simulated client is a keep-alive HTTP/1.1 connection with its own session cookie (from a
first GET /, as a browser's page load), sending its next request as soon as the last is answered,
or, after a 503, once its Retry-After has passed (as the page does: a 503 is no answer).
Every request is a program of its own (a numbered comment after it), so each one runs in a worker:
the same request again would be answered from the shared cache.
Prints answered req/s (200s), p50/p95/p99 latency of all answers, 503s (busy, with Retry-After) and errors:
- the small expression ``(a + b) * c`` and a 50-step MLP training program, at 1, 10, 50 and 100
  clients;
- the 50-step MLP program sent unchanged by 50 clients (a class running one example): answered
  once by a worker, then from the shared cache;
- ``/api/health`` polled while 50 small-expression clients run;
- the noisy neighbour: 10 small-expression clients while 2 clients send 5-second programs, against
  the same 10 clients alone;
- with ``--baseline DIR`` (another checkout with its own .venv, e.g. the previous commit): its
  small-expression throughput at 50 clients against ours, in three alternating rounds each.

With ``--fairness``, instead: a fair share under load, however many identities the heavy side
makes. 10 honest students (each a cookie of its own with a record of one run, sending a small
expression about once a second), in phases of ``--seconds`` each: alone; beside an attacker keeping
12 five-second programs going with one cookie; with a new cookie per attacking request (fetched
from the server, as a GET / gives one); with no cookie and a new X-Forwarded-For address per
request; beside 6 concurrent dense /api/layout requests (a new structure each: no cache). The
attacker pauses 0.1 s after a 503, and does not honour Retry-After. Per phase: honest p50/p99,
refusals, /api/health p99 (polled every 50 ms), and what the attacker got.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_load.py [--seconds 5] [--baseline DIR]
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_load.py --fairness --seconds 20 [--root DIR ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local_server import start_server  # noqa: E402

SMALL = {"source": "(a + b) * c", "variables": {"a": {"value": 2.0}, "b": {"value": -1.0},
                                                "c": {"value": 10.0}}}
MLP50 = {"source": """torch.manual_seed(0)
X = torch.randn(64, 2)
y = (X[:, 0] * X[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(50):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
print(loss.item())
"""}
FIVE_SECONDS = {"source": "a = torch.ones(300, 300)\nb = a\nwhile True:\n    b = (b @ a) / 300\n"}


class Client:
    """One keep-alive connection with a session cookie, from ``source`` (a loopback address of its
    own, as another machine's would be; None: the system's choice). ``retry_after``: the seconds
    the last answer's Retry-After header asked for (0: none)."""

    def __init__(self, host: str, port: int, source: str | None = None):
        self.host, self.port, self.source = host, port, source
        self.reader = self.writer = None
        self.cookie = ""
        self.retry_after = 0.0

    async def _connect(self) -> None:
        local = (self.source, 0) if self.source else None
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port, local_addr=local)

    async def request(self, method: str, path: str, body: dict | None = None,
                      extra: str = "") -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(data)}\r\n"
                f"Content-Type: application/json\r\n{self.cookie}{extra}\r\n").encode()
        reused = self.writer is not None
        if not reused:
            await self._connect()
        self.writer.write(head + data)
        status_line = await self.reader.readline()
        if not status_line and reused:
            # the server closed an idle keep-alive connection: send again on a new one, as a browser does
            self.close()
            await self._connect()
            self.writer.write(head + data)
            status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        self.retry_after = 0.0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.lower()
            if name == "content-length":
                length = int(value)
            elif name == "retry-after":
                self.retry_after = float(value.strip())
            elif name == "set-cookie" and value.strip().startswith("gv_client="):
                self.cookie = f"Cookie: {value.strip().split(';')[0]}\r\n"
        payload = await self.reader.readexactly(length)
        return status, payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def numbered(body: dict, n: int) -> dict:
    """``body`` as a program of its own: its source with a comment numbering it."""
    return dict(body, source=f"{body['source']}\n# request {n}\n")


def own_address(k: int) -> str:
    """Client ``k``'s loopback address, as if each client were a machine of its own."""
    return f"127.0.{1 + k // 250}.{2 + k % 250}"


async def drive(port: int, body: dict, clients: int, seconds: float, path: str = "/api/run",
                same: bool = False, honest: bool = False, spread: bool = False) -> dict:
    """``clients`` clients sending ``body`` back to back for ``seconds`` (each request numbered
    unless ``same``): latencies and errors. ``honest``: a client answered 503 waits as long as its
    Retry-After says before it sends again, as the page does (a 503 is not an answer: it is counted
    apart, and its wait in no latency); ``spread``: each client from a loopback address of its own."""
    lat: list[float] = []
    errors = [0]
    ok = [0]
    busy = [0]  # 503 with Retry-After: the server's answer to more work than its pool takes
    sent = [0]
    end = time.monotonic() + seconds

    async def one(k: int) -> None:
        source = own_address(k) if spread else None
        c = Client("127.0.0.1", port, source)
        try:
            await c.request("GET", "/")
            while time.monotonic() < end:
                t0 = time.perf_counter()
                sent[0] += 1
                data = body if same or not body else numbered(body, sent[0])
                try:
                    status, _ = await c.request("POST" if body else "GET", path, data)
                except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                    errors[0] += 1
                    c.close()
                    c, c.cookie = Client("127.0.0.1", port, source), c.cookie  # the browser keeps it
                    continue
                if status == 503:
                    busy[0] += 1
                    if honest:
                        await asyncio.sleep(c.retry_after)
                        continue
                lat.append(time.perf_counter() - t0)
                if status == 200:
                    ok[0] += 1
                elif status != 503:
                    errors[0] += 1
        finally:
            c.close()

    t0 = time.monotonic()
    await asyncio.gather(*(one(k) for k in range(clients)))
    return {"n": ok[0], "errors": errors[0], "busy": busy[0], "seconds": time.monotonic() - t0, "lat": lat}


async def poll_health(port: int, seconds: float, pause: float = 0.01) -> list[float]:
    c, lat = Client("127.0.0.1", port), []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        await c.request("GET", "/api/health")
        lat.append(time.perf_counter() - t0)
        await asyncio.sleep(pause)
    c.close()
    return lat


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] * 1e3


def row(name: str, r: dict) -> str:
    lat = r["lat"]
    return (f"{name:<34}{r['n'] / r['seconds']:>9.1f}{pct(lat, .5):>9.1f}{pct(lat, .95):>9.1f}"
            f"{pct(lat, .99):>9.1f}{r.get('busy', 0):>6}{r['errors']:>8}")


async def main_async(args) -> None:
    proc, base = start_server(env={"GRADVIZ_SANDBOX": args.sandbox})
    port = int(base.rsplit(":", 1)[1])
    print(f"{'case':<34}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'503':>6}{'errors':>8}")
    try:
        await drive(port, SMALL, 4, 1.0)  # warm up: spares, layout cache
        alone10 = None
        for name, body in (("small", SMALL), ("mlp 50 steps", MLP50)):
            for clients in (1, 10, 50, 100):
                r = await drive(port, body, clients, args.seconds, honest=True)
                print(row(f"{name}, {clients} clients", r), flush=True)
                if name == "small" and clients == 10:
                    alone10 = r
        shared = await drive(port, MLP50, 50, args.seconds, same=True, honest=True)
        print(row("mlp 50 steps, 50 clients, unchanged", shared), flush=True)
        load = asyncio.create_task(drive(port, SMALL, 50, args.seconds, honest=True))
        health = await poll_health(port, args.seconds)
        await load
        print(f"{'/api/health under 50 small clients':<34}{len(health) / args.seconds:>9.1f}"
              f"{pct(health, .5):>9.1f}{pct(health, .95):>9.1f}{pct(health, .99):>9.1f}{0:>8}", flush=True)
        attackers = asyncio.create_task(drive(port, FIVE_SECONDS, 2, args.seconds * 2))
        await asyncio.sleep(0.5)
        noisy = await drive(port, SMALL, 10, args.seconds * 2 - 1, honest=True)
        att = await attackers
        print(row("small, 10 clients + 2 attackers", noisy))
        print(row("  the 2 attackers (5 s programs)", att))
        print(f"noisy-neighbour p99 ratio: {pct(noisy['lat'], .99) / pct(alone10['lat'], .99):.2f}x "
              f"the same 10 clients alone")
        if args.baseline:
            await against_baseline(port, args)
    finally:
        proc.terminate()
        proc.wait(10)


async def against_baseline(port: int, args) -> None:
    """Small expression, 50 clients: ours and the baseline's in alternating rounds."""
    root = args.baseline.resolve()
    proc, base = start_server(root=root, python=str(root / ".venv" / "bin" / "python"))
    try:
        other = int(base.rsplit(":", 1)[1])
        await drive(other, SMALL, 4, 1.0)
        rates = {"this checkout": [], "baseline": []}
        for _ in range(3):
            for name, p in (("this checkout", port), ("baseline", other)):
                r = await drive(p, SMALL, 50, args.seconds, honest=True)
                rates[name].append(r["n"] / r["seconds"])
                print(row(f"  {name}: small, 50 clients", r), flush=True)
        ours, theirs = (sorted(v)[1] for v in rates.values())
        print(f"small-expression throughput at 50 clients, median of 3 rounds: {ours:.0f} req/s against "
              f"the baseline's {theirs:.0f} req/s ({ours / theirs:.2f}x)")
    finally:
        proc.terminate()
        proc.wait(10)


# ---- a fair share under load --------------------------------------------------------------------------
def dense_layout(seed: int, nodes: int = 400, edges_per_node: int = 3) -> dict:
    """A /api/layout request for a dense graph of its own structure (``seed``): ops with edges to
    random earlier ops, one view of all of it."""
    rng = random.Random(seed)
    ns = [{"id": i, "kind": "op", "name": "MulBackward0", "shape": [4], "requires_grad": True}
          for i in range(nodes)]
    es = []
    for j in range(1, nodes):
        for i in {rng.randrange(j) for _ in range(edges_per_node)}:
            es.append({"id": len(es), "source": i, "target": j, "shape": [4], "needs_grad": True})
    return {"nodes": ns, "edges": es, "fold": "op",
            "views": [{"nodes": list(range(nodes)), "edges": list(range(len(es)))}]}


async def student(port: int) -> Client:
    """A student's browser: a cookie, and a record of one run."""
    c = Client("127.0.0.1", port)
    await c.request("GET", "/")
    await c.request("POST", "/api/run", numbered(SMALL, random.randrange(1 << 30)))
    return c


async def honest(c: Client, end: float, out: dict) -> None:
    """A student sending a small expression about once a second until ``end``."""
    next_at = time.monotonic() + random.random()
    try:
        while True:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            if time.monotonic() >= end:
                return
            next_at += 1.0
            t0 = time.perf_counter()
            status, _ = await c.request("POST", "/api/run", numbered(SMALL, random.randrange(1 << 30)))
            out["lat"].append(time.perf_counter() - t0)
            out[status] = out.get(status, 0) + 1
    finally:
        c.close()


async def attacker(port: int, end: float, mode: str, out: dict, n: int) -> None:
    """One of the attacker's loops: a five-second program (or a dense layout) again and again, as
    ``mode`` says: one cookie ("cookie"), a new cookie each time ("mint"), a new X-Forwarded-For
    address and no cookie ("spoof"), a dense /api/layout of a new structure ("layout")."""
    c = Client("127.0.0.1", port)
    if mode == "cookie":
        c.cookie = out["cookie"]
    k = 0
    try:
        while time.monotonic() < end:
            k += 1
            extra, path, body = "", "/api/run", numbered(FIVE_SECONDS, n * 100_000 + k)
            if mode == "mint":
                c.cookie = ""
                await c.request("GET", "/api/health")  # the server hands out a cookie
            elif mode == "spoof":
                c.cookie = ""
                extra = f"X-Forwarded-For: 10.{k % 250}.{n}.{random.randrange(1, 250)}\r\n"
            elif mode == "layout":
                path, body = "/api/layout", dense_layout(n * 100_000 + k)
            try:
                status, _ = await c.request("POST", path, body, extra)
            except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                c.close()
                c = Client("127.0.0.1", port)
                status = "error"
            out[status] = out.get(status, 0) + 1
            if status != 200:
                await asyncio.sleep(0.1)
    finally:
        c.close()


async def fairness_phase(port: int, mode: str | None, seconds: float) -> dict:
    """10 honest students for ``seconds`` beside the attack ``mode`` (None: alone), with /api/health
    polled every 50 ms."""
    honest_out: dict = {"lat": []}
    attack_out: dict = {}
    if mode == "cookie":
        c = Client("127.0.0.1", port)
        await c.request("GET", "/")
        attack_out["cookie"] = c.cookie
        c.close()
    students = [await student(port) for _ in range(10)]
    end = time.monotonic() + seconds
    loops = range({"layout": 6}.get(mode, 12) if mode else 0)
    tasks = [asyncio.create_task(attacker(port, end, mode, attack_out, n)) for n in loops]
    await asyncio.sleep(1.0 if mode else 0.0)  # the attack holds the workers first
    health = asyncio.create_task(poll_health(port, max(1.0, end - time.monotonic()), pause=0.05))
    await asyncio.gather(*(honest(c, end, honest_out) for c in students))
    health_lat = await health
    await asyncio.gather(*tasks)
    attack_out.pop("cookie", None)
    return {"honest": honest_out, "health": health_lat, "attack": attack_out}


async def fairness_async(args) -> None:
    """Each phase on each server in turn (``--root``, repeated: several checkouts, measured under
    the same background load)."""
    roots = [r.resolve() for r in args.root] or [ROOT]
    servers = [start_server(env={"GRADVIZ_SANDBOX": args.sandbox}, root=root) for root in roots]
    ports = [int(base.rsplit(":", 1)[1]) for _, base in servers]
    print(f"{args.seconds:.0f} s per phase; " + "; ".join(f"[{i}] {r}" for i, r in enumerate(roots)))
    print(f"{'phase':<40}{'honest':>7}{'p50 ms':>9}{'p99 ms':>9}{'503':>6}{'refused':>9}"
          f"{'health p99':>12}  attacker's answers")
    try:
        for port in ports:
            await drive(port, SMALL, 4, 1.0)  # warm up: spares, layout cache
        for name, mode in (("honest alone", None), ("one heavy cookie", "cookie"),
                           ("a new cookie per attacking request", "mint"),
                           ("spoofed X-Forwarded-For, no cookie", "spoof"),
                           ("6 concurrent dense /api/layout", "layout")):
            for i, port in enumerate(ports):
                r = await fairness_phase(port, mode, args.seconds)
                print(fairness_row(f"[{i}] {name}", r), flush=True)
                await asyncio.sleep(6.0)  # the attack's last programs end
    finally:
        for proc, _ in servers:
            proc.terminate()
            proc.wait(10)


def fairness_row(name: str, r: dict) -> str:
    h = r["honest"]
    answered = len(h["lat"])
    share = 100 * (answered - h.get(200, 0)) / max(1, answered)
    return (f"{name:<40}{answered:>7}{pct(h['lat'], .5):>9.0f}{pct(h['lat'], .99):>9.0f}"
            f"{h.get(503, 0):>6}{share:>8.1f}%{pct(r['health'], .99):>12.1f}  "
            f"{dict(sorted((str(k), v) for k, v in r['attack'].items()))}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each case")
    ap.add_argument("--sandbox", default="full", help="GRADVIZ_SANDBOX of the server under test")
    ap.add_argument("--baseline", type=Path, help="another checkout to compare small-expression throughput")
    ap.add_argument("--fairness", action="store_true", help="the fair-share phases instead of the load cases")
    ap.add_argument("--root", type=Path, action="append", default=[],
                    help="with --fairness: a checkout whose server is measured (repeat to compare)")
    args = ap.parse_args()
    asyncio.run(fairness_async(args) if args.fairness else main_async(args))


if __name__ == "__main__":
    main()

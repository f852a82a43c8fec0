"""Load on the real server from many clients at once, on loopback, bounded in time.

Each simulated client is a keep-alive HTTP/1.1 connection with its own session cookie (from a
first GET /, as a browser's page load), sending its next request as soon as the last is answered.
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

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_load.py [--seconds 5] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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
    """One keep-alive connection with a session cookie."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None
        self.cookie = ""

    async def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(data)}\r\n"
                f"Content-Type: application/json\r\n{self.cookie}\r\n").encode()
        self.writer.write(head + data)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.lower()
            if name == "content-length":
                length = int(value)
            elif name == "set-cookie" and value.strip().startswith("gv_client="):
                self.cookie = f"Cookie: {value.strip().split(';')[0]}\r\n"
        payload = await self.reader.readexactly(length)
        return status, payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def numbered(body: dict, n: int) -> dict:
    """``body`` as a program of its own: its source with a comment numbering it."""
    return dict(body, source=f"{body['source']}\n# request {n}\n")


async def drive(port: int, body: dict, clients: int, seconds: float, path: str = "/api/run",
                same: bool = False) -> dict:
    """``clients`` clients sending ``body`` back to back for ``seconds`` (each request numbered
    unless ``same``): latencies and errors."""
    lat: list[float] = []
    errors = [0]
    ok = [0]
    busy = [0]  # 503 with Retry-After: the server's answer to more work than its pool takes
    sent = [0]
    end = time.monotonic() + seconds

    async def one() -> None:
        c = Client("127.0.0.1", port)
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
                    c = Client("127.0.0.1", port)
                    continue
                lat.append(time.perf_counter() - t0)
                if status == 200:
                    ok[0] += 1
                elif status == 503:
                    busy[0] += 1
                elif status != 200:
                    errors[0] += 1
        finally:
            c.close()

    t0 = time.monotonic()
    await asyncio.gather(*(one() for _ in range(clients)))
    return {"n": ok[0], "errors": errors[0], "busy": busy[0], "seconds": time.monotonic() - t0, "lat": lat}


async def poll_health(port: int, seconds: float) -> list[float]:
    c, lat = Client("127.0.0.1", port), []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        await c.request("GET", "/api/health")
        lat.append(time.perf_counter() - t0)
        await asyncio.sleep(0.01)
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
                r = await drive(port, body, clients, args.seconds)
                print(row(f"{name}, {clients} clients", r), flush=True)
                if name == "small" and clients == 10:
                    alone10 = r
        shared = await drive(port, MLP50, 50, args.seconds, same=True)
        print(row("mlp 50 steps, 50 clients, unchanged", shared), flush=True)
        load = asyncio.create_task(drive(port, SMALL, 50, args.seconds))
        health = await poll_health(port, args.seconds)
        await load
        print(f"{'/api/health under 50 small clients':<34}{len(health) / args.seconds:>9.1f}"
              f"{pct(health, .5):>9.1f}{pct(health, .95):>9.1f}{pct(health, .99):>9.1f}{0:>8}", flush=True)
        attackers = asyncio.create_task(drive(port, FIVE_SECONDS, 2, args.seconds * 2))
        await asyncio.sleep(0.5)
        noisy = await drive(port, SMALL, 10, args.seconds * 2 - 1)
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
                r = await drive(p, SMALL, 50, args.seconds)
                rates[name].append(r["n"] / r["seconds"])
                print(row(f"  {name}: small, 50 clients", r), flush=True)
        ours, theirs = (sorted(v)[1] for v in rates.values())
        print(f"small-expression throughput at 50 clients, median of 3 rounds: {ours:.0f} req/s against "
              f"the baseline's {theirs:.0f} req/s ({ours / theirs:.2f}x)")
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each case")
    ap.add_argument("--sandbox", default="full", help="GRADVIZ_SANDBOX of the server under test")
    ap.add_argument("--baseline", type=Path, help="another checkout to compare small-expression throughput")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()

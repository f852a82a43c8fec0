"""Today's server against an earlier commit's, side by side in one run: the small expression's and
a 50-step MLP program's median latency (requests alternating between the two servers, every
program unique so no cache answers it, each client keeping its cookie) and the small expression's
throughput at 16 concurrent clients (alternating rounds), who honour Retry-After as the page does,
once as a class behind one address and once each from its own: answers per second and 503s apart.
Every containment layer is on for today's server (``GRADVIZ_SANDBOX=full``); both run on this
interpreter.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import httpx

from benchmarks.bench_load import MLP50, drive
from benchmarks.bench_load import SMALL as _SMALL3
from benchmarks.local_server import ROOT, start_server, stop_server

SMALL = {"source": "(a + b) * c + k", "variables": dict(_SMALL3["variables"], k={"value": 0.5})}


def checkout(rev: str) -> Path:
    """The tree of ``rev`` (``git archive``) in a directory of its own, reused by later runs."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    where = Path(tempfile.gettempdir()) / f"gradviz-baseline-{sha[:12]}"
    if not (where / "app").is_dir():
        where.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


@contextmanager
def side_by_side(revs: list[str]):
    """Today's server and one per commit of ``revs``, each from its own checkout, every containment
    layer on: ``{"today" or the commit: (process, base URL)}``, all stopped on leaving."""
    servers = {}
    try:
        servers["today"] = start_server(env={"GRADVIZ_SANDBOX": "full"})
        for rev in revs:
            servers[rev] = start_server(root=checkout(rev), python=sys.executable,
                                        env={"GRADVIZ_SANDBOX": "full"})
        yield servers
    finally:
        for proc, _ in servers.values():
            stop_server(proc)


def _latencies(bases: dict[str, str], body: dict, repeat: int) -> dict[str, list[float]]:
    """Seconds per request on each server, requests alternating, each program unique."""
    times: dict[str, list[float]] = {k: [] for k in bases}
    clients = {k: httpx.Client(timeout=120) for k in bases}
    try:
        for k, base in bases.items():  # the page load: each client's cookie, then warm spares
            clients[k].get(f"{base}/")
            for n in range(3):
                clients[k].post(f"{base}/api/run", json=_unique(body, f"warm {n}")).raise_for_status()
        for n in range(repeat):
            for k, base in bases.items():
                t0 = time.perf_counter()
                r = clients[k].post(f"{base}/api/run", json=_unique(body, f"{n} {time.time_ns()}"))
                times[k].append(time.perf_counter() - t0)
                r.raise_for_status()
    finally:
        for c in clients.values():
            c.close()
    return times


def _unique(body: dict, tag: str) -> dict:
    return dict(body, source=f"{body['source']}\n# request {tag}\n")


# How the concurrent clients reach the server: like students' browsers, each keeps its cookie and
# waits as long as a 503's Retry-After says before it sends again.
CLASSES = {"one address": False,  # a class behind one NAT address
           "own addresses": True}  # each student's machine from its own loopback address


async def _throughput(ports: dict[str, int], clients: int, seconds: float, rounds: int) -> dict:
    """Per way of reaching the server (``CLASSES``) and server: answered requests per second (the
    median round) and 503s (all rounds), rounds alternating between the servers."""
    rates = {c: {k: [] for k in ports} for c in CLASSES}
    busy = {c: dict.fromkeys(ports, 0) for c in CLASSES}
    for port in ports.values():
        await drive(port, SMALL, 4, 1.0)
    for _ in range(rounds):
        for c, spread in CLASSES.items():
            for k, port in ports.items():
                r = await drive(port, SMALL, clients, seconds, honest=True, spread=spread)
                assert r["errors"] == 0, r
                rates[c][k].append(r["n"] / r["seconds"])
                busy[c][k] += r["busy"]
    return {c: ({k: statistics.median(v) for k, v in rates[c].items()}, busy[c]) for c in CLASSES}


def compare(revs: list[str], repeat: int = 41, clients: int = 16, seconds: float = 4.0,
            rounds: int = 3) -> dict:
    """Print and return the three same-run ratios of today's server to the first of ``revs``'s (the
    others, e.g. the commit before a change, are measured in the same rounds and printed too)."""
    rev = revs[0]
    with side_by_side(revs) as servers:
        bases = {k: base for k, (_, base) in servers.items()}
        health = httpx.get(f"{bases['today']}/api/health").json()
        small = _latencies(bases, SMALL, repeat)
        mlp = _latencies(bases, MLP50, max(5, repeat // 2))
        ports = {k: int(b.rsplit(":", 1)[1]) for k, b in bases.items()}
        rates = asyncio.run(_throughput(ports, clients, seconds, rounds))
    med = statistics.median
    rows = [("small expression, median ms", {k: med(v) * 1e3 for k, v in small.items()}, "<= 1.5x"),
            ("50-step MLP, median ms", {k: med(v) * 1e3 for k, v in mlp.items()}, "<= 1.2x")]
    for c, (served, refused) in rates.items():
        rows.append((f"{clients} clients, {c}, req/s", served, ">= 1.0x"))
        rows.append((f"  503s in {rounds} rounds", refused, ""))
    print(f"today's server (layers: {health.get('sandbox', health)}) against {rev}, same run; "
          f"each ratio: that server's figure over {rev}'s")
    names = list(servers)[1:] + ["today"]
    print(f"{'work':<34}" + "".join(f"{k[:12]:>13}" for k in names) + "".join(
        f"{'/' + k[:10]:>12}" for k in names[1:]) + "   target")
    out = {}
    for label, figures, target in rows:
        if not target:  # counts: no ratio
            print(f"{label:<34}" + "".join(f"{figures[k]:>13d}" for k in names))
            continue
        ratios = [figures[k] / figures[rev] for k in names[1:]]
        out[label] = ratios[-1]
        print(f"{label:<34}" + "".join(f"{figures[k]:>13.1f}" for k in names)
              + "".join(f"{r:>11.2f}x" for r in ratios) + f"   {target}")
    return out


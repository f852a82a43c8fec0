"""CPU time per small request, today's server against an earlier commit's, read from /proc: robust
to a busy machine where wall-clock throughput is not (on 2 cores, throughput is bounded by the CPU
each request costs).

Each server serves the small expression of benchmarks/baseline.py, every program unique, from
``--clients`` clients each at its own loopback address with its cookie, rounds alternating between
the servers. Around each round the CPU time of every process under the server is read from
/proc/<pid>/stat (utime + stime, and cutime + cstime for the children it reaped), and split by
process: the server itself (HTTP, admission, reading and checking answers, drawing), what the
server reaped (``dot``, the sandbox's launcher), the sandbox's live processes (the template and
its forks, the spares and kept workers so far; an earlier commit's reused workers) and the workers
the template reaped (a worker's setup, its runs and serializing, its exit). A worker that ends
during a round moves from the one to the other, so only the sum of the two is that round's.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_cpu.py --baseline 3283045 [--baseline REV]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.baseline import SMALL, side_by_side  # noqa: E402
from benchmarks.bench_load import drive  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, list[str]] | None:
    """(parent pid, the fields after the command name) of ``pid``, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), fields


def _role(pid: int, root: int) -> str:
    if pid == root:
        return "server"
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "other"
    if b"sandbox.template" in cmd or b"app.worker" in cmd or b"multiprocessing" in cmd:
        return "template"  # with its forks, which keep its command line
    return "other"


def tree_cpu(root: int) -> dict[str, float]:
    """CPU seconds so far of ``root`` and every process under it, by role: each process's own time,
    and what the processes it reaped used (a worker the template reaped counts as "workers")."""
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            got = _stat(int(entry))
            if got is not None:
                stats[int(entry)] = got
    under, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _) in stats.items():
            if ppid == parent and pid not in under:
                under.add(pid)
                frontier.append(pid)
    out: dict[str, float] = {}
    for pid in under:
        if pid not in stats:
            continue
        fields = stats[pid][1]
        own = (int(fields[11]) + int(fields[12])) / TICK
        reaped = (int(fields[13]) + int(fields[14])) / TICK
        role = _role(pid, root)
        out[role] = out.get(role, 0.0) + own
        kids = {"server": "server's children", "template": "reaped workers"}.get(role, "other")
        out[kids] = out.get(kids, 0.0) + reaped
    return out


def _round(proc, port: int, clients: int, seconds: float) -> tuple[int, dict[str, float]]:
    before = tree_cpu(proc.pid)
    r = asyncio.run(drive(port, SMALL, clients, seconds, honest=True, spread=True))
    after = tree_cpu(proc.pid)
    assert r["errors"] == 0, r
    return r["n"], {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", action="append", help="an earlier commit (repeat: several)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    revs = args.baseline or ["3283045"]
    with side_by_side(revs) as servers:
        ports = {k: int(b.rsplit(":", 1)[1]) for k, (_, b) in servers.items()}
        for k, (proc, _) in servers.items():  # start-up, first forks, layout cache of the shape
            _round(proc, ports[k], args.clients, 1.0)
        per: dict[str, list[dict[str, float]]] = {k: [] for k in servers}
        for _ in range(args.rounds):
            for k, (proc, _) in servers.items():
                n, used = _round(proc, ports[k], args.clients, args.seconds)
                per[k].append({role: s * 1e3 / max(1, n) for role, s in used.items()} | {"n": n})
    load = os.getloadavg()[0]
    print(f"CPU ms per small request (medians of {args.rounds} rounds of {args.seconds:g} s, "
          f"{args.clients} clients; load average {load:.1f})")
    roles = ["server", "server's children", "template", "reaped workers", "other"]
    print(f"{'server':<12}{'requests':>9}" + "".join(f"{r[:14]:>16}" for r in roles) + f"{'total':>10}")
    for k, rounds in per.items():
        med = {r: statistics.median(x.get(r, 0.0) for x in rounds) for r in roles}
        total = statistics.median(sum(x.get(r, 0.0) for r in roles) for x in rounds)
        n = statistics.median(x["n"] for x in rounds)
        print(f"{k:<12}{n:>9.0f}" + "".join(f"{med[r]:>16.2f}" for r in roles) + f"{total:>10.2f}")


if __name__ == "__main__":
    main()

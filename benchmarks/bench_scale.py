"""Large graphs end to end: POST /api/run time as a multiple of `dot` alone on a 300-node plain
chain, the answer's size, and whether a drawing came back, in one run.

Starts the real server (`python -m app` on a free port, BLAS on one thread). The yardstick is
`dot -Tsvg` on the DOT text the app writes for a 300-op tanh chain (no folding, no ghosts: what a
plain chain costs to lay out on this machine). Each case runs cold (a fresh variable name each
time, in letters, so no layout is in the cache), warm (the same program with a comment added: it runs again,
its layouts come from the cache) and again (the same request once more: its answer comes from the
shared cache, as for a class running one example), interleaved with the yardstick; medians are
printed.

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_scale.py [--repeat N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from benchmarks.local_server import start_server  # noqa: E402

SHARED = """
{name} = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range({steps}):
    h = torch.tanh(h * {name})
h.backward()
"""

RNN = """
torch.manual_seed(0)
{name} = torch.randn(4, 4, requires_grad=True)
U = torch.randn(4, 4, requires_grad=True)
xs = torch.randn({steps}, 4)
h = torch.zeros(4)
for t in range({steps}):
    h = torch.tanh({name} @ h + U @ xs[t])
loss = h.sum()
loss.backward()
"""

MLP = """
torch.manual_seed(0)
layers = []
for i in range(100):
    layers.append(nn.Linear(8, 8))
    layers.append(nn.ReLU())
model = nn.Sequential(*layers)
{name} = torch.randn(4, 8)
loss = model({name}).pow(2).mean()
loss.backward()
"""

ATTENTION = """
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ff1 = nn.Linear(d, 2 * d)
        self.ff2 = nn.Linear(2 * d, d)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        att = torch.softmax(q @ k.transpose(0, 1) / 2.0, dim=-1)
        x = x + self.o(att @ v)
        x = (x - x.mean(dim=-1, keepdim=True)) / (x.var(dim=-1, keepdim=True) + 1e-5).sqrt()
        return x + self.ff2(F.relu(self.ff1(x)))


blocks = nn.Sequential(*[Block(4) for _ in range({blocks})])
{name} = torch.randn(6, 4)
loss = blocks({name}).pow(2).mean()
loss.backward()
"""

TRAIN = """
torch.manual_seed(0)
{name} = torch.randn(32, 4)
y = torch.randn(32, 1)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = optim.SGD(model.parameters(), lr=0.05)
for step in range(1000):
    opt.zero_grad()
    loss = F.mse_loss(model({name}), y)
    loss.backward()
    opt.step()
"""

CASES = {
    "shared weight, 300 steps": SHARED.replace("{steps}", "300"),
    "RNN 4x4, 250 steps": RNN.replace("{steps}", "250"),
    "MLP, 100 layers": MLP,
    "attention, 4 blocks": ATTENTION.replace("{blocks}", "4"),
    "training loop, 1000 its": TRAIN,
    "5,000 ops (RNN)": RNN.replace("{steps}", "1000"),
    "10,000 ops (attention)": ATTENTION.replace("{blocks}", "384"),
    "20,000 ops (shared)": SHARED.replace("{steps}", "9999"),
}


def fresh_name(k: int) -> str:
    """A variable name of its own for the k-th cold run of this process, in letters (a drawing's
    digits are laid out as zeros, so names that differ only in digits share a layout)."""
    return "v" + "".join(chr(ord("a") + int(d)) for d in f"{k}{os.getpid()}")


def post(client: httpx.Client, base: str, source: str) -> tuple[float, dict, int]:
    t0 = time.perf_counter()
    r = client.post(f"{base}/api/run", json={"source": source})
    elapsed = time.perf_counter() - t0
    if r.status_code >= 400:  # say why (a limit the program hit), not only the status
        raise SystemExit(f"POST /api/run answered {r.status_code}: {r.text[:500]}")
    return elapsed, r.json(), len(r.content)


def plain_chain_dot() -> str:
    """The DOT text the app writes for a 300-op tanh chain drawn in one piece (no loop: the chain
    as a program without one would record it)."""
    from app.drawing.layout import LayoutSettings
    from app.drawing.unit_dot import write_dot
    from app.drawing.units import plan_units
    from app.folding.level import level

    nodes = {0: {"kind": "leaf", "name": "x", "shape": [], "requires_grad": True, "is_param": False,
                 "is_output": False, "is_saved": True, "is_constant": False, "var": "x", "module": None}}
    edges = {}
    for i in range(1, 301):
        nodes[i] = {"kind": "op", "name": "TanhBackward0", "shape": [], "requires_grad": True,
                    "is_param": False, "is_output": i == 300, "is_saved": True, "is_constant": False,
                    "var": "h", "module": None}
        edges[i - 1] = {"source": i - 1, "target": i, "shape": [], "needs_grad": True}
    lv = level(nodes, edges, {}, list(nodes), list(edges), [])
    (unit,) = plan_units(nodes, edges, {}, lv)
    write_dot(unit, nodes, {}, {}, legend=True, max_lr_depth=24, nslimit_from=LayoutSettings().nslimit_from,
              neutral=False)
    return unit.dot


def fastest_of_3(source: str, torch_module, paused=contextlib.nullcontext) -> float:
    """The fastest of 3 runs of ``source`` as plain Python with ``torch_module`` as ``torch`` (and
    its ``nn``, ``F``, ``optim``), each inside ``paused()``. The sources are this file's own cases."""
    code = compile(source, "<case>", "exec")
    best = float("inf")
    for _ in range(3):
        names = {"torch": torch_module, "nn": torch_module.nn, "F": torch_module.nn.functional,
                 "optim": torch_module.optim}
        with paused():
            t0 = time.perf_counter()
            exec(code, names)  # noqa: S102 - the benchmark's own program text
            best = min(best, time.perf_counter() - t0)
        names.clear()
    return best


def torch_alone(source: str) -> float | None:
    """Real PyTorch running the same program in this process (CPU, one thread; the fastest of 3):
    what the program itself costs, before anything is recorded, drawn or sent. None without torch."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return fastest_of_3(source, torch)


def engine_alone(source: str) -> float:
    """The engine running the same program as plain Python in this process (``import engine as
    torch``; no runner, no recording, nothing drawn or sent; the fastest of 3, the garbage collector
    paused as the runner pauses it): the floor of any answer gradviz gives."""
    import engine
    from engine.gcpause import gc_paused

    return fastest_of_3(source, engine, gc_paused)


def dot_alone(text: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(["dot", "-Tsvg"], input=text.encode(), capture_output=True, check=True)
    return time.perf_counter() - t0


def drawn(body: dict) -> tuple[bool, int]:
    """Whether every view came back drawn, and the elements drawn in the first view."""
    ok = all(v["undrawn"] is None and "<g id=" in v["svg"] for v in body["views"])
    svg = body["views"][0]["svg"] if body["views"] else ""
    return ok, svg.count('class="node"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--case", default="", help="only the cases whose label contains this text")
    args = parser.parse_args()
    cases = {label: text for label, text in CASES.items() if args.case in label}
    proc, base = start_server()
    rows = []
    try:
        with httpx.Client(timeout=120) as client:
            yardstick = plain_chain_dot()
            dots = [dot_alone(yardstick) for _ in range(3)]
            for label, template in cases.items():
                post(client, base, template.format(name="warm_up"))  # start-up, imports
                cold, warm, again, size, ok, nodes, timings = [], [], [], 0, True, 0, []
                for k in range(args.repeat):
                    source = template.format(name=fresh_name(k))
                    t, body, size = post(client, base, source)
                    assert body["error"] is None, body["error"]
                    cold.append(t)
                    timings.append(body["timings"])
                    good, nodes = drawn(body)
                    ok = ok and good
                    warm.append(post(client, base, source + "# again\n")[0])
                    again.append(post(client, base, source)[0])
                    dots.append(dot_alone(yardstick))
                med = statistics.median
                parts = {k: med(t[k] for t in timings) for k in ("run", "serialize", "layout")}
                own = torch_alone(template.format(name="x"))
                bare = engine_alone(template.format(name="x"))
                rows.append((label, med(cold), med(warm), med(again), size, ok, nodes, parts, own, bare))
    finally:
        proc.terminate()
        proc.wait(timeout=15)

    dot = statistics.median(dots)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"POST /api/run end to end vs `dot -Tsvg` alone on a 300-node plain chain ({dot * 1000:.0f} ms); "
          f"medians of {args.repeat}, {os.cpu_count()} cores, load average {load:.1f}")
    print("torch/dot: real PyTorch running the same program, nothing recorded or drawn (what the program "
          "itself costs); engine/dot: gradviz's engine running it as plain Python, no runner, no recording")
    print(f"{'case':<26} {'cold/dot':>9} {'warm/dot':>9} {'again/dot':>9} {'torch/dot':>9}"
          f" {'engine/dot':>10} {'cold s':>7} {'answer bytes':>13} {'drawn':>6} {'nodes':>6}"
          f"   {'run':>6} {'serial.':>7} {'layout':>6}")
    for label, cold, warm, again, size, ok, nodes, p, own, bare in rows:
        own_text = f"{own / dot:>8.1f}x" if own is not None else f"{'-':>9}"
        print(f"{label:<26} {cold / dot:>8.1f}x {warm / dot:>8.1f}x {again / dot:>8.2f}x {own_text}"
              f" {bare / dot:>9.1f}x"
              f" {cold:>7.3f} {size:>13,}"
              f" {'yes' if ok else 'NO':>6} {nodes:>6}"
              f"   {p['run']:>6.3f} {p['serialize']:>7.3f} {p['layout']:>6.3f}")


if __name__ == "__main__":
    main()

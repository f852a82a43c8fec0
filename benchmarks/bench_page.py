"""Page speed in headless Chromium (Playwright, performance.now() inside the page).

For the MLP example, a 300-step tanh chain and a 1,000-op chain it prints:
- run → drawn: from pressing Run (POST /api/run included) until the graph is in the DOM and laid
  out by the browser (forced style + layout, then the next animation frame);
- one step: the time to move the timeline one frame and have the browser recompute style and
  layout (forced synchronously), median and 95th percentile over every frame, forwards.

Usage: .venv/bin/python benchmarks/bench_page.py [--base-url http://127.0.0.1:8000] [--repeat 3]
Without --base-url it starts `python -m app` on a free port and stops it at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.local_server import launch_chromium, start_server, stop_server  # noqa: E402


def chain(n: int) -> str:
    return ("x = torch.tensor([0.5], requires_grad=True)\ny = x\n"
            f"for i in range({n}):\n    y = torch.tanh(y)\ny.sum().backward()\n")


MEASURE_RUN = """async () => {
  const { emit, once, state } = await import('/static/js/state.js');
  const done = new Promise((r) => once('run-end', r));
  const t0 = performance.now();
  emit('rerun');
  await done;
  document.querySelector('[data-testid=graph]').getBoundingClientRect();
  await new Promise((r) => requestAnimationFrame(() => r()));
  const t1 = performance.now();
  const tl = state.timeline;
  return { ms: t1 - t0, frames: tl ? tl.length : 0, nodes: tl ? tl.nodes.size : 0,
           drawn: document.querySelectorAll('[data-testid=graph] g.node').length,
           error: state.response ? state.response.error : 'request failed',
           server: state.response ? state.response.timings : null };
}"""

MEASURE_STEPS = """async () => {
  const { emit, state } = await import('/static/js/state.js');
  const host = document.querySelector('[data-testid=graph]');
  const times = [];
  emit('goto', 0);
  for (let k = 1; k < state.timeline.length; k++) {
    const t0 = performance.now();
    emit('goto', k);
    host.getBoundingClientRect();      // style + layout now, not later
    document.body.offsetHeight;
    times.push(performance.now() - t0);
  }
  return times;
}"""


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    proc = None
    base = args.base_url
    if not base:
        proc, base = start_server()
    try:
        examples = httpx.get(f"{base}/api/examples", timeout=30).json()
        mlp = next((e for e in examples if "mlp" in e["id"].lower()), None)
        cases = []
        if mlp:
            cases.append(("MLP example", mlp["source"]))
        cases += [("tanh chain, 300 steps", chain(300)), ("tanh chain, 1000 steps", chain(1000))]
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(base + "/")
            idle = "() => document.querySelector('main.layout').getAttribute('aria-busy') === 'false'"
            page.wait_for_function(idle, timeout=60_000)
            print(f"{'case':26} {'nodes':>6} {'frames':>6} {'run→drawn ms':>14} {'server ms':>10} "
                  f"{'step median ms':>15} {'step p95 ms':>12} {'step max ms':>12}")
            for name, source in cases:
                page.evaluate("(s) => { document.querySelector('[data-testid=source]').value = s; }", source)
                runs, steps = [], []
                info = None
                for _ in range(args.repeat):
                    info = page.evaluate(MEASURE_RUN)
                    runs.append(info["ms"])
                    steps += page.evaluate(MEASURE_STEPS)
                if info["error"]:
                    print(f"{name:26} error: {info['error']}")
                    continue
                server = sum((info["server"] or {}).values()) * 1000
                print(f"{name:26} {info['nodes']:>6} {info['frames']:>6} {statistics.median(runs):>14.1f} "
                      f"{server:>10.1f} {statistics.median(steps):>15.2f} {pct(steps, 0.95):>12.2f} "
                      f"{max(steps):>12.2f}")
            browser.close()
    finally:
        stop_server(proc)


if __name__ == "__main__":
    main()

"""The page with large graphs, in headless Chromium (Playwright; times by performance.now() inside
the page, memory by the DevTools protocol after a garbage collection).

- 20,000 ops at the "auto" level: run → drawn, the JS heap, and one step (median, p95) over
  frames spread across the whole run (forward ops and backward steps inside a closed loop);
- about 10,000 drawn nodes (a 10,000-op loop at the "op" level): mounting it, and one step;
  a step is timed to the end of the browser's style and layout (forced); "painted" times a few
  steps to the second animation frame after them (their paint included; at least two frames of
  ~16.7 ms each); "in doc" counts the node elements in the document (a large drawing keeps those
  far from the view out of it); then the same drawing with Fit pressed (the whole drawing in view,
  as a teacher projects it), its steps timed the same way; with --trace DIR a DevTools performance
  trace of painted steps at each view is written there and summed by what the browser did (style,
  layout, paint, script...), per step;
- opening a closed box (a 250-step RNN's loop, then one chunk of iterations; the 20,000-op loop,
  then a chunk): the request (the program runs again in a worker, or the shared cache answers), the
  redraw (the page's own figure, state.lastOpen.draw: from the answer to the new drawing set up)
  and "shown" (from the answer to the second animation frame after it, its layout and paint
  included); with --repeat N the chunk is closed and opened again, and the medians of N are printed
  too (closing it: the drawing without the chunk); each of those waits until the server runs
  nothing (the work it does ahead shares this machine's two cores with the page).

Usage: .venv/bin/python benchmarks/bench_page_scale.py [--base-url http://127.0.0.1:8000]
       [--only steps|fit|open] [--repeat N] [--trace DIR]
Without --base-url it starts `python -m app` on a free port and stops it at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_scale import CASES, RNN, SHARED  # noqa: E402
from benchmarks.local_server import launch_chromium, start_server, stop_server  # noqa: E402

IDLE = "() => document.querySelector('main.layout').getAttribute('aria-busy') === 'false'"

RUN = """async ([source, fold]) => {
  const { emit, once, state } = await import('/static/js/state.js');
  document.querySelector('[data-testid=source]').value = source;
  if (fold !== state.fold) { state.fold = fold; }
  const done = new Promise((r) => once('run-end', r));
  const t0 = performance.now();
  emit('rerun');
  await done;
  document.querySelector('[data-testid=graph]').getBoundingClientRect();
  await new Promise((r) => requestAnimationFrame(() => r()));
  const svg = document.querySelector('[data-testid=graph] svg');
  const all = svg && svg.gvElements ? [...svg.gvElements()].filter((g) => g.classList.contains('node')).length
    : document.querySelectorAll('[data-testid=graph] g.node').length;
  return { ms: performance.now() - t0, frames: state.timeline ? state.timeline.length : 0,
           drawn: all, indoc: document.querySelectorAll('[data-testid=graph] g.node').length,
           bytes: JSON.stringify(state.response).length,
           error: state.response ? state.response.error : 'failed',
           undrawn: state.response ? state.response.views.map((v) => v.undrawn).filter(Boolean) : [] };
}"""

STEPS = """async (count) => {
  const { emit, state } = await import('/static/js/state.js');
  const host = document.querySelector('[data-testid=graph]');
  const n = state.timeline.length;
  const times = [];
  // runs of ten consecutive steps, spread over the whole timeline
  const runs = Math.max(1, Math.floor(count / 10));
  for (let r = 0; r < runs; r++) {
    const start = Math.floor((r * (n - 12)) / runs);
    emit('goto', start);
    host.getBoundingClientRect(); // (the jump there is not a step: its style and layout are not counted)
    document.body.offsetHeight;
    for (let k = start + 1; k <= start + 10 && k < n; k++) {
      const t0 = performance.now();
      emit('goto', k);
      host.getBoundingClientRect();
      document.body.offsetHeight;
      times.push(performance.now() - t0);
    }
  }
  return times;
}"""

OPEN = """async ([part, close]) => {
  const { emit, once, state } = await import('/static/js/state.js');
  const done = new Promise((r) => once('relayout', r));
  const t0 = performance.now();
  emit(close ? 'close-part' : 'open-part', state.timeline.frames[state.frame].view, part);
  await done;
  document.querySelector('[data-testid=graph]').getBoundingClientRect();
  await new Promise((r) => requestAnimationFrame(() => r()));
  const total = performance.now() - t0;
  const svg = document.querySelector('[data-testid=graph] svg');
  const all = svg && svg.gvElements ? [...svg.gvElements()].filter((g) => g.classList.contains('node')).length
    : document.querySelectorAll('[data-testid=graph] g.node').length;
  const { fetch, draw } = state.lastOpen;
  return { total, fetch, draw, redraw: total - fetch, drawn: all,
           parts: state.response.parts.map((p) => [p.id, p.kind, p.parent]) };
}"""


PAINTED = """async (count) => {
  const { emit, state } = await import('/static/js/state.js');
  const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
  const n = state.timeline.length;
  const times = [];
  const runs = Math.max(1, Math.floor(count / 5));
  for (let r = 0; r < runs; r++) {
    const start = Math.floor((r * (n - 7)) / runs);
    emit('goto', start);
    await raf(); await raf(); await new Promise((ok) => setTimeout(ok, 300));
    for (let k = start + 1; k <= start + 5 && k < n; k++) {
      await raf();
      const t0 = performance.now();
      emit('goto', k);
      await raf(); await raf();
      times.push(performance.now() - t0);
    }
  }
  return times;
}"""

FIT = """async () => {
  document.querySelector('#fit').click();
  const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
  await raf(); await raf();
  return document.querySelectorAll('[data-testid=graph] g.node').length;
}"""

# Go to the frame at `at` (a share of the timeline) and wait until the page is quiet again.
SETTLE = """async (at) => {
  const { emit, state } = await import('/static/js/state.js');
  emit('goto', Math.floor(at * (state.timeline.length - 40)));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await new Promise((r) => setTimeout(r, 500));
}"""

# `count` steps forward in a row, each until painted; how many were taken.
IN_A_ROW = """async (count) => {
  const { emit, state } = await import('/static/js/state.js');
  const raf = () => new Promise((r) => requestAnimationFrame(() => r()));
  for (let i = 0; i < count; i++) {
    emit('goto', state.frame + 1);
    await raf(); await raf();
  }
  return count;
}"""

PARTS = """async () => (await import('/static/js/state.js')).state.response.parts
  .map((p) => [p.id, p.kind, p.parent])"""


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


# What the renderer's main thread spent its time on (DevTools trace event names), and under which name.
TRACE_KINDS = {
    "UpdateLayoutTree": "style", "Layout": "layout", "PrePaint": "pre-paint", "Paint": "paint",
    "Layerize": "layerize", "UpdateLayer": "layerize", "Commit": "commit", "HitTest": "hit test",
    "FunctionCall": "script", "EvaluateScript": "script", "v8.evaluateModule": "script",
    "TimerFire": "script", "FireAnimationFrame": "script", "MinorGC": "gc", "MajorGC": "gc",
}


def traced(browser, page, path: Path, steps: int) -> dict[str, float]:
    """Milliseconds per painted step the renderer's main thread spent on each kind of work (a
    DevTools trace of `steps` painted steps in a row, written to `path`); "all" is every top-level
    task, the animation of the current node's glow included."""
    import json

    # the steps in a row from a frame in the middle of the backward pass, after a jump there settled
    page.evaluate(SETTLE, 0.6)
    browser.start_tracing(page=page, path=str(path), categories=[
        "devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "v8"])
    n = page.evaluate(IN_A_ROW, steps)
    browser.stop_tracing()
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    out: dict[str, float] = {}
    spans: dict[str, list[tuple[float, float]]] = {}
    for e in events:
        if (e.get("pid"), e.get("tid")) not in main or e.get("ph") != "X":
            continue
        top = e["name"] in ("RunTask", "ThreadControllerImpl::RunTask")
        kind = "all" if top else TRACE_KINDS.get(e["name"])
        if kind:
            spans.setdefault(kind, []).append((e["ts"], e["ts"] + e.get("dur", 0)))
    for kind, xs in spans.items():
        # nested events of one kind (a function call inside another) count once
        xs.sort()
        total, end = 0.0, -1.0
        for a, b in xs:
            if b > end:
                total += b - max(a, end)
                end = b
        out[kind] = total / 1000 / max(1, n)
    return out


def idle(base: str, timeout_s: float = 60.0) -> None:
    """Wait until the server runs nothing (the boxes it opens ahead are done): a repeated opening
    times the page alone, not the page sharing this machine's cores with the server's workers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pool = httpx.get(f"{base}/api/health", timeout=5).json()["pool"]
        if not pool["running"] and not pool["queued"]:
            return
        time.sleep(0.1)


def heap_mb(page) -> float:
    cdp = page.context.new_cdp_session(page)
    cdp.send("HeapProfiler.collectGarbage")
    used = cdp.send("Runtime.getHeapUsage")["usedSize"]
    cdp.detach()
    return used / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url")
    ap.add_argument("--steps", type=int, default=400, help="steps timed per case")
    ap.add_argument("--only", choices=["steps", "fit", "open"],
                    help="steps or open: one half only; fit: the 10,000-op drawing, at its start and Fit")
    ap.add_argument("--trace", type=Path, help="write DevTools traces of painted steps into this folder")
    ap.add_argument("--repeat", type=int, default=1, help="times each chunk is opened (and closed)")
    args = ap.parse_args()
    proc = None
    base = args.base_url
    if not base:
        proc, base = start_server()
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = launch_chromium(p)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(base + "/")
            page.wait_for_function(IDLE, timeout=60_000)
            base_heap = heap_mb(page)
            print("case                                   drawn  in doc  frames  run→drawn ms  heap MB  "
                  "step median ms  step p95 ms  painted median ms  painted p95 ms")
            cases = [
                ("20,000 ops, auto", CASES["20,000 ops (shared)"].format(name="w"), "auto"),
                ("10,000 ops, op level", SHARED.replace("{steps}", "4999").format(name="w"), "op"),
            ]
            traces = {}
            for label, source, fold in {"open": [], "fit": cases[1:]}.get(args.only, cases):
                info = page.evaluate(RUN, [source, fold])
                assert not info["error"], info["error"]
                if not info["drawn"]:  # e.g. the layout ran out of time on a busy machine
                    raise SystemExit(f"{label}: not drawn ({', '.join(info['undrawn']) or 'no drawing'})")
                heap = heap_mb(page)
                views = [(label, None)] + ([(label + ", Fit", FIT)] if fold == "op" else [])
                for name, press in views:
                    if press:
                        info["indoc"] = page.evaluate(press)
                    steps = page.evaluate(STEPS, args.steps)
                    painted = page.evaluate(PAINTED, 40)
                    print(f"{name:38} {info['drawn']:>6} {info['indoc']:>7} {info['frames']:>7} "
                          f"{info['ms']:>13.0f} {heap:>8.1f} "
                          f"{statistics.median(steps):>15.2f} {pct(steps, 0.95):>12.2f} "
                          f"{statistics.median(painted):>18.1f} {pct(painted, 0.95):>15.1f}")
                    if args.trace:
                        args.trace.mkdir(parents=True, exist_ok=True)
                        slug = name.replace(",", "").replace(" ", "-")
                        traces[name] = traced(browser, page, args.trace / f"{slug}.json", 20)
            print(f"(the page's heap before any run: {base_heap:.1f} MB)")
            if traces:
                kinds = ["all", "script", "style", "layout", "pre-paint", "paint", "layerize", "commit",
                         "hit test", "gc"]
                print()
                print("per painted step, main thread ms     " + "".join(f"{k:>10}" for k in kinds))
                for name, spent in traces.items():
                    print(f"{name:38}" + "".join(f"{spent.get(k, 0):>10.2f}" for k in kinds))
            if args.only in ("steps", "fit"):
                browser.close()
                return
            print()
            medians = "  redraw median  shown median  closing: redraw median" if args.repeat > 1 else ""
            print("opening a box                          drawn after  request ms  redraw ms  shown ms"
                  "  total ms" + medians)
            for label, source, path in [
                ("RNN 4x4, 250 steps", RNN.replace("{steps}", "250").format(name="W"), ["loop", "chunk"]),
                ("20,000 ops", CASES["20,000 ops (shared)"].format(name="w2"), ["loop", "chunk"]),
            ]:
                page.evaluate(RUN, [source, "auto"])
                opened = None
                for what in path:
                    parts = page.evaluate(PARTS)
                    if what == "loop":
                        target = next(pid for pid, kind, _ in parts if kind == "loop")
                    else:
                        target = next(pid for pid, kind, up in parts if kind == "chunk" and up == opened)
                    r = page.evaluate(OPEN, [target, False])
                    opened = target
                    line = (f"{label + ': ' + what:38} {r['drawn']:>11} {r['fetch']:>11.0f}"
                            f" {r['draw']:>10.0f} {r['redraw']:>9.0f} {r['total']:>9.0f}")
                    if args.repeat > 1 and what == "chunk":
                        draws, shown, closes = [r["draw"]], [r["redraw"]], []
                        for _ in range(args.repeat - 1):
                            idle(base)
                            closes.append(page.evaluate(OPEN, [target, True])["draw"])
                            idle(base)
                            again = page.evaluate(OPEN, [target, False])
                            draws.append(again["draw"])
                            shown.append(again["redraw"])
                        line += (f" {statistics.median(draws):>14.0f} {statistics.median(shown):>13.0f}"
                                 f" {statistics.median(closes):>22.0f}")
                    print(line)
            browser.close()
    finally:
        stop_server(proc)


if __name__ == "__main__":
    main()

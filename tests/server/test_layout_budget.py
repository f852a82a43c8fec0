"""Drawing fits the request's time budget: ``dot`` runs are bounded in number and killed at the
budget, and the answer says which views were not drawn and why."""

from __future__ import annotations

import threading
import time

from fastapi.testclient import TestClient

from app.drawing import layout
from app.main import create_app
from app.settings import AppSettings

# A random-looking graph (2,100 nodes with long cross edges): ``dot`` needs seconds to lay out the
# loop's chunks of iterations ("op": every part open). Folded ("auto"), it is one box.
TANGLE = """xs = [torch.tensor(1.0, requires_grad=True) for _ in range(30)]
vals = list(xs)
for i in range(700):
    a = vals[(i * 7919) % len(vals)]
    b = vals[(i * 104729) % len(vals)]
    vals.append(a * b + 1)
"""


def test_a_layout_past_the_budget_is_cut_and_the_answer_says_so():
    # the drawing's share of the budget counts from the end of the run, however long the run took:
    # the folded run spends longer than the whole budget counting (no op recorded), its one box is
    # drawn in a small share of it, even on a busy machine
    app = create_app(AppSettings(pool_workers=1, run_timeout_s=20.0, layout_budget_s=0.5))
    with TestClient(app) as client:
        # a loop that runs about 1.5 s at the machine's speed now (measured: a loaded machine runs it
        # several times slower), past the drawing's budget, within the runner's 5 s and under its
        # 100,000 loop iterations
        loop = "t = 0\nfor i in range({n}):\n    t = (t + i * 3 - 1) % 7 + (i // 2) % 5 - (i % 3) * 2\n"
        probe = client.post("/api/run", json={"source": loop.format(n=20_000)}).json()["timings"]["run"]
        slow = loop.format(n=max(20_000, min(90_000, int(20_000 * 1.5 / probe)))) + TANGLE
        folded = client.post("/api/run", json={"source": slow})
        assert folded.status_code == 200, folded.text
        assert folded.json()["error"] is None, folded.json()["error"]  # the tangle ran and was recorded
        assert folded.json()["timings"]["run"] > 0.5 and folded.json()["views"][0]["undrawn"] is None
        layout.CACHE.clear()
        r = client.post("/api/run", json={"source": TANGLE, "fold": "op"})
        assert r.status_code == 200, r.text
        view = r.json()["views"][0]
        assert view["undrawn"] == "time_budget", (r.json()["timings"], view["open"])
        assert "time budget" in view["svg"]
        client.app.state.settings.layout_budget_s = 8.0  # (a small drawing's own share, on a busy machine)
        small = client.post("/api/run", json={"source": "y = torch.ones(2, requires_grad=True) * 3"})
        assert small.json()["views"][0]["undrawn"] is None  # the next request draws as usual


def test_dot_runs_are_bounded_in_number(monkeypatch):
    running, peak = [0], [0]
    lock = threading.Lock()

    def slow_render(dot: str, timeout_s: float) -> str:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return "<svg/>"

    monkeypatch.setattr(layout, "render", slow_render)
    slots = layout.DotSlots(2)
    deadline = time.monotonic() + 30
    threads = [threading.Thread(target=slots.run, args=("digraph {}", deadline)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert peak[0] == 2


def test_waiting_for_a_dot_slot_counts_against_the_budget(monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(layout, "render", lambda dot, timeout_s: release.wait(30) and "<svg/>")
    slots = layout.DotSlots(1)
    holder = threading.Thread(target=slots.run, args=("digraph {}", time.monotonic() + 30))
    holder.start()
    time.sleep(0.05)
    try:
        try:
            slots.run("digraph {}", time.monotonic() + 0.1)
            raise AssertionError("a run waited past its deadline")
        except layout.subprocess.TimeoutExpired:
            pass
    finally:
        release.set()
        holder.join(30)

"""The page's plain-logic modules, tested with node's own test runner: every tests/js/*.test.mjs file in
one ``node --test`` run. The examples' real answers are fetched from the server first, so the walk
through every frame of every example runs on what the page really receives; so are a folded loop's
answer and what POST /api/open answers as its boxes are opened and closed (in ``opened/``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

HERE = Path(__file__).parent

# A loop folded into a box of chunks of iterations (a chunk holds a few hundred nodes).
FOLDED = """torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
U = torch.randn(4, 4, requires_grad=True)
xs = torch.randn(250, 4)
h = torch.zeros(4)
for t in range(250):
    h = torch.tanh(W @ h + U @ xs[t])
loss = h.sum()
loss.backward()
"""


def write_openings(server, out: Path) -> None:
    """The folded loop's answer, then the answers to opening its box, two chunks, closing one, and
    closing the box again (each with the parts the page would ask for), as one JSON file."""
    run = httpx.post(f"{server}/api/run", json={"source": FOLDED, "fold": "auto"}, timeout=120)
    assert run.status_code == 200, run.text[:300]
    run = run.json()
    loop = next(p["id"] for p in run["parts"] if p["kind"] == "loop")
    opens = []

    def ask(open_):
        body = {"source": FOLDED, "view": 0, "open": open_, "fingerprint": run["fingerprint"]}
        r = httpx.post(f"{server}/api/open", json=body, timeout=120)
        assert r.status_code == 200, r.text[:300]
        opens.append({"view": 0, "open": open_, "data": r.json()})
        return r.json()

    chunks = [p["id"] for p in ask([loop])["parts"] if p["kind"] == "chunk" and p["parent"] == loop]
    assert len(chunks) >= 3, chunks
    ask([loop, chunks[1]])
    ask([loop, chunks[1], chunks[2]])
    ask([loop, chunks[2]])
    ask([])
    out.mkdir()
    (out / "rnn_250.json").write_text(json.dumps({"source": FOLDED, "run": run, "opens": opens}))


def test_node_suite(server, examples, tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    for ex in examples:
        body = {"source": ex["source"]}
        if ex.get("variables"):
            body["variables"] = ex["variables"]
        r = httpx.post(f"{server}/api/run", json=body, timeout=120)
        assert r.status_code == 200, (ex["id"], r.text[:300])
        (tmp_path / f"{ex['id']}.json").write_text(json.dumps(r.json()))
    write_openings(server, tmp_path / "opened")
    files = sorted(str(p) for p in HERE.glob("*.test.mjs"))
    proc = subprocess.run([node, "--test", "--test-reporter=tap", *files], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, GRADVIZ_ANSWERS=str(tmp_path)))
    out = proc.stdout
    counts = {k: int(v) for k, v in re.findall(r"^# (tests|pass|fail|skipped|cancelled) (\d+)$", out, re.M)}
    failed = "\n".join(re.findall(r"^not ok .*$", out, re.M))
    assert proc.returncode == 0 and counts.get("fail") == 0, failed + "\n" + out[-3000:] + proc.stderr[-2000:]
    assert counts["tests"] > len(examples) and counts["pass"] == counts["tests"], counts
    assert counts.get("skipped", 0) == 0 and counts.get("cancelled", 0) == 0, counts

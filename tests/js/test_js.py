"""The page's plain-logic modules, tested with node's own test runner: every tests/js/*.test.mjs file in
one ``node --test`` run. The examples' real answers are fetched from the server first, so the walk
through every frame of every example runs on what the page really receives."""

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
    files = sorted(str(p) for p in HERE.glob("*.test.mjs"))
    proc = subprocess.run([node, "--test", "--test-reporter=tap", *files], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, GRADVIZ_ANSWERS=str(tmp_path)))
    out = proc.stdout
    counts = {k: int(v) for k, v in re.findall(r"^# (tests|pass|fail|skipped|cancelled) (\d+)$", out, re.M)}
    failed = "\n".join(re.findall(r"^not ok .*$", out, re.M))
    assert proc.returncode == 0 and counts.get("fail") == 0, failed + "\n" + out[-3000:] + proc.stderr[-2000:]
    assert counts["tests"] > len(examples) and counts["pass"] == counts["tests"], counts
    assert counts.get("skipped", 0) == 0 and counts.get("cancelled", 0) == 0, counts

"""Every example rendered once as one HTML file, shared by the tests that read the files
(tests/package/test_offline.py) and the tests that play them in Chromium (test_offline_browser.py)."""

from __future__ import annotations

import fcntl
import json
import os

import pytest

import gradviz
from app.examples import EXAMPLES
from gradviz.cli import main as gradviz_main


def _render_all(out) -> dict:
    """``{example id: path}``: a program written by ``gradviz render PROGRAM.py -o OUT.html`` (the
    command's own code, in this process), an expression with its inputs by
    ``gradviz.render(source, path, variables=...)``."""
    paths = {}
    for ex in EXAMPLES:
        path = out / f"{ex['id']}.html"
        if ex["variables"]:
            gradviz.render(ex["source"], path, variables=ex["variables"])
        else:
            prog = out / f"{ex['id']}.py"
            prog.write_text(ex["source"])
            assert gradviz_main(["render", str(prog), "-o", str(path)]) == 0, ex["id"]
        paths[ex["id"]] = path
    return paths


@pytest.fixture(scope="session")
def rendered_examples(tmp_path_factory) -> dict:
    """``{example id: path of its HTML file}``, rendered once per run: the two files that read them
    may run in two xdist workers at once, so the first to come renders (under a lock, in the run's
    shared temporary folder) and the other waits for it and reads the same files."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above every worker's own (not shared by two runs)
    out = shared / "rendered-examples"
    with open(shared / "rendered-examples.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = out / "done.json"
        if done.exists():
            return {k: out / v for k, v in json.loads(done.read_text()).items()}
        out.mkdir(exist_ok=True)
        paths = _render_all(out)
        done.write_text(json.dumps({k: p.name for k, p in paths.items()}))
        return paths

"""Every example rendered once as one HTML file, shared by the tests that read the files
(tests/package/test_offline.py) and the tests that play them in Chromium (test_offline_browser.py)."""

from __future__ import annotations

import pytest

import gradviz
from app.examples import EXAMPLES
from gradviz.cli import main as gradviz_main


@pytest.fixture(scope="session")
def rendered_examples(tmp_path_factory) -> dict:
    """``{example id: path of its HTML file}``: a program written by ``gradviz render PROGRAM.py -o
    OUT.html`` (the command's own code, in this process), an expression with its inputs by
    ``gradviz.render(source, path, variables=...)``."""
    out = tmp_path_factory.mktemp("rendered")
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

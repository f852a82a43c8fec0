"""gradviz in a real notebook: executed by a real kernel (nbclient + ipykernel), its outputs opened in
Chromium, where the player plays inside its sandboxed iframe; bad input is a message, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]

NEURON = "x = torch.tensor([2.0], requires_grad=True)\\nw = torch.tensor([3.0], requires_grad=True)\\n" \
         "loss = (torch.sigmoid(x * w) - 1.0) ** 2\\nloss.backward()\\n"
CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport gradviz",
    f'gradviz.show("{NEURON}")',
    "%%gradviz --lang zh\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x + 2 * x\ny.backward()\n",
    'gradviz.show("x = (")',
    "%%gradviz --height\nx = 1\n",
    "import torch as real_torch\nw = real_torch.tensor([1.0, -2.0], requires_grad=True)\n"
    "with gradviz.record() as rec:\n    loss = (real_torch.tanh(w) ** 2).sum()\n    loss.backward()\n"
    "gradviz.show(rec)",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}})
    client.execute()
    return nb


def html_outputs(cell) -> list[str]:
    return [o["data"]["text/html"] for o in cell.outputs if o.get("data", {}).get("text/html")]


def test_the_notebook_runs_without_a_traceback(executed):
    for cell in executed.cells:
        assert not [o for o in cell.outputs if o["output_type"] == "error"], cell.source
    player, magic, bad, bad_magic, recorded = (html_outputs(c) for c in executed.cells[1:])
    assert 'data-gradviz="player"' in player[0] and "srcdoc=" in player[0]
    assert 'data-gradviz="player"' in magic[0]
    assert 'data-gradviz="error"' in bad[0] and "SyntaxError" in bad[0]
    assert 'data-gradviz="error"' in bad_magic[0] and "%%gradviz" in bad_magic[0]
    assert 'data-gradviz="player"' in recorded[0]


@pytest.mark.browser
def test_the_player_plays_inside_the_notebooks_output(executed, browser, tmp_path):
    outputs = [html_outputs(executed.cells[i])[0] for i in (1, 2, 5)]
    host = tmp_path / "notebook-output.html"
    host.write_text("<!doctype html><html><body>" + "".join(f"<div class=cell>{o}</div>" for o in outputs)
                    + "</body></html>")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "about:"))
            else problems.append(r.url))
    try:
        page.goto(host.as_uri())
        frames = [page.frame_locator("iframe").nth(i) for i in range(3)]
        for frame, lang in zip(frames, ("en", "zh", "en")):
            frame.locator("[data-testid=graph] svg").wait_for(timeout=30_000)
            before = frame.get_by_test_id("step-label").inner_text()
            frame.get_by_test_id("step-next").click()
            assert frame.get_by_test_id("step-label").inner_text() != before
            assert frame.locator("html").get_attribute("lang").startswith(lang)
        assert "tanh" in frames[2].get_by_test_id("source").input_value()
        assert not problems, problems
    finally:
        ctx.close()


def test_show_outside_ipython_says_so():
    out = subprocess.run([sys.executable, "-c", "import gradviz; gradviz.show('x = 1')"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert "IPython is not running" in out.stderr and "gradviz.render" in out.stderr

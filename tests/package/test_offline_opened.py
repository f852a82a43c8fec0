"""POST /api/offline/opened: what the page's Save as HTML puts in the file for its boxes, planned by
app/offline.py as ``gradviz render`` plans it, the program run again in a sandboxed worker; and the
page's reader of the keys (static/js/offline.js's openKey) reading the ones app/offline.py writes."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import httpx
import pytest

from app.offline import open_key, opened_answers, run_answer

ROOT = Path(__file__).resolve().parents[2]

LOOP = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(300):
    h = torch.tanh(h * w)
h.backward()
"""


def _node(script: str) -> str:
    """What ``script`` (an ES module run from static/js/) prints."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                         cwd=ROOT / "static" / "js", timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _held_by_the_page(answer: dict) -> dict:
    """What the page sends for ``answer``: static/js/offline.js's heldOf, run by node."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answer.json"
        path.write_text(json.dumps(answer))
        script = ('import { readFileSync } from "node:fs"; import { heldOf } from "./offline.js";'
                  f'const answer = JSON.parse(readFileSync({json.dumps(str(path))}, "utf8"));'
                  'console.log(JSON.stringify(heldOf(answer)));')
        return json.loads(_node(script))


def test_the_page_gets_its_boxes_opened_one_at_a_time_as_gradviz_render_writes_them(server):
    answer = run_answer(LOOP)
    (loop,) = answer["parts"]
    res = httpx.post(f"{server}/api/offline/opened", json={"source": LOOP, **_held_by_the_page(answer)},
                     timeout=300)
    assert res.status_code == 200, res.text[:300]
    got = res.json()
    here = opened_answers(LOOP, None, answer, seconds=300)
    assert set(got["answers"]) == set(here["answers"]) == {open_key(0, "auto", []),
                                                            open_key(0, "auto", [loop["id"]])}
    assert got["left"] == here["left"] == 0
    inside = got["answers"][open_key(0, "auto", [loop["id"]])]
    # only what the page does not hold travels: the loop's 599 nodes and their steps, drawn
    known = {n["id"] for n in answer["graph"]["nodes"]}
    assert len(inside["graph"]["nodes"]) == 599 and not known & {n["id"] for n in inside["graph"]["nodes"]}
    assert len(inside["backward"][0]["steps"]) == 599
    assert inside["views"][0]["open"] == [loop["id"]] and "<svg" in inside["views"][0]["svg"]


def test_a_run_without_boxes_holds_none_and_bad_input_is_refused(server):
    plain = "x = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n"
    held = _held_by_the_page(run_answer(plain))
    url = f"{server}/api/offline/opened"
    res = httpx.post(url, json={"source": plain, **held}, timeout=120)
    assert res.status_code == 200 and res.json() == {"answers": {}, "left": 0}
    loop_held = _held_by_the_page(run_answer(LOOP))
    other = httpx.post(url, json={"source": LOOP.replace("300", "301"), **loop_held}, timeout=120)
    assert other.status_code == 409 and other.json()["error"]["type"] == "RunChanged"
    broken = httpx.post(url, json={"source": "x = (", **loop_held}, timeout=120)
    assert broken.status_code == 400 and broken.json()["error"]["line"] == 1
    for bad in ({**loop_held, "source": LOOP, "views": []},
                {**loop_held, "source": LOOP, "parts": [{"id": "<svg>", "view": 0}]},
                {**loop_held, "source": LOOP, "nodes": ["a"]},
                {**loop_held}):
        refused = httpx.post(url, json=bad, timeout=60)
        assert refused.status_code == 422 and "error" in refused.json()


@pytest.mark.parametrize(("view", "direction", "opened"), [
    (0, "auto", []), (0, "auto", ["p3"]), (2, "down", ["p1", "p12", "p7"])])
def test_the_page_reads_the_keys_app_offline_writes(view, direction, opened):
    js = _node(f'import {{ openKey }} from "./offline.js"; '
               f'console.log(openKey({view}, {json.dumps(direction)}, {json.dumps(opened)}));')
    assert js.strip() == open_key(view, direction, opened)

"""The page as one HTML file (app/offline.py, app/bundle.py) and the gradviz command that writes it:
what the file holds, the inliner's rules, and the command's answers to bad input."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.bundle import BundleError, bundle
from app.examples import EXAMPLES
from app.offline import DATA_OPEN, shell
from gradviz.cli import main as gradviz_main

ROOT = Path(__file__).resolve().parents[2]


def gradviz_cli(*args, cwd=None, env=None, timeout=120):
    """``gradviz ARGS`` of this checkout in a fresh interpreter, from any directory."""
    env = dict(env or os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "gradviz", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=timeout)


@pytest.fixture
def gradviz_cmd(capsys, monkeypatch):
    """``gradviz ARGS`` as the console script runs it (``gradviz.cli.main``), in this process: its
    exit status, stdout and stderr. The sandbox pool this process started serves every call (one
    test starts the command in a fresh interpreter, ``gradviz_cli``)."""

    def command(*args, cwd=None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = gradviz_main([str(a) for a in args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["gradviz", *args], code, out, err)

    return command


# ---- the inliner ------------------------------------------------------------------------------------
def _modules(tmp_path, files: dict) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path / "main.js"


def test_modules_run_in_import_order_with_their_bindings(tmp_path):
    entry = _modules(tmp_path, {
        "main.js": 'import { twice, NAME as label } from "./lib/a.js";\nimport * as b from "./b.js";\n'
                   'import "./side.js";\nconsole.log(JSON.stringify([twice(21), label, b.three(), globalThis.order]));\n',
        "lib/a.js": 'import { three } from "../b.js";\nglobalThis.order = (globalThis.order || []).concat("a");\n'
                    "export function twice(x) {\n  return x * 2;\n}\nconst NAME = `a${three()}`;\nexport { NAME };\n",
        "b.js": 'globalThis.order = (globalThis.order || []).concat("b");\nexport const three = () => 3;\n',
        "side.js": 'globalThis.order = (globalThis.order || []).concat("side");\n',
    })
    script = tmp_path / "out.mjs"
    script.write_text(bundle(entry))
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the browser tests play the inlined page itself)")
    out = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [42, "a3", 3, ["b", "a", "side"]]  # as the browser orders them


@pytest.mark.parametrize(("text", "reason"), [
    ("export default 1;\n", "default export"),
    ("export let n = 1;\n", "live binding"),
    ('const m = import("./b.js");\n', "dynamic import"),
    ("console.log(import.meta.url);\n", "import.meta"),
    ('import { x } from "lodash";\n', "only relative"),
    ('import { x } from "./missing.js";\n', "does not exist"),
])
def test_the_inliner_refuses_what_it_cannot_carry(tmp_path, text, reason):
    entry = _modules(tmp_path, {"main.js": text, "b.js": "export const y = 1;\n"})
    with pytest.raises(BundleError, match=reason):
        bundle(entry)


def test_an_import_cycle_is_refused(tmp_path):
    entry = _modules(tmp_path, {"main.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
                                "b.js": 'import { a } from "./main.js";\nexport const b = 2;\n'})
    with pytest.raises(BundleError, match="cycle"):
        bundle(entry)


# ---- the file ----------------------------------------------------------------------------------------------
def test_the_shell_has_everything_inline_and_one_data_slot():
    html = shell("zh")
    assert html.count(DATA_OPEN) == 1
    assert '<html lang="zh">' in html
    assert "/static/" not in re.sub(r"<script type=\"module\">.*?</script>", "", html, flags=re.S)
    assert not re.search(r'(src|href)="(https?:)?//', html), "nothing may come from the network"
    sheets = (ROOT / "templates" / "index.html").read_text().count('<link rel="stylesheet"')
    assert html.count("<style>") == sheets >= 3 and 'data-testid="export-html"' in html
    script = re.search(r'<script type="module">\n(.*?)</script>', html, re.S).group(1)
    assert "</script" not in script and "<script" not in script
    # Every module of the page is inside (each is evaluated in the file, none fetched).
    reachable = _reachable()
    for path in (ROOT / "static" / "js").rglob("*.js"):
        key = path.relative_to(ROOT / "static").as_posix()
        if key in ("js/boundary.js",):
            continue
        assert f"// ---- {key}" in script or key not in reachable, key


def _reachable() -> set[str]:
    text = bundle(ROOT / "static" / "js" / "main.js")
    return set(re.findall(r"// ---- (\S+)", text))


def test_gradviz_render_writes_every_example_and_reports_its_size(rendered_examples, tmp_path, capsys):
    # The command itself, in a fresh interpreter, for one example; every example's file is written by
    # the command's code in the session's process (rendered_examples, shared with the browser tests).
    first = next(ex for ex in EXAMPLES if not ex["variables"])
    prog = tmp_path / f"{first['id']}.py"
    prog.write_text(first["source"])
    out = gradviz_cli("render", str(prog), "-o", str(tmp_path / f"{first['id']}.html"))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert _data(tmp_path / f"{first['id']}.html")["program"]["source"] == first["source"]
    sizes = {ex["id"]: rendered_examples[ex["id"]].stat().st_size for ex in EXAMPLES}
    with capsys.disabled():
        print("\noffline HTML size per example (bytes): " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
    assert len(sizes) == len(EXAMPLES)
    # the boxes of a folded drawing are in the file opened (and closed) one at a time
    folded = {k for k in sizes if _data(rendered_examples[k])["opened"]["answers"]}
    assert {"mlp", "deep-sigmoid", "linear-regression"} <= folded
    assert max(v for k, v in sizes.items() if k not in folded) < 800_000, sizes
    assert max(sizes.values()) < 1_500_000, sizes
    # every file holds its own example's run, stepped through (the browser plays a few kinds of them)
    for ex in EXAMPLES:
        held = _data(rendered_examples[ex["id"]])
        assert held["program"]["source"] == ex["source"], ex["id"]
        assert held["answer"]["graph"]["nodes"] and held["answer"]["backward"], ex["id"]
        assert (held["answer"]["error"] is None) == (ex["id"] != "backward-twice"), ex["id"]
    data = _data(rendered_examples["neuron"])
    assert set(data["layouts"]["keys"]) == {f"{lv}|{d}" for lv in ("auto", "module", "op") for d in ("auto", "down")}
    assert data["answer"]["backward"][0]["steps"]


def _data(path: Path) -> dict:
    html = path.read_text()
    start = html.index(DATA_OPEN) + len(DATA_OPEN)
    return json.loads(html[start:html.index("</script>", start)])


def test_render_draws_svg_and_png(tmp_path, gradviz_cmd):
    prog = tmp_path / "p.py"
    prog.write_text("x = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\ny.backward()\n")
    assert gradviz_cmd("render", str(prog), "-o", str(tmp_path / "g.svg")).returncode == 0
    svg = (tmp_path / "g.svg").read_text()
    assert svg.startswith("<?xml") and "PowBackward0" in svg
    assert gradviz_cmd("render", str(prog), "-o", str(tmp_path / "g.png"), "--lang", "zh").returncode == 0
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_drawing_for_chinese_readers_has_its_legend_in_chinese(tmp_path, gradviz_cmd, monkeypatch):
    from app.drawing.dot_text import LEGEND
    from gradviz import output

    prog = tmp_path / "p.py"
    prog.write_text("x = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\ny.backward()\n")
    for lang in ("en", "zh"):
        assert gradviz_cmd("render", str(prog), "-o", str(tmp_path / f"{lang}.svg"), "--lang", lang).returncode == 0
    en, zh = (tmp_path / "en.svg").read_text(), (tmp_path / "zh.svg").read_text()
    for _, words, chinese in LEGEND:
        assert f">{words}</text>" in en and f">{words}</text>" not in zh and f">{chinese}</text>" in zh
    assert en.replace("</text>", "").count("PowBackward0") == zh.replace("</text>", "").count("PowBackward0")
    # without librsvg the PNG is drawn by dot from the DOT text: its legend is written in Chinese too
    written, run = [], output.answer_of(prog.read_text(), None, str(prog))
    monkeypatch.setattr(output.shutil, "which", lambda name: None)
    monkeypatch.setattr(output, "_convert", lambda cmd, data, name: written.append(data.decode()) or b"")
    output.write(run, tmp_path / "d.png", lang="zh")
    (dot,) = written
    assert all(f">{chinese}</font>" in dot and f">{words}</font>" not in dot for _, words, chinese in LEGEND)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_a_png_is_the_svg_drawing_with_its_open_loop(tmp_path, gradviz_cmd):
    # a 16-step loop is drawn open: a tall chain inside its frame, not a box between two leaves
    prog = tmp_path / "loop.py"
    prog.write_text("w = torch.tensor(0.9, requires_grad=True)\nh = torch.tensor(0.5, requires_grad=True)\n"
                    "for i in range(16):\n    h = torch.tanh(h * w)\nh.backward()\n")
    assert gradviz_cmd("render", str(prog), "-o", str(tmp_path / "g.svg")).returncode == 0
    assert gradviz_cmd("render", str(prog), "-o", str(tmp_path / "g.png")).returncode == 0
    svg = (tmp_path / "g.svg").read_text()
    assert 'class="graph unit"' in svg  # the loop open: a drawing of its own inside the view's
    m = re.search(r'<svg[^>]*width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    width, height = _png_size((tmp_path / "g.png").read_bytes())
    assert height > 3 * width  # the open chain, as in the SVG
    assert abs(width / height - float(m.group(1)) / float(m.group(2))) < 0.02


def test_a_program_that_fails_is_written_with_its_error_and_a_note(tmp_path, gradviz_cmd):
    prog = tmp_path / "twice.py"
    prog.write_text(next(e["source"] for e in EXAMPLES if e["id"] == "backward-twice"))
    out = gradviz_cmd("render", str(prog), "-o", str(tmp_path / "t.html"))
    assert out.returncode == 0
    assert "note: the program stopped at line 5 with RuntimeError" in out.stderr
    assert _data(tmp_path / "t.html")["answer"]["error"]["line"] == 5


@pytest.mark.parametrize(("make", "args", "message"), [
    (lambda d: None, ["nothere.py", "-o", "x.html"], "nothere.py: no such file"),
    (lambda d: (d / "a.py").write_bytes(b"\x7fELF\x00\x01"), ["a.py", "-o", "x.html"], "not a Python program"),
    (lambda d: (d / "a.py").write_bytes(b"x = '\xff'\n"), ["a.py", "-o", "x.html"], "not UTF-8"),
    (lambda d: (d / "a.py").write_text("x = (1,\n"), ["a.py", "-o", "x.html"], "SyntaxError"),
    (lambda d: (d / "a.py").write_text("import os\n"), ["a.py", "-o", "x.html"], "a.py: "),
    (lambda d: (d / "a.py").write_text("x = 1\n"), ["a.py", "-o", "x.pdf"], "must end in .html, .svg or .png"),
    (lambda d: (d / "a.py").write_text("x = 1\n"), ["a.py", "-o", "x.svg"], "no graph to draw"),
])
def test_bad_input_gets_one_clear_line(tmp_path, gradviz_cmd, make, args, message):
    make(tmp_path)
    out = gradviz_cmd("render", *args, cwd=tmp_path)
    assert out.returncode == 1
    assert message in out.stderr and "Traceback" not in out.stderr
    # one line, beside the one that says which layers ran a program that was read
    lines = [line for line in out.stderr.strip().splitlines() if not line.startswith("gradviz: ran in: ")]
    assert len(lines) == 1


def test_without_dot_the_message_says_how_to_install_graphviz(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text("x = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n")
    env = dict(os.environ, PATH=str(tmp_path))  # no dot there
    out = gradviz_cli("render", str(prog), "-o", str(tmp_path / "p.html"), env=env)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    for where in ("apt-get install graphviz", "brew install graphviz", "winget install graphviz"):
        assert where in out.stderr
    served = subprocess.run([sys.executable, "-m", "app", "--port", "1"], capture_output=True, text=True,
                            cwd=ROOT, env=dict(env, GRADVIZ_SANDBOX="language-only"), timeout=120)
    assert served.returncode != 0 and "brew install graphviz" in served.stderr
    assert shutil.which("dot"), "the tests themselves need graphviz"


def test_the_server_gives_the_page_as_one_file(server):
    res = httpx.get(f"{server}/offline?lang=zh", timeout=60)
    assert res.status_code == 200 and res.headers["content-type"].startswith("text/html")
    assert res.text.count(DATA_OPEN) == 1 and '<html lang="zh">' in res.text
    assert httpx.get(f"{server}/offline?lang=xx", timeout=60).text.startswith("<!doctype html>")


LOOP = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(300):
    h = torch.tanh(h * w)
h.backward()
"""


def test_a_page_holds_its_boxes_opened_and_closed_one_at_a_time():
    from app.offline import open_key, open_states, opened_answers, run_answer

    answer = run_answer(LOOP)
    (loop,) = answer["parts"]
    assert open_states(answer) == [(0, []), (0, [loop["id"]])]
    # (time enough for every box on a busy machine: the bytes are what is under test here)
    opened = opened_answers(LOOP, None, answer, seconds=300)
    assert opened["left"] == 0 and set(opened["answers"]) == {open_key(0, "auto", []), open_key(0, "auto", [loop["id"]])}
    inside = opened["answers"][open_key(0, "auto", [loop["id"]])]
    assert inside["views"][0]["open"] == [loop["id"]] and len(inside["views"][0]["nodes"]) == 602
    # only what the page does not hold yet travels: the loop's 599 nodes and their steps
    known = {n["id"] for n in answer["graph"]["nodes"]}
    assert len(inside["graph"]["nodes"]) == 599 and not known & {n["id"] for n in inside["graph"]["nodes"]}
    assert len(inside["backward"][0]["steps"]) == 599
    assert inside["fingerprint"] == answer["fingerprint"] and "<svg" in inside["views"][0]["svg"]
    # opened, the page asks for the loop closed again: the state as it was
    again = opened_answers(LOOP, None, {**answer, "views": [inside["views"][0]], "parts": inside["parts"]},
                           seconds=300)
    assert set(again["answers"]) == set(opened["answers"])
    # what does not fit in the budget is left out, and counted
    first = len(json.dumps(opened["answers"][open_key(0, "auto", [])], separators=(",", ":")))
    small = opened_answers(LOOP, None, answer, budget=first + 1000, seconds=300)
    assert small["left"] == 1 and list(small["answers"]) == [open_key(0, "auto", [])]


def test_a_run_without_boxes_or_another_run_holds_no_opened_boxes():
    from app.offline import opened_answers, run_answer

    answer = run_answer("x = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n")
    assert opened_answers("x = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n", None, answer) \
        == {"answers": {}, "left": 0}
    other = run_answer(LOOP)
    assert opened_answers(LOOP.replace("300", "301"), None, other) == {"answers": {}, "left": 0}  # another run


def test_the_boxes_most_wanted_come_first_and_what_is_left_out_is_counted():
    from app.offline import open_key, open_states, opened_answers, run_answer

    ex = next(e for e in EXAMPLES if e["id"] == "deep-sigmoid")
    answer = run_answer(ex["source"], ex["variables"])
    states = open_states(answer)
    base = answer["views"][0]["open"]
    assert states[0] == (0, base)
    kinds = ["open" if len(o) > len(base) else "close" for _, o in states[1:]]
    assert kinds == sorted(kinds, key=lambda k: k == "close") and "close" in kinds  # opening first
    got = opened_answers(ex["source"], ex["variables"], answer, most=4)
    assert list(got["answers"]) == [open_key(v, "auto", o) for v, o in states[:4]]
    assert got["left"] == len(states) - 4


LONG_LOOP = LOOP.replace("range(300)", "range(600)")


def test_a_page_holds_the_chunks_of_an_opened_loop_opened_too():
    from app.offline import open_key, opened_answers, run_answer

    answer = run_answer(LONG_LOOP)
    (loop,) = answer["parts"]
    opened = opened_answers(LONG_LOOP, None, answer, seconds=300)
    inside = opened["answers"][open_key(0, "auto", [loop["id"]])]
    chunks = [p["id"] for p in inside["parts"] if p["kind"] == "chunk"]
    assert len(chunks) == 3
    # each chunk the opened loop shows opens in the file as well: no box of the drawing is left out
    for pid in chunks:
        got = opened["answers"][open_key(0, "auto", [loop["id"], pid])]
        assert pid in got["views"][0]["open"] and got["graph"]["nodes"]
    assert opened["left"] == 0

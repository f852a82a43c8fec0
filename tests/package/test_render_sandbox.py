"""``gradviz render``, ``gradviz.render`` and ``%%gradviz`` run a program in the server's OS sandbox
when bubblewrap is there (gradviz/sandboxing.py), say which layers ran it (the command's stderr,
``gradviz.ran_in()``, the file's footer), run it with the language layer alone when asked
(``--no-sandbox``, ``sandbox=False``) or when bubblewrap is missing (with a warning), and fail then
when the sandbox was required.

The sandbox here runs the tests' job table (tests/package/render_jobs.py), whose ``run`` stands in
for an engine bug: the hostile corpus's programs run there as raw Python, and what they could do
comes back in the answer. One pool serves the module (it starts at the first render)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from runner.hostile_corpus import HOSTILE, PWNED

import app.worker.execute
import gradviz
from app.sandbox import SandboxSettings
from gradviz import sandboxing
from gradviz.cli import main as gradviz_main
from gradviz.errors import GradvizError

from .render_jobs import CRASH, ESCAPE

ROOT = Path(__file__).resolve().parents[2]
ALL = ("language", "process", "os")
CORPUS = {name: (source, error) for name, source, error, *_ in HOSTILE}
# Programs of the corpus that go for the machine: a file outside, a file written, a program started.
MACHINE = ("open", "open-write", "import-os")
NEURON = "x = torch.tensor([2.0], requires_grad=True)\nloss = (torch.sigmoid(x * 3.0) - 1.0) ** 2\n" \
         "loss.backward()\n"
LOOP = "w = torch.tensor(0.9, requires_grad=True)\nh = torch.tensor(0.5, requires_grad=True)\n" \
       "for i in range(16):\n    h = torch.tanh(h * w)\nh.backward()\n"


@pytest.fixture(scope="module", autouse=True)
def test_jobs():
    """Sandboxed runs of this module use the tests' job table (a pool of one place, as gradviz's)."""
    sandboxing.close()
    settings = sandboxing.pool_settings
    sandboxing.pool_settings = lambda: SandboxSettings(
        mode="full", slots=1, reserved=0, per_client=1, memory_mb=1024, jobs="tests.package.render_jobs",
        extra_code=("tests",))
    yield
    sandboxing.close()
    sandboxing.pool_settings = settings


@pytest.fixture
def nothing_runs_here(monkeypatch):
    """The runner of this process refuses to run anything: whatever ran, ran in the sandbox."""
    def refuse(*args, **kwargs):
        raise AssertionError("a program ran in the test's own process")

    monkeypatch.setattr(app.worker.execute, "run_checked", refuse)
    monkeypatch.setattr(app.worker.execute, "run_and_serialize", refuse)


@pytest.fixture
def calls(monkeypatch):
    """The jobs the pool is asked to run, in order (the pool started if it was not)."""
    pool, _ = sandboxing.containment_for("require")
    asked = []
    real = pool.call

    def call(job, *args, **kwargs):
        asked.append(job)
        return real(job, *args, **kwargs)

    monkeypatch.setattr(pool, "call", call)
    return asked


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A PATH that has graphviz's dot but not bubblewrap, and no pool started yet."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("dot", "rsvg-convert"):
        real = subprocess.run(["which", name], capture_output=True, text=True).stdout.strip()
        if real:
            (bin_dir / name).symlink_to(real)
    sandboxing.close()
    monkeypatch.setenv("PATH", str(bin_dir))
    yield str(bin_dir)
    sandboxing.close()


def page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    start = text.index('id="offline-data">') + len('id="offline-data">')
    return json.loads(text[start:text.index("</script>", start)])


def footer_layers(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.count('data-gradviz="containment"') == 1
    marker = 'data-gradviz="containment" data-layers="'
    start = text.index(marker) + len(marker)
    return text[start:text.index('"', start)]


def escape_findings(path: Path) -> dict:
    """What the program found it could do, as raw Python in its worker (printed by the stand-in)."""
    return json.loads(page_data(path)["answer"]["stdout"])


# ---- sandboxed -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", MACHINE)
def test_a_hostile_program_rendered_from_python_ran_in_the_os_sandbox(name, tmp_path, nothing_runs_here,
                                                                      calls):
    out = gradviz.render(ESCAPE + CORPUS[name][0], tmp_path / "run.html")
    assert calls == ["run"]
    assert gradviz.ran_in().layers == ALL
    assert str(gradviz.ran_in()) == "ran in: language + process + OS sandbox"
    assert footer_layers(out) == "language process os"
    found = escape_findings(out)
    assert found["pid_ns"] != os.readlink("/proc/self/ns/pid")  # another pid namespace than this one
    assert found["uid"] == 65534
    assert not found["pwned"] and not Path(PWNED).exists()
    if name != "import-os":  # os.system's fork is refused quietly (it returns an error status)
        assert found["raised"].startswith(("FileNotFoundError", "PermissionError", "OSError")), found


def test_the_command_says_where_the_program_ran_and_the_language_layer_refused_it(tmp_path, capsys,
                                                                                  nothing_runs_here, calls):
    source, error = CORPUS["open-write"]
    prog = tmp_path / "student.py"
    prog.write_text(source)
    assert gradviz_main(["render", str(prog), "-o", str(tmp_path / "run.html")]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "gradviz: ran in: language + process + OS sandbox",
        f"gradviz: {prog}: {error}: name 'open' is not defined (line 1, column 1)"]
    assert calls == ["run"] and not Path(PWNED).exists() and not (tmp_path / "run.html").exists()
    prog.write_text(NEURON + "print(torch.load('/etc/passwd'))\n")  # refused while it runs: written
    assert gradviz_main(["render", str(prog), "-o", str(tmp_path / "run.html")]) == 0
    err = capsys.readouterr().err
    assert "gradviz: ran in: language + process + OS sandbox\n" in err
    assert "the program stopped at line 4 with ForbiddenError" in err
    assert page_data(tmp_path / "run.html")["answer"]["error"]["type"] == "ForbiddenError"
    assert footer_layers(tmp_path / "run.html") == "language process os"


def test_a_folded_programs_boxes_are_opened_in_the_sandbox_too(tmp_path, nothing_runs_here, calls):
    out = gradviz.render(LOOP, tmp_path / "loop.html")
    assert calls == ["run", "opens"]
    opened = page_data(out)["opened"]
    assert opened["answers"] and any(key != "0|auto|" for key in opened["answers"])


def test_a_program_that_cannot_run_and_a_worker_that_dies_are_clear_errors(tmp_path, nothing_runs_here):
    with pytest.raises(GradvizError, match="SyntaxError") as bad:
        gradviz.render("x = (", tmp_path / "bad.html")
    assert bad.value.line == 1
    with pytest.raises(GradvizError, match="stopped its worker process"):
        gradviz.render(CRASH + NEURON, tmp_path / "crash.html")
    assert gradviz.ran_in().layers == ALL
    assert not (tmp_path / "bad.html").exists() and not (tmp_path / "crash.html").exists()


def test_the_pool_is_started_once_and_kept(tmp_path):
    gradviz.render(NEURON, tmp_path / "a.html")
    pool = sandboxing.current_pool()
    gradviz.html(NEURON, sandbox="require")
    assert pool is not None and sandboxing.current_pool() is pool and pool.layers["os"]


# ---- the language layer alone ------------------------------------------------------------------------
def test_opting_out_runs_the_language_layer_here(tmp_path, capsys, calls):
    source, error = CORPUS["torch-save"]  # refused while it runs: the file is written
    out = gradviz.render(source, tmp_path / "run.html", sandbox=False)
    assert gradviz.ran_in().layers == ("language",)
    assert str(gradviz.ran_in()) == "language layer only: sandbox=False"
    assert footer_layers(out) == "language"
    assert page_data(out)["answer"]["error"]["type"] == error  # refused by the language layer, here
    assert not Path(PWNED).exists()
    prog = tmp_path / "p.py"
    prog.write_text(NEURON)
    assert gradviz_main(["render", str(prog), "-o", str(tmp_path / "cli.html"), "--no-sandbox"]) == 0
    err = capsys.readouterr().err
    assert "gradviz: language layer only: --no-sandbox\n" in err and "warning" not in err
    assert "程序只经过语言层运行：--no-sandbox" in (tmp_path / "cli.html").read_text(encoding="utf-8")
    assert calls == []  # the pool ran nothing


def test_without_bubblewrap_it_warns_once_and_runs_the_language_layer(tmp_path, capsys, no_bwrap):
    gradviz.render(NEURON, tmp_path / "a.html")
    gradviz.render(NEURON, tmp_path / "b.html")
    err = capsys.readouterr().err
    assert err.count("gradviz: warning: running programs with the language layer only: "
                     "bubblewrap is not installed") == 1
    assert gradviz.ran_in().reason == "bubblewrap is not installed" and sandboxing.current_pool() is None
    assert footer_layers(tmp_path / "b.html") == "language"
    assert "未安装 bubblewrap" in (tmp_path / "b.html").read_text(encoding="utf-8")
    prog = tmp_path / "p.py"
    prog.write_text(NEURON)
    assert gradviz_main(["render", str(prog), "-o", str(tmp_path / "c.html")]) == 0
    assert "gradviz: language layer only: bubblewrap is not installed\n" in capsys.readouterr().err


def test_without_bubblewrap_a_required_sandbox_fails(tmp_path, capsys, no_bwrap):
    with pytest.raises(GradvizError, match="required, and bubblewrap is not installed"):
        gradviz.render(NEURON, tmp_path / "a.html", sandbox="require")
    with pytest.raises(GradvizError, match="bubblewrap is not installed"):
        gradviz.render(NEURON, tmp_path / "a.html", sandbox=True)
    prog = tmp_path / "p.py"
    prog.write_text(NEURON)
    assert gradviz_main(["render", str(prog), "-o", str(tmp_path / "b.html"), "--sandbox"]) == 1
    assert "apt-get install bubblewrap" in capsys.readouterr().err
    assert not (tmp_path / "a.html").exists() and not (tmp_path / "b.html").exists()


def test_a_bad_sandbox_value_is_refused(tmp_path):
    with pytest.raises(GradvizError, match="sandbox must be"):
        gradviz.render(NEURON, tmp_path / "a.html", sandbox="maybe")


# ---- the real command, and a notebook ------------------------------------------------------------------
def test_the_command_in_its_own_process(tmp_path):
    """``python -m gradviz render`` with the production job table: the same line and footer."""
    prog = tmp_path / "p.py"
    prog.write_text(NEURON + CORPUS["torch-save"][0])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "gradviz", "render", str(prog), "-o", str(tmp_path / "r.html")]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "gradviz: ran in: language + process + OS sandbox\n" in out.stderr
    assert footer_layers(tmp_path / "r.html") == "language process os"
    assert page_data(tmp_path / "r.html")["answer"]["error"]["type"] == CORPUS["torch-save"][1]
    assert not Path(PWNED).exists()


CELLS = [
    f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport gradviz\nfrom gradviz import sandboxing",
    "%%gradviz\n" + NEURON,
    "print(gradviz.ran_in().layers, id(sandboxing.current_pool()))",
    "%%gradviz --no-sandbox --lang zh\n" + NEURON,
    "print(gradviz.ran_in())",
    "%%gradviz --sandbox\n" + LOOP,
    "print(gradviz.ran_in().layers, id(sandboxing.current_pool()))",
    "%%gradviz --sandbox --no-sandbox\nx = 1\n",
]


def test_the_cell_magic_runs_in_one_sandbox_for_the_kernels_session(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()

    def html(i):
        return "".join(o.get("data", {}).get("text/html", "") for o in nb.cells[i].outputs)

    def text(i):
        return "".join(o.get("text", "") for o in nb.cells[i].outputs if o["output_type"] == "stream")

    for cell in nb.cells:
        assert not [o for o in cell.outputs if o["output_type"] == "error"], cell.source
    first, second = text(2).split(), text(6).split()
    assert first[:3] == second[:3] == ["('language',", "'process',", "'os')"]
    assert first[3] == second[3]  # the same pool: started once for the session
    assert text(4).strip() == "language layer only: --no-sandbox"
    assert 'data-layers=&quot;language process os&quot;' in html(1) and 'data-gradviz="player"' in html(1)
    assert 'data-layers=&quot;language&quot;' in html(3)
    assert 'data-gradviz="error"' in html(7) and "--no-sandbox | --sandbox" in html(7)

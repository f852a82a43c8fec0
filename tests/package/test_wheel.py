"""gradviz as an installed package: the wheel and sdist built by ``python -m build``, installed into a
fresh virtualenv, work from anywhere (the gradviz command, the page, the sandboxed workers, the
one-file page) and claim no top-level name but ``gradviz``."""

from __future__ import annotations

import ast
import os
import shutil
import site
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import httpx
import pytest
from browser.support import free_port

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = ("tests", "benchmarks", "deploy", ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
            "screenshots", ".ruff_cache", ".pytest_cache", ".hypothesis")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The wheel and sdist of this checkout, built from a copy (the checkout gets no build/)."""
    src = tmp_path_factory.mktemp("src") / "gradviz"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*LEFT_OUT))
    dist = tmp_path_factory.mktemp("dist")
    out = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Package would be ignored" not in out.stdout + out.stderr
    return dist


@pytest.fixture(scope="module")
def venv(built, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel installed (its dependencies come from this interpreter's
    site-packages through a .pth file: no network)."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    wheel = next(built.glob("gradviz-*.whl"))
    python = str(env_dir / "bin" / "python")
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q"]
    out = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(purelib, "gradviz-test-dependencies.pth").write_text("\n".join(deps) + "\n")
    return env_dir


def run_in(venv: Path, *args, cwd: Path, timeout=180, env=None):
    env = dict(env or os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=env)


def test_the_wheel_and_sdist_hold_the_page_and_name_only_gradviz(built):
    wheel = next(built.glob("gradviz-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("gradviz-")}
    assert tops == {"gradviz"}
    for need in ("gradviz/templates/index.html", "gradviz/static/js/main.js",
                 "gradviz/static/js/panels/explain.js", "gradviz/static/css/app.css",
                 "gradviz/app/sandbox/template.py", "gradviz/app/worker/jobs.py",
                 "gradviz/engine/ops/table.py", "gradviz/engine/runner/policy.py", "gradviz/cli.py"):
        assert need in names, need
    assert not [n for n in names if "__pycache__" in n or n.startswith("gradviz/tests")]
    sdist = next(built.glob("gradviz-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(m.endswith("/static/js/offline.js") for m in members)
    assert any(m.endswith("/templates/index.html") for m in members)


def test_installed_gradviz_claims_no_engine_or_app(venv, tmp_path):
    code = ("import importlib.util, gradviz\n"
            "print(gradviz.__file__)\n"
            "print([n for n in ('engine', 'app') if importlib.util.find_spec(n) is not None])\n"
            "import sys; from gradviz.app import offline\n"
            "print(offline.__name__, [n for n in sys.modules if n.split('.')[0] in ('engine', 'app')])\n")
    out = run_in(venv, "python", "-c", code, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    where, claimed, loaded = out.stdout.splitlines()
    assert where.startswith(str(venv)) and claimed == "[]" and loaded == "gradviz.app.offline []"


def test_the_wheels_modules_import_the_installed_names_on_the_checkouts_lines(built):
    """setup.py's build_py wrote ``from gradviz.engine...``/``from gradviz.app...`` where the checkout
    says ``from engine...``/``from app...``, and changed nothing else: tracebacks point at the same
    lines as in the checkout."""
    wheel = zipfile.ZipFile(next(built.glob("gradviz-*.whl")))
    rewritten = 0
    for name in wheel.namelist():
        if not name.endswith(".py"):
            continue
        text = wheel.read(name).decode()
        rel = name.removeprefix("gradviz/")
        source = (ROOT / rel if rel.split("/")[0] in ("engine", "app") else ROOT / name).read_text()
        assert text.count("\n") == source.count("\n"), name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert node.module.split(".")[0] not in ("engine", "app"), f"{name}:{node.lineno}"
            elif isinstance(node, ast.Import):
                assert not [a for a in node.names if a.name.split(".")[0] in ("engine", "app")], name
        changed = [(a, b) for a, b in zip(source.splitlines(), text.splitlines()) if a != b]
        assert all(b == a.replace("from engine", "from gradviz.engine", 1)
                   or b == a.replace("from app", "from gradviz.app", 1) for a, b in changed), (name, changed)
        rewritten += len(changed)
    assert rewritten > 40


def test_installed_gradviz_renders_a_file(venv, tmp_path):
    (tmp_path / "p.py").write_text("x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                                   "loss = (x.exp() * 3).sum()\nloss.backward()\nprint(x.grad)\n")
    out = run_in(venv, "gradviz", "render", "p.py", "-o", "p.html", "--lang", "zh", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    html = (tmp_path / "p.html").read_text()
    assert '<html lang="zh">' in html and "ExpBackward0" in html
    assert "/static/" not in html.split('<script type="module">')[0]


def test_installed_gradviz_serves_with_its_sandboxed_workers(venv, tmp_path):
    port = free_port()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if shutil.which("bwrap") is None:
        env["GRADVIZ_SANDBOX"] = "language-only"
    log = open(tmp_path / "serve.log", "w")  # noqa: SIM115 - the server outlives this statement
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([str(venv / "bin" / "gradviz"), "serve", "--port", str(port)], cwd=tmp_path,
                            env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        health = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                health = httpx.get(f"{base}/api/health", timeout=2).json()
                break
            except httpx.HTTPError:
                time.sleep(0.3)
        assert health is not None, (tmp_path / "serve.log").read_text()[-3000:]
        if "GRADVIZ_SANDBOX" not in env:
            assert health["sandbox"]["layers"] == {"language": True, "process": True, "os": True}
        source = "x = torch.tensor(2.0, requires_grad=True)\n(x ** 3).backward()\nprint(x.grad)\n"
        res = httpx.post(f"{base}/api/run", json={"source": source}, timeout=60)
        assert res.status_code == 200 and res.json()["stdout"] == "tensor(12.)\n"
        bad = httpx.post(f"{base}/api/run", json={"source": "import os\n"}, timeout=60)
        assert bad.status_code == 400
        page = httpx.get(f"{base}/", timeout=30)
        assert page.status_code == 200 and "/static/js/main.js" in page.text
        assert httpx.get(f"{base}/static/js/offline.js", timeout=30).status_code == 200
        shell = httpx.get(f"{base}/offline", timeout=60).text
        assert shell.count('<script type="application/json" id="offline-data">') == 1
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()

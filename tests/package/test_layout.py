"""The engine, the app and gradviz name each other only with ordinary import statements that tools
follow: ``from engine.x import y`` / ``from app.x import y``, as the checkout lays them out. setup.py
rewrites exactly those statements to ``gradviz.engine`` / ``gradviz.app`` in a wheel; a module path
in a string, a bare ``import engine`` or an importlib lookup of those names would not be rewritten
and would break (or claim a top-level name) when installed.

And the folders of app/ hold its two sides apart: the sandboxed worker (app/worker/) imports no server,
route or drawing module, and what a view shows (app/folding/) imports neither side."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("engine", "app")
ABSOLUTE = re.compile(r"^(engine|app)(\.\w+)+(:\w+)?$")
LOOKUPS = ("import_module", "__import__", "find_spec")


def _problems(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        why = None
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in PARTS for a in node.names):
            why = "a bare import (write `from engine.x import y`)"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ABSOLUTE.match(node.value):
            why = f"a module path in a string: {node.value!r}"
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            first = node.args[0] if node.args else None
            if name in LOOKUPS and isinstance(first, ast.Constant | ast.JoinedStr):
                text = first.value if isinstance(first, ast.Constant) else ast.unparse(first)
                if str(text).strip("f'\"").split(".")[0].split("{")[0] in PARTS:
                    why = f"a lookup by name: {ast.unparse(node)}"
        if why:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {why}")
    return found


def test_cross_part_names_are_import_statements():
    found = []
    for part in ("engine", "app", "gradviz"):
        for path in sorted((ROOT / part).rglob("*.py")):
            found += _problems(path)
    assert not found, "\n".join(found)


# The only imports by a computed name, none of them between the parts: the torch module map a program
# imports through (engine modules named from __package__), the job table a worker is told to load (the
# settings' module path, built from app/package.py's APP), the third-party distributions the sandbox binds.
DYNAMIC = {"engine/runner/torch_modules.py", "app/sandbox/template.py", "app/sandbox/confinement.py"}


def test_modules_are_looked_up_by_name_only_where_the_name_is_data():
    sites = set()
    for part in ("engine", "app", "gradviz"):
        for path in sorted((ROOT / part).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Call) and (getattr(node.func, "attr", None)
                                                   or getattr(node.func, "id", None)) in LOOKUPS:
                    sites.add(str(path.relative_to(ROOT)))
    assert sites == DYNAMIC, "use an import statement instead: " + ", ".join(sites - DYNAMIC)


def test_the_rule_catches_each_kind_of_string_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import importlib\nimport engine.trace\nM = 'app.worker.jobs'\n"
                   "importlib.import_module('engine')\nfrom engine.trace import Trace\n")
    found = [line.split(": ", 1)[1] for line in _problems(bad, tmp_path)]
    assert len(found) == 3, found
    assert found[0].startswith("a bare import") and "'app.worker.jobs'" in found[1]
    assert found[2] == "a lookup by name: importlib.import_module('engine')"


# The two sides of app/, held where a newcomer sees them: the folders. A module's imports are read from its
# text (function-level ones too, and the package __init__ files an import runs), then followed.
WORKER_NEVER = ("app.server", "app.drawing", "app.routes")
FOLDING_NEVER = ("app.drawing", "app.server", "app.worker")
NEW_FOLDERS = ("worker", "folding", "drawing", "server", "mlp", "words")
MOST_LOOSE = 12


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _path(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(path: Path) -> set[str]:
    """The app modules ``path`` imports, with the packages whose __init__ each import runs."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    named = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            named |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            named.add(base)
            named |= {f"{base}.{a.name}" for a in node.names if _path(f"{base}.{a.name}")}
    found = set()
    for name in named:
        parts = name.split(".")
        found |= {".".join(parts[:i]) for i in range(1, len(parts) + 1) if parts[0] == "app"}
    return {name for name in found if _path(name)}


def _reached(starts: list[Path]) -> dict[str, str]:
    """Every app module the ``starts`` import, directly or not: module -> the module that imports it."""
    seen = {_module(p): "" for p in starts}
    todo = list(seen)
    while todo:
        module = todo.pop()
        for name in _imports(_path(module)):
            if name not in seen:
                seen[name] = module
                todo.append(name)
    return seen


def _offences(folder: str, never: tuple[str, ...]) -> list[str]:
    reached = _reached(sorted((ROOT / "app" / folder).rglob("*.py")))
    bad = []
    for name in sorted(reached):
        if any(name == n or name.startswith(n + ".") for n in never):
            chain = [name]
            while reached[chain[-1]]:
                chain.append(reached[chain[-1]])
            bad.append(" <- ".join(chain))
    return bad


def test_the_worker_imports_no_server_drawing_or_route_module():
    """The sandboxed worker runs the user's program: it loads only the code its jobs need."""
    assert not _offences("worker", WORKER_NEVER), "\n".join(_offences("worker", WORKER_NEVER))


def test_folding_imports_neither_the_drawing_nor_the_server_nor_the_worker():
    """Both sides read the folding (the drawing its levels, the worker its parts and views)."""
    assert not _offences("folding", FOLDING_NEVER), "\n".join(_offences("folding", FOLDING_NEVER))


def _route_importers(root: Path) -> list[str]:
    """The app modules, other than the routes themselves and app/main.py (which mounts them), that
    import a route module, directly or through a function-level import."""
    bad = []
    for path in sorted((root / "app").rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[1] == "routes" or rel == Path("app/main.py"):
            continue
        if any(name == "app.routes" or name.startswith("app.routes.") for name in _imports(path)):
            bad.append(str(rel))
    return bad


def test_no_module_below_the_routes_imports_a_route():
    """The routes are the top floor of app/: what they share with the page as one file or the drawing
    (direction settings, the MLP form's bounds) lives in the floor below, never in a route."""
    assert not _route_importers(ROOT), _route_importers(ROOT)


def test_a_route_imported_from_below_is_caught(tmp_path, monkeypatch):
    for folder in ("routes", "drawing"):
        (tmp_path / "app" / folder).mkdir(parents=True)
        (tmp_path / "app" / folder / "__init__.py").write_text('"""docs"""\n')
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "routes" / "limits.py").write_text("")
    (tmp_path / "app" / "main.py").write_text("from .routes import limits\n")
    (tmp_path / "app" / "offline.py").write_text("def f():\n    from .routes.limits import x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _route_importers(tmp_path) == ["app/offline.py"]


def test_the_folders_say_what_lives_in_them_and_import_nothing():
    """A folder's __init__ runs on every import from it: one that imported a module would pull it into
    whichever side imports its neighbour."""
    for folder in NEW_FOLDERS:
        body = ast.parse((ROOT / "app" / folder / "__init__.py").read_text()).body
        only = body[0] if len(body) == 1 else None
        assert isinstance(only, ast.Expr) and isinstance(getattr(only.value, "value", None), str), folder


def test_few_modules_are_loose_at_the_top_of_app():
    loose = sorted(p.name for p in (ROOT / "app").glob("*.py"))
    assert len(loose) <= MOST_LOOSE, loose


def test_the_walk_follows_function_level_and_relative_imports(tmp_path, monkeypatch):
    """The rule can fail: a worker module that reaches the drawing through a function-level import in
    another folder is caught, with the chain that leads there."""
    for folder in ("worker", "folding", "drawing"):
        (tmp_path / "app" / folder).mkdir(parents=True)
        (tmp_path / "app" / folder / "__init__.py").write_text('"""docs"""\n')
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "drawing" / "layout.py").write_text("")
    (tmp_path / "app" / "worker" / "job.py").write_text("from ..folding import plan\n")
    (tmp_path / "app" / "folding" / "plan.py").write_text("def f():\n    from ..drawing.layout import x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _offences("worker", WORKER_NEVER) == [
        "app.drawing <- app.folding.plan <- app.worker.job",
        "app.drawing.layout <- app.folding.plan <- app.worker.job"]
    assert _offences("folding", FOLDING_NEVER) == ["app.drawing <- app.folding.plan",
                                                   "app.drawing.layout <- app.folding.plan"]

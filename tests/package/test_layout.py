"""The engine, the app and gradviz name each other only with ordinary import statements that tools
follow: ``from engine.x import y`` / ``from app.x import y``, as the checkout lays them out. setup.py
rewrites exactly those statements to ``gradviz.engine`` / ``gradviz.app`` in a wheel; a module path
in a string, a bare ``import engine`` or an importlib lookup of those names would not be rewritten
and would break (or claim a top-level name) when installed."""

from __future__ import annotations

import ast
import re
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
DYNAMIC = {"engine/runner/policy.py", "app/sandbox/template.py", "app/sandbox/confinement.py"}


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

"""The engine and the app never name each other (or themselves) by a fixed absolute name: installed,
they are gradviz.engine and gradviz.app, and such an import or module path would break there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ABSOLUTE = re.compile(r"^(engine|app)(\.\w+)+(:\w+)?$")


def test_no_absolute_engine_or_app_names_in_their_code():
    found = []
    for part in ("engine", "app"):
        for path in sorted((ROOT / part).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    names = [node.value] if ABSOLUTE.match(node.value) else []
                for name in names:
                    if name.split(".")[0] in ("engine", "app"):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not found, "use relative imports, app/package.py or __package__ instead:\n" + "\n".join(found)

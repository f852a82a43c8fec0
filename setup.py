"""Packaging. The checkout keeps engine/, app/, templates/ and static/ at its root (``import engine
as torch`` and ``python -m app`` work there); an installed gradviz holds them inside the gradviz
package, as gradviz.engine, gradviz.app, gradviz/templates and gradviz/static, so installing it
claims no top-level name but ``gradviz``. Everything else is in pyproject.toml.

The source names the parts as the checkout lays them out (``from engine.trace import Trace``,
``from app import offline``); the copies that go into a wheel say ``gradviz.engine`` and
``gradviz.app`` instead (``BuildPy``), on the same lines. An editable install keeps the checkout's
layout: it maps the top-level ``engine``, ``app`` and ``gradviz`` to the checkout."""

import ast
import re
import sys
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

PARTS = ("engine", "app")  # Python packages (engine/ops is a namespace package: no __init__.py)
DATA = ("templates", "static")  # the page's files, every file of every folder

packages = ["gradviz"]
for part in PARTS:
    found = find_namespace_packages(include=[part, f"{part}.*"], exclude=["*.__pycache__"])
    packages += [f"gradviz.{p}" for p in found]
package_dir = {"gradviz": "gradviz", **{f"gradviz.{d}": d for d in (*PARTS, *DATA)}}
package_data = {}
for top in DATA:
    for folder in [Path(top), *sorted(p for p in Path(top).rglob("*") if p.is_dir())]:
        name = "gradviz." + ".".join(folder.parts)
        packages.append(name)
        package_data[name] = ["*"]


def installed_text(text: str, where: str = "") -> str:
    """A module's text as a wheel holds it: each ``from engine...`` / ``from app...`` statement names
    ``gradviz.engine`` / ``gradviz.app`` (only the module name changes, on its own line, so line
    numbers and tracebacks match the checkout). A bare ``import engine`` / ``import app`` could not
    be rewritten this way and is refused."""
    lines = text.splitlines(keepends=True)
    for node in ast.walk(ast.parse(text, where)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] in PARTS:
            i, at = node.lineno - 1, node.col_offset
            rest, n = re.subn(r"^from(\s+)(engine|app)\b", r"from\1gradviz.\2", lines[i][at:], count=1)
            lines[i] = lines[i][:at] + rest
            if n != 1:
                raise SystemExit(f"{where}:{node.lineno}: write `from {node.module} import ...` on one line")
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] in PARTS for a in node.names):
            raise SystemExit(f"{where}:{node.lineno}: write `from engine... import ...`, not `import ...`")
    return "".join(lines)


class BuildPy(build_py):
    """build_py that writes the installed names into the wheel's copies of the modules."""

    def build_module(self, module, module_file, package):
        out, copied = super().build_module(module, module_file, package)
        path = Path(out)
        text = path.read_text()
        installed = installed_text(text, str(module_file))
        if installed != text:
            path.unlink()  # a fresh file: the copy may be a link to the source
            path.write_text(installed)
        return out, copied


if "editable_wheel" in sys.argv:  # pip install -e: the checkout's own names, from the checkout
    packages = ["gradviz"] + [p for part in PARTS
                              for p in find_namespace_packages(include=[part, f"{part}.*"],
                                                               exclude=["*.__pycache__"])]
    package_dir, package_data = {}, {}

setup(packages=packages, package_dir=package_dir, package_data=package_data, cmdclass={"build_py": BuildPy})

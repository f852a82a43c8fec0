"""Packaging. The checkout keeps engine/, app/, templates/ and static/ at its root (``import engine
as torch`` and ``python -m app`` work there); an installed gradviz holds them inside the gradviz
package, as gradviz.engine, gradviz.app, gradviz/templates and gradviz/static, so installing it
claims no top-level name but ``gradviz``. Everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import find_namespace_packages, setup

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

setup(packages=packages, package_dir=package_dir, package_data=package_data)

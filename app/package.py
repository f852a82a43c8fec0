"""Where gradviz's parts are, in either of its two layouts. Only this module knows both.

- A checkout: top-level packages ``engine`` and ``app`` beside ``templates/`` and ``static/``
  (``import engine as torch``, ``python -m app``).
- An installed package (a wheel): the same directories as
  ``gradviz.engine``, ``gradviz.app``, ``gradviz/templates`` and ``gradviz/static``, so installing
  gradviz claims no top-level name but ``gradviz``.

The app and the engine are always siblings. Code in either names the other with ordinary
``from engine.x import y`` / ``from app.x import y`` statements, as the checkout lays them out;
setup.py rewrites those statements to ``gradviz.engine`` / ``gradviz.app`` in the copies that go
into a wheel. This module knows the paths (directories, and the module path strings that ``-m``
and the job table need), not the imports.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

APP = __package__  # "app" in a checkout, "gradviz.app" when installed
PREFIX = APP[: -len("app")]  # "" or "gradviz."
INSTALLED = bool(PREFIX)

# The directory that holds app/, engine/, templates/ and static/: the checkout's root, or the
# installed gradviz package.
ROOT = Path(__file__).resolve().parent.parent
APP_DIR = Path(__file__).resolve().parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"


def code_dirs() -> list[Path]:
    """What of gradviz a sandboxed worker must be able to read: the engine and the app, and when
    installed the ``gradviz`` package they live in (importing ``gradviz.app`` runs its
    ``__init__``)."""
    return [ROOT / "engine", APP_DIR] + ([ROOT] if INSTALLED else [])


def python_module_args(module: str) -> list[str]:
    """The interpreter options that run ``module`` of the app (``-m app.sandbox.template``): in a
    checkout from its root (the working directory), installed from the interpreter's own path
    only (``-P``: the working directory must not add top-level packages)."""
    return (["-P"] if INSTALLED else []) + ["-m", f"{APP}.{module}"]


@cache
def code_digest() -> str:
    """A digest of the engine's and the app's source: what computes every answer and drawing (keys
    in a cache that replicas of different versions may share hold it), with the page's catalogue of
    words (a drawing's legend is written from it)."""
    h = hashlib.sha256()
    for top, pattern in ((ROOT / "engine", "*.py"), (APP_DIR, "*.py"), (STATIC / "js" / "i18n", "*.js")):
        for path in sorted(top.rglob(pattern)):
            h.update(str(path.relative_to(top)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]

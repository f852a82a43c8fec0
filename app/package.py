"""Where gradviz's parts are, in either of its two layouts. Only this module knows both.

- A checkout: top-level packages ``engine`` and ``app`` beside ``templates/`` and ``static/``
  (``import engine as torch``, ``python -m app``).
- An installed package (a wheel, or an editable install): the same directories as
  ``gradviz.engine``, ``gradviz.app``, ``gradviz/templates`` and ``gradviz/static``, so installing
  gradviz claims no top-level name but ``gradviz``.

The app and the engine are always siblings, so the app finds the engine beside its own package,
and nothing in either package names the other by a fixed absolute name.
"""

from __future__ import annotations

import hashlib
import importlib
from functools import cache
from pathlib import Path

APP = __package__  # "app" in a checkout, "gradviz.app" when installed
PREFIX = APP[: -len("app")]  # "" or "gradviz."
ENGINE = PREFIX + "engine"
INSTALLED = bool(PREFIX)

# The directory that holds app/, engine/, templates/ and static/: the checkout's root, or the
# installed gradviz package.
ROOT = Path(__file__).resolve().parent.parent
APP_DIR = Path(__file__).resolve().parent
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"


def engine(module: str = ""):
    """The engine package (or one of its modules, e.g. ``engine("trace")``)."""
    return importlib.import_module(f"{ENGINE}.{module}" if module else ENGINE)


def from_engine(module: str, *names: str) -> tuple:
    """``from engine.<module> import <names>``, whatever the engine is installed as."""
    mod = engine(module)
    return tuple(getattr(mod, name) for name in names)


def engine_dir() -> Path:
    return Path(engine().__file__).resolve().parent


def code_dirs() -> list[Path]:
    """What of gradviz a sandboxed worker must be able to read: the engine and the app, and when
    installed the ``gradviz`` package they live in (importing ``gradviz.app`` runs its
    ``__init__``; an editable install keeps it apart from the other two)."""
    dirs = [engine_dir(), APP_DIR]
    if INSTALLED:
        top = importlib.import_module(PREFIX.rstrip("."))
        dirs.append(Path(top.__file__).resolve().parent)
    return dirs


def python_module_args(module: str) -> list[str]:
    """The interpreter options that run ``module`` of the app (``-m app.sandbox.template``): in a
    checkout from its root (the working directory), installed from the interpreter's own path
    only (``-P``: the working directory must not add top-level packages)."""
    return (["-P"] if INSTALLED else []) + ["-m", f"{APP}.{module}"]


@cache
def code_digest() -> str:
    """A digest of the engine's and the app's source: what computes every answer and drawing (keys
    in a cache that replicas of different versions may share hold it)."""
    h = hashlib.sha256()
    for top in (ROOT / "engine", APP_DIR):  # siblings in either layout
        for path in sorted(top.rglob("*.py")):
            h.update(str(path.relative_to(top)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]

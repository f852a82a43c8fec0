"""The engine and the app as this package sees them.

Installed (a wheel or an editable install), they are ``gradviz.engine`` and ``gradviz.app``. In a
checkout, ``gradviz/`` sits beside the top-level ``engine/`` and ``app/`` that the tests and
``python -m app`` import: when those are the ones importable here, they are used, so that one
process never holds two copies of the engine.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _name(part: str) -> str:
    if (_HERE / part).is_dir():
        return f"{__package__}.{part}"  # a wheel: the part lives inside this package
    try:
        spec = importlib.util.find_spec(part)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin and Path(spec.origin).resolve().parent == _HERE.parent / part:
        return part  # the checkout's own top-level package
    return f"{__package__}.{part}"


ENGINE = _name("engine")
APP = _name("app")


def engine(module: str = ""):
    """The engine (``engine("trace")``: one of its modules)."""
    return importlib.import_module(f"{ENGINE}.{module}" if module else ENGINE)


def app(module: str = ""):
    """The app (``app("offline")``: one of its modules)."""
    return importlib.import_module(f"{APP}.{module}" if module else APP)

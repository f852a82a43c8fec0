"""Graphviz's ``dot`` program: gradviz draws every graph with it, and it is not a Python package, so
when it is missing the message says how to install it on each system."""

from __future__ import annotations

import shutil

INSTALL = ("Debian/Ubuntu: sudo apt-get install graphviz; macOS: brew install graphviz; "
           "Windows: winget install graphviz (or choco install graphviz), then open a new terminal")


def dot_problem() -> str | None:
    """Why graphs cannot be drawn here (None: ``dot`` is on the PATH)."""
    if shutil.which("dot") is None:
        return ("Graphviz's dot program is not installed (or not on the PATH); gradviz draws graphs with "
                f"it. Install the graphviz package: {INSTALL}")
    return None

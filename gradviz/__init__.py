"""gradviz: computational graphs, step by step.

From Python::

    import gradviz
    gradviz.show(source)                  # in Jupyter: the player, inline
    gradviz.render(source, "run.html")    # one HTML file that plays it anywhere (or .svg / .png)
    with gradviz.record() as rec:         # real PyTorch, in your own process
        loss = model(x).sum(); loss.backward()
    gradviz.show(rec)

``source`` is a program in PyTorch's terms, run by gradviz's own engine and runner, in the same
OS sandbox as the server when bubblewrap is installed (``sandbox=False``: the language layer only;
``sandbox="require"``: fail without it; ``gradviz.ran_in()`` says which layers ran the last one); a
recording comes from real ``torch``. In IPython, importing gradviz also adds the ``%%gradviz`` cell magic.
The engine and the web app are ``gradviz.engine`` and ``gradviz.app`` when installed.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["GradvizError", "html", "load_ipython_extension", "ran_in", "record", "render", "show"]

from .errors import GradvizError


def show(what, variables: dict | None = None, lang: str = "en", height: int = 760, sandbox="auto") -> None:
    """In Jupyter: the player for a program's source or a recording, in the cell's output.
    ``sandbox``: as for ``render``."""
    from .notebook import show as _show

    _show(what, variables, lang, height, sandbox)


def render(what, path, variables: dict | None = None, lang: str = "en", view: int = 0, sandbox="auto"):
    """Write a program's source or a recording to ``path``: ``.html`` (the player, one file),
    ``.svg`` or ``.png`` (the graph). Returns the path. A program runs in the server's OS sandbox
    when bubblewrap is installed, else with the language layer alone and a warning (``sandbox``:
    "auto"; False: the language layer only; "require" or True: fail without the sandbox);
    ``ran_in()`` says which ran it."""
    from .output import render as _render

    return _render(what, path, variables, lang, view, sandbox=sandbox)


def html(what, variables: dict | None = None, lang: str = "en", sandbox="auto") -> str:
    """The self-contained HTML page that plays a program's source or a recording (``sandbox``: as
    for ``render``)."""
    from .output import html as _html

    return _html(what, variables, lang, sandbox=sandbox)


def ran_in():
    """Which layers ran the last program of this process (``render``, ``show``, ``html``,
    ``%%gradviz``): ``.layers`` ("language", "process", "os"), ``.reason`` when the OS sandbox did
    not, and ``str()`` as the command line says it; None before any program ran."""
    from .sandboxing import last

    return last()


def record(**kwargs):
    """``with gradviz.record() as rec:`` records real PyTorch's autograd graph and backward passes
    run in the block (in this process), for ``gradviz.show(rec)`` / ``gradviz.render(rec, ...)``."""
    from .recording import record as _record

    return _record(**kwargs)


def load_ipython_extension(ipython) -> None:
    """``%load_ext gradviz``: the ``%%gradviz`` cell magic."""
    from .notebook import load_ipython_extension as _load

    _load(ipython)


def _in_ipython() -> None:
    """Add the cell magic when imported inside IPython (and only then: no IPython import here)."""
    import sys

    mod = sys.modules.get("IPython")
    shell = mod.get_ipython() if mod is not None and hasattr(mod, "get_ipython") else None
    if shell is not None and hasattr(shell, "register_magic_function"):
        load_ipython_extension(shell)


_in_ipython()

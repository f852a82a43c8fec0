"""gradviz in Jupyter: ``gradviz.show(...)`` puts the player in the cell's output, and the
``%%gradviz`` cell magic runs the cell's program and shows it.

The player is the whole page as one HTML file (app/offline.py) inside an iframe's ``srcdoc``,
sandboxed (scripts only, in an origin of its own): the notebook's styles and scripts cannot reach
it, nor it the notebook. Programs run through gradviz's runner, as on the server: the AST
interpreter with its allow-list and limits (``import engine as torch``), never ``exec``, in the
server's OS sandbox when bubblewrap is installed (one worker pool for the kernel's session:
gradviz/sandboxing.py).
"""

from __future__ import annotations

import html as html_lib
import shlex
import sys

from .errors import GradvizError

DEFAULT_HEIGHT = 760
NO_IPYTHON = ("gradviz.show() draws into a Jupyter notebook (IPython), and IPython is not running "
              "here. Write a file instead: gradviz.render(program_or_recording, 'run.html'), then open it.")


def _ipython():
    """The running IPython shell, or None."""
    mod = sys.modules.get("IPython")
    if mod is None:
        try:
            import IPython as mod
        except ImportError:
            return None
    get = getattr(mod, "get_ipython", None)
    return get() if get is not None else None


def iframe(page: str, height: int = DEFAULT_HEIGHT) -> str:
    """The page in a sandboxed iframe (its whole document in ``srcdoc``), inside a <div>: IPython's
    HTML warns on every output that is a bare <iframe> ("Consider using IPython.display.IFrame",
    which cannot take a document nor a sandbox). The page fits its columns and step bar in the
    frame's height (static/css/app.css)."""
    return (f'<div class="gradviz-output"><iframe srcdoc="{html_lib.escape(page, quote=True)}" '
            f'data-gradviz="player" sandbox="allow-scripts allow-downloads" style="display: block; '
            f'width: 100%; height: {int(height)}px; border: 1px solid #d1d5db; border-radius: 6px;" '
            f'loading="eager" title="gradviz"></iframe></div>')


def _message(text: str) -> str:
    return (f'<div data-gradviz="error" style="border-left: 4px solid #dc2626; padding: 6px 10px; '
            f'background: #fef2f2; color: #7f1d1d; font-family: sans-serif;">gradviz: '
            f'{html_lib.escape(text)}</div>')


def show(what, variables: dict | None = None, lang: str = "en", height: int = DEFAULT_HEIGHT,
         sandbox="auto", opted_out: str = "sandbox=False") -> None:
    """Show the player for ``what`` in the notebook: a program's source (a str, run by gradviz's
    runner, in the OS sandbox as ``sandbox`` says: gradviz/sandboxing.py) or a ``gradviz.record()``
    recording of real PyTorch. Outside IPython it says so."""
    shell = _ipython()
    if shell is None:
        print(f"gradviz: {NO_IPYTHON}", file=sys.stderr)
        return
    from IPython.display import HTML, display

    from .output import html

    try:
        page = html(what, variables, lang, sandbox=sandbox, opted_out=opted_out)
    except GradvizError as exc:
        display(HTML(_message(str(exc))))
        return
    display(HTML(iframe(page, height)))


MAGIC_USAGE = "%%gradviz [--lang en|zh] [--height PX] [--no-sandbox | --sandbox]"
SANDBOX_FLAGS = {"--no-sandbox": False, "--sandbox": "require"}


def gradviz_magic(line: str, cell: str) -> None:
    """``%%gradviz [--lang zh] [--height PX] [--no-sandbox | --sandbox]``: run the cell's program
    with gradviz and show it (in the OS sandbox when it can; ``--no-sandbox``: the language layer
    only; ``--sandbox``: fail without the OS sandbox)."""
    lang, height, sandbox = "en", DEFAULT_HEIGHT, "auto"
    try:
        words = shlex.split(line)
        while words:
            word = words.pop(0)
            if word == "--lang" and words:
                lang = words.pop(0)
            elif word == "--height" and words:
                height = int(words.pop(0))
            elif word in SANDBOX_FLAGS and sandbox == "auto":
                sandbox = SANDBOX_FLAGS[word]
            else:
                raise ValueError(word)
    except ValueError as exc:
        from IPython.display import HTML, display

        display(HTML(_message(f"{MAGIC_USAGE}: cannot read {str(exc) or line!r}")))
        return
    show(cell, lang=lang, height=height, sandbox=sandbox, opted_out="--no-sandbox")


def load_ipython_extension(ipython) -> None:
    """``%load_ext gradviz`` (also done by ``import gradviz`` in IPython): the ``%%gradviz`` magic."""
    ipython.register_magic_function(gradviz_magic, magic_kind="cell", magic_name="gradviz")

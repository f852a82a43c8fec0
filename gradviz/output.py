"""A run as a file: the self-contained HTML page that plays it, or its drawing as SVG or PNG.

What can be shown: a program's source (run through gradviz's runner, ``import engine as torch``,
with the same language and limits as the server: in the server's OS sandbox when it can start,
gradviz/sandboxing.py), or a ``Recording`` of real PyTorch (``gradviz.record()``).
"""

from __future__ import annotations

import html as html_lib
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

from . import sandboxing
from .errors import GradvizError, program_error

FORMATS = (".html", ".svg", ".png")


def _need_dot() -> None:
    from app.drawing.dot import dot_problem

    problem = dot_problem()
    if problem:
        raise GradvizError(problem)


class Run(NamedTuple):
    """A program's or a recording's run, drawn: the answer as ``POST /api/run`` gives it, what ran,
    and which layers ran it (None for a recording: no program source ran)."""

    answer: dict
    source: str
    variables: dict | None
    containment: sandboxing.Containment | None = None


def answer_of(what, variables: dict | None = None, file: str | None = None, sandbox="auto",
              opted_out: str = "sandbox=False", warn: bool = True) -> Run:
    """The ``Run`` of a program's source or a Recording. A program runs in the OS sandbox or with
    the language layer alone, as ``sandbox`` says (gradviz/sandboxing.py; ``opted_out``: how the
    caller turned it off, ``warn``: say on stderr when it falls back)."""
    from app import offline

    _need_dot()
    if isinstance(what, str):
        pool, containment = sandboxing.containment_for(sandbox, opted_out, warn)
        try:
            answer = offline.run_answer(what, variables) if pool is None \
                else sandboxing.run_answer(pool, what, variables)
        except offline.ProgramFailed as exc:
            raise program_error(exc.error, file) from None
        finally:
            sandboxing.record(containment)
        return Run(answer, what, variables, containment)
    answer_data = getattr(what, "answer_data", None)
    if answer_data is None:
        raise GradvizError(f"gradviz shows a program's source (a str) or a gradviz.record() recording, "
                           f"not {type(what).__name__}")
    return Run(offline.drawn_answer(answer_data()), what.source, None)


def html(what, variables: dict | None = None, lang: str = "en", title: str | None = None,
         file: str | None = None, sandbox="auto", opted_out: str = "sandbox=False") -> str:
    """The self-contained HTML page that plays ``what`` (no network: JS, CSS and data inline)."""
    _check_lang(lang)
    return page_of(answer_of(what, variables, file, sandbox, opted_out), lang=lang, title=title)


def page_of(run: Run, lang: str = "en", title: str | None = None) -> str:
    """The page for a run (every level and direction of its drawing included, and, for a program's
    source, its folded boxes opened one at a time, the program run again as it ran first), with a
    note of the layers that ran it."""
    from app import offline

    answer, source, variables, containment = run
    opened = None if containment is None \
        else sandboxing.opened_answers(containment, source, variables, answer)
    data = offline.offline_data(answer, source, variables, lang=lang, title=title,
                                layouts=offline.all_layouts(answer), limits=offline.limits_data(),
                                opened=opened)
    return with_note(offline.page(data, lang), containment)


def with_note(page: str, containment: sandboxing.Containment | None) -> str:
    """The page with a footer that says which layers ran its program, in English and Chinese: plain
    text (no script, no style) at the end of its body."""
    if containment is None:
        return page
    end = page.rfind("</body>")
    if end < 0:
        return page
    note = (f'<footer class="muted" data-gradviz="containment" data-layers="{" ".join(containment.layers)}">'
            f'<small lang="en">{html_lib.escape(containment.note("en"))}</small> · '
            f'<small lang="zh-CN">{html_lib.escape(containment.note("zh"))}</small></footer>\n')
    return page[:end] + note + page[end:]


def _check_lang(lang: str) -> None:
    if lang not in ("en", "zh"):
        raise GradvizError(f"lang must be 'en' or 'zh', not {lang!r}")


def render(what, path, variables: dict | None = None, lang: str = "en", view: int = 0,
           file: str | None = None, sandbox="auto") -> Path:
    """Write ``what`` to ``path``: ``.html`` the page that plays it, ``.svg`` / ``.png`` the drawing
    of one view (``view``: which, for a program with several backward passes). Returns the path."""
    path = _output(path)
    _check_lang(lang)
    return write(answer_of(what, variables, file, sandbox), path, lang, view)


def _output(path) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise GradvizError(f"{path}: the output must end in .html, .svg or .png")
    return path


def write(run: Run, path, lang: str = "en", view: int = 0) -> Path:
    """Write a run (``answer_of``'s result) to ``path`` in the format its suffix names."""
    path = _output(path)
    answer = run.answer
    suffix = path.suffix.lower()
    if suffix == ".html":
        page = page_of(run, lang, title=path.stem)
        _write(path, page.encode("utf-8"))
        return path
    views = answer["views"]
    if not views or not answer["graph"]["nodes"]:
        raise GradvizError("the program recorded no graph to draw (no op on a tensor that requires grad)")
    if not 0 <= view < len(views):
        raise GradvizError(f"there are {len(views)} views (0 to {len(views) - 1}), not {view}")
    if suffix == ".svg":
        from app.drawing.dot_text import legend_in

        svg = legend_in(views[view]["svg"], lang)
        _write(path, ('<?xml version="1.0" encoding="UTF-8"?>\n' + svg).encode("utf-8"))
    else:
        _write(path, _png(answer, view, lang))
    return path


def _png(answer: dict, view: int, lang: str = "en") -> bytes:
    """The view as a PNG: its SVG drawing rasterized by ``rsvg-convert`` (librsvg) when it is
    installed, so open loops look as they do on the page; else drawn again by ``dot -Tpng``, where
    an open loop is a closed box (in the SVG each open loop is a drawing of its own, nested)."""
    from app.drawing.dot_text import legend_in

    rsvg = shutil.which("rsvg-convert")
    if rsvg is not None:
        svg = legend_in(answer["views"][view]["svg"], lang)
        svg = ('<?xml version="1.0" encoding="UTF-8"?>\n' + svg).encode("utf-8")
        return _convert([rsvg, "--zoom", "2", "--background-color", "white", "--format", "png"], svg,
                        "librsvg")
    from app import schemas
    from app.drawing import layout as app_layout

    data = app_layout.layout_data(schemas.LayoutInput.model_validate(schemas.layout_input(answer)))
    dot = app_layout.view_dot(data, view)
    if dot is None:
        raise GradvizError("the graph has too many nodes to draw")
    dot = legend_in(dot, lang)
    return _convert(["dot", "-Tpng", "-Gdpi=144", "-Gbgcolor=white"], dot.encode(), "graphviz")


def _convert(cmd: list[str], data: bytes, name: str) -> bytes:
    """``cmd`` reading ``data`` on its input; what it writes, or a clear error."""
    try:
        proc = subprocess.run(cmd, input=data, capture_output=True, timeout=120)
    except FileNotFoundError:
        from app.drawing.dot import dot_problem

        raise GradvizError(dot_problem() or f"{cmd[0]} could not be started") from None
    except subprocess.TimeoutExpired:
        raise GradvizError(f"{name} took too long to draw this graph") from None
    if proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace")[:300]
        raise GradvizError(f"{name} could not draw this graph: {detail}")
    return proc.stdout


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise GradvizError(f"{path}: cannot write it ({exc.strerror or exc})") from None


def read_program(path) -> str:
    """A program file's text, or a clear error when it cannot be one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise GradvizError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise GradvizError(f"{path}: is a directory, not a Python program") from None
    except OSError as exc:
        raise GradvizError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if b"\0" in data[:8192]:
        raise GradvizError(f"{path}: is not a Python program (it is a binary file)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GradvizError(f"{path}: is not a Python program (not UTF-8 text: byte {exc.start})") from None

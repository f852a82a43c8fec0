"""A run as a file: the self-contained HTML page that plays it, or its drawing as SVG or PNG.

What can be shown: a program's source (run here through gradviz's runner, ``import engine as
torch``, with the same language and limits as the server), or a ``Recording`` of real PyTorch
(``gradviz.record()``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from . import _parts
from .errors import GradvizError, program_error

FORMATS = (".html", ".svg", ".png")


def _need_dot() -> None:
    problem = _parts.app("dot").dot_problem()
    if problem:
        raise GradvizError(problem)


def answer_of(what, variables: dict | None = None, file: str | None = None) -> tuple[dict, str, dict | None]:
    """``(answer, source, variables)`` for a program's source or a Recording: the answer as
    ``POST /api/run`` gives it, drawn."""
    _need_dot()
    offline = _parts.app("offline")
    if isinstance(what, str):
        try:
            return offline.run_answer(what, variables), what, variables
        except offline.ProgramFailed as exc:
            raise program_error(exc.error, file) from None
    answer_data = getattr(what, "answer_data", None)
    if answer_data is None:
        raise GradvizError(f"gradviz shows a program's source (a str) or a gradviz.record() recording, "
                           f"not {type(what).__name__}")
    return offline.drawn_answer(answer_data()), what.source, None


def html(what, variables: dict | None = None, lang: str = "en", title: str | None = None,
         file: str | None = None) -> str:
    """The self-contained HTML page that plays ``what`` (no network: JS, CSS and data inline)."""
    _check_lang(lang)
    answer, source, variables = answer_of(what, variables, file)
    return page_of(answer, source, variables, lang=lang, title=title, program=isinstance(what, str))


def page_of(answer: dict, source: str, variables: dict | None, lang: str = "en",
            title: str | None = None, program: bool = True) -> str:
    """The page for an answer (every level and direction of its drawing included, and, for a
    program's source (``program``), its folded boxes opened one at a time)."""
    offline = _parts.app("offline")
    opened = offline.opened_answers(source, variables, answer) if program else None
    data = offline.offline_data(answer, source, variables, lang=lang, title=title,
                                layouts=offline.all_layouts(answer), limits=offline.limits_data(),
                                opened=opened)
    return offline.page(data, lang)


def _check_lang(lang: str) -> None:
    if lang not in ("en", "zh"):
        raise GradvizError(f"lang must be 'en' or 'zh', not {lang!r}")


def render(what, path, variables: dict | None = None, lang: str = "en", view: int = 0,
           file: str | None = None) -> Path:
    """Write ``what`` to ``path``: ``.html`` the page that plays it, ``.svg`` / ``.png`` the drawing
    of one view (``view``: which, for a program with several backward passes). Returns the path."""
    path = _output(path)
    _check_lang(lang)
    return write(answer_of(what, variables, file), path, lang, view, program=isinstance(what, str))


def _output(path) -> Path:
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise GradvizError(f"{path}: the output must end in .html, .svg or .png")
    return path


def write(run: tuple[dict, str, dict | None], path, lang: str = "en", view: int = 0,
          program: bool = True) -> Path:
    """Write a run (``answer_of``'s result) to ``path`` in the format its suffix names (``program``:
    it is a program's source, which a page may run again to open its folded boxes ahead of time)."""
    path = _output(path)
    answer, source, variables = run
    suffix = path.suffix.lower()
    if suffix == ".html":
        page = page_of(answer, source, variables, lang, title=path.stem, program=program)
        _write(path, page.encode("utf-8"))
        return path
    views = answer["views"]
    if not views or not answer["graph"]["nodes"]:
        raise GradvizError("the program recorded no graph to draw (no op on a tensor that requires grad)")
    if not 0 <= view < len(views):
        raise GradvizError(f"there are {len(views)} views (0 to {len(views) - 1}), not {view}")
    if suffix == ".svg":
        svg = _parts.app("dot_text").legend_in(views[view]["svg"], lang)
        _write(path, ('<?xml version="1.0" encoding="UTF-8"?>\n' + svg).encode("utf-8"))
    else:
        _write(path, _png(answer, view, lang))
    return path


def _png(answer: dict, view: int, lang: str = "en") -> bytes:
    """The view as a PNG: its SVG drawing rasterized by ``rsvg-convert`` (librsvg) when it is
    installed, so open loops look as they do on the page; else drawn again by ``dot -Tpng``, where
    an open loop is a closed box (in the SVG each open loop is a drawing of its own, nested)."""
    legend_in = _parts.app("dot_text").legend_in
    rsvg = shutil.which("rsvg-convert")
    if rsvg is not None:
        svg = legend_in(answer["views"][view]["svg"], lang)
        svg = ('<?xml version="1.0" encoding="UTF-8"?>\n' + svg).encode("utf-8")
        return _convert([rsvg, "--zoom", "2", "--background-color", "white", "--format", "png"], svg,
                        "librsvg")
    app_layout = _parts.app("layout")
    schemas = _parts.app("schemas")
    data = app_layout.layout_data(schemas.LayoutInput.model_validate(app_layout.layout_input(answer)))
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
        raise GradvizError(_parts.app("dot").dot_problem() or f"{cmd[0]} could not be started") from None
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

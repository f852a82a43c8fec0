"""The page as one self-contained HTML file: a run to play from ``file://``, with no server.

The file is the page itself (templates/index.html) with its stylesheets and its modules inlined
(app/bundle.py: built from static/ when asked, so it is always the page as it is now) and the run
it plays in ``<script type="application/json" id="offline-data">``: the program and its inputs,
the answer of ``POST /api/run`` (drawings included), the drawings of the other graph levels and
directions the page may ask ``POST /api/layout`` for, the answers of ``POST /api/open`` for its
boxes opened (or closed) one at a time, and the server's limits. The page's
``static/js/offline.js`` answers the page's API calls from that data.

``shell()`` is the file without a run (``null`` in the slot); the page's "Save as HTML" button
fills the slot with the run it shows, ``page()`` does it here (``gradviz render``, notebooks).
"""

from __future__ import annotations

import json
import re
import time
from functools import lru_cache

from jinja2 import Environment, FileSystemLoader, select_autoescape

from .bundle import bundle
from .js_comments import strip_comment_lines
from .package import STATIC, TEMPLATES
from .server.csp import inline_scripts, offline_policy

DATA_OPEN = '<script type="application/json" id="offline-data">'
CHARSET = '<meta charset="utf-8">'
DATA_FORMAT = 1  # the version of the data's shape (offline.js refuses another)
LEVELS = ("auto", "module", "op")
DIRECTIONS = ("auto", "down")
OPENED_BYTES = 12_000_000  # the most the boxes opened ahead of time add to an offline page
OPENED_STATES = 24  # open sets an offline page holds answers for (the saved ones, then the others)
OPENED_SECONDS = 3.0  # about the most writing them may take
_CSS_LINK = re.compile(r'<link rel="stylesheet" href="/static/(css/[\w.-]+\.css)">')
_MODULE = re.compile(r'<script type="module" src="/static/(js/[\w.-]+\.js)"></script>')


def _safe_json(obj) -> str:
    """JSON that can sit inside a <script> element (no "<", so no "</script>")."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _inline_script(code: str) -> str:
    """JavaScript that can sit inline: no "</script" (which would end the element), no "<!--", and
    no "<script" either, so the data slot's tag appears in the file exactly once (the modules' own
    text names it). "\\x73" is "s" in a string, a template and a regular expression alike. Line ends
    are "\\n" alone: the browser hashes the text after turning "\\r\\n" into "\\n" (its CSP hash)."""
    if "<!--" in code:
        raise RuntimeError("the page's modules contain '<!--', which an inline script cannot hold")
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    return code.replace("</script", "<\\/script").replace("<script", "<\\x73cript")


def shell(lang: str = "en") -> str:
    """The page with everything inline and an empty data slot (``null``)."""
    return _shell(lang if lang in ("en", "zh") else "en", _static_stamp())


def _static_stamp() -> tuple:
    """Changes whenever a file of the page changes (so the cached shell is rebuilt)."""
    files = [TEMPLATES / "index.html", *sorted(STATIC.rglob("*.js")), *sorted(STATIC.rglob("*.css"))]
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)


@lru_cache(maxsize=4)
def _shell(lang: str, stamp: tuple) -> str:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]))
    html = env.get_template("index.html").render(examples_json="[]", lang=lang, languages=("en", "zh"))

    def css(m: re.Match) -> str:
        text = (STATIC / m.group(1)).read_text(encoding="utf-8").replace("</style", "<\\/style")
        return f"<style>\n{text}</style>"

    html, n_css = _CSS_LINK.subn(css, html)
    found = _MODULE.search(html)
    if found is None or n_css == 0:
        raise RuntimeError("templates/index.html no longer links its stylesheets and module as expected")
    script = _script(found.group(1), stamp)
    slot = f"{DATA_OPEN}null</script>\n  "
    html = html[:found.start()] + slot + f'<script type="module">\n{script}</script>' + html[found.end():]
    if html.count(DATA_OPEN) != 1:
        raise RuntimeError("the offline data slot must appear exactly once")
    return _with_policy(html)


@lru_cache(maxsize=2)
def _script(entry: str, stamp: tuple) -> str:
    """The page's modules as one inline script (the same for both languages)."""
    return _inline_script(strip_comment_lines(bundle(STATIC / entry)))


def _with_policy(html: str) -> str:
    """``html`` with its Content-Security-Policy in a ``<meta>`` first thing in its head: only its
    own inline scripts run (filling the data slot changes none of them)."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(html)}">'
    if html.count(CHARSET) != 1:
        raise RuntimeError("templates/index.html no longer declares its charset as expected")
    return html.replace(CHARSET, f"{CHARSET}\n  {meta}", 1)


def policy(html: str) -> str:
    """The Content-Security-Policy of a page that is one file: its inline scripts, by their hashes."""
    return offline_policy(inline_scripts(html))


def fill(shell_html: str, data: dict) -> str:
    """The shell with ``data`` in its slot."""
    start = shell_html.index(DATA_OPEN) + len(DATA_OPEN)
    end = shell_html.index("</script>", start)
    return shell_html[:start] + _safe_json(data) + shell_html[end:]


def page(data: dict, lang: str = "en") -> str:
    """The self-contained page that plays ``data`` (see ``offline_data``)."""
    return fill(shell(lang), data)


def offline_data(answer: dict, source: str, variables: dict | None, lang: str = "en",
                 step: int | None = None, title: str | None = None, layouts: dict | None = None,
                 limits: dict | None = None, opened: dict | None = None) -> dict:
    """What the offline page plays: the run's answer (a RunResponse as JSON data, drawn), its
    program, ``layouts`` (see ``all_layouts``) and ``opened`` (see ``opened_answers``)."""
    return {"format": DATA_FORMAT, "program": {"source": source, "variables": variables or {}},
            "answer": answer, "lang": lang, "step": step, "title": title,
            "layouts": layouts or {}, "limits": limits, "opened": opened or {"answers": {}, "left": 0}}


def open_states(answer: dict) -> list[tuple[int, list[str]]]:
    """The open sets of each view an offline page can show, as ``(view, open part ids)`` in the
    order the page asks for them, most wanted first: each view as saved, each box a drawing shows
    opened on its own, then each open part closed (with the parts inside it)."""
    parts = answer.get("parts") or []
    parent = {p["id"]: p.get("parent") for p in parts}

    def inside(pid: str, q: str | None) -> bool:
        while q is not None:
            if q == pid:
                return True
            q = parent.get(q)
        return False

    bases = [list(view.get("open") or []) for view in answer["views"]]
    saved = [(v, base) for v, base in enumerate(bases)]
    opened = [(p["view"], [*bases[p["view"]], p["id"]]) for p in parts
              if p["view"] < len(bases) and p["id"] not in bases[p["view"]]]
    closed = [(p["view"], [q for q in bases[p["view"]] if not inside(p["id"], q)]) for p in parts
              if p["view"] < len(bases) and p["id"] in bases[p["view"]]]
    return saved + opened + closed


def only_new(opened: dict, answer: dict) -> dict:
    """An answer of ``POST /api/open`` without the nodes, edges and backward steps ``answer``
    already holds (the page keeps what it knows and adds what is new: static/js/merge.js)."""
    nodes = {n["id"] for n in answer["graph"]["nodes"]}
    edges = {e["id"] for e in answer["graph"]["edges"]}
    steps = {bp["index"]: {st["index"] for st in bp["steps"]} for bp in answer["backward"]}
    graph = dict(opened["graph"], nodes=[n for n in opened["graph"]["nodes"] if n["id"] not in nodes],
                 edges=[e for e in opened["graph"]["edges"] if e["id"] not in edges])
    backward = [dict(bp, steps=[st for st in bp["steps"] if st["index"] not in steps.get(bp["index"], ())])
                for bp in opened["backward"]]
    return dict(opened, graph=graph, backward=backward)


def open_key(view: int, direction: str, opened: list[str]) -> str:
    """How an offline page finds the answer to ``POST /api/open``: the key of ``plan_opened``'s
    answers, which static/js/offline.js's ``openKey`` reads back (the one format, written here)."""
    return f"{view}|{direction}|{','.join(opened)}"


def plan_opened(answer: dict, open_some, budget: int = OPENED_BYTES, most: int = OPENED_STATES) -> dict:
    """The answers of ``POST /api/open`` an offline page holds so that it opens and closes its boxes
    one at a time: the first ``most`` of ``open_states``, then the boxes each opened drawing shows
    inside it (a loop's chunks), without what ``answer`` holds (``only_new``), within ``budget``
    bytes: ``{"answers": {open_key: OpenResponse data}, "left": how many were left out}``.

    ``open_some(states)`` opens ``[(view, open part ids), ...]`` (by running the program again,
    wherever the caller runs it): the OpenResponse data of the first of them, in order (fewer when
    its time ran out; None for one it could not draw), or None when there is nothing to open (the
    program cannot run, or is not the run ``answer`` shows). It is not called when nothing is
    folded. The one planning loop of ``gradviz render``, notebooks and the page's Save as HTML."""
    states = open_states(answer)
    if len(states) <= len(answer["views"]):  # nothing folded: nothing to open
        return {"answers": {}, "left": 0}
    answers, used, total = {}, 0, len(states)
    seen = {open_key(v, "auto", o) for v, o in states}
    asked = states[:most]
    while asked:
        got = open_some(asked)
        if got is None:
            return {"answers": {}, "left": 0}
        more = []
        for (view, opened), full in zip(asked, got):
            if full is None:
                continue
            data = only_new(full, answer)
            size = len(json.dumps(data, separators=(",", ":")))
            if used + size > budget:
                continue
            used += size
            answers[open_key(view, "auto", opened)] = data
            for state in nested_states(full, view, opened):
                key = open_key(state[0], "auto", state[1])
                if key not in seen:
                    seen.add(key)
                    total += 1
                    more.append(state)
        asked = more[:max(0, most - len(answers))]
    return {"answers": answers, "left": total - len(answers)}


def opened_answers(source: str, variables: dict | None, answer: dict, budget: int = OPENED_BYTES,
                   most: int = OPENED_STATES, seconds: float = OPENED_SECONDS) -> dict:
    """``plan_opened`` with the program run once more here, through the runner, and each open set
    answered in turn for about ``seconds``; a program that cannot run holds none."""
    return plan_opened(answer, _opener_here(source, variables, answer.get("fingerprint"), seconds),
                       budget, most)


def _opener_here(source: str, variables: dict | None, fingerprint: str | None, seconds: float):
    """``open_some`` for ``plan_opened``, in this process: the program runs at its first call."""
    from .drawing.layout import draw_response
    from .schemas.open import OpenResponse
    from .worker.execute import run_checked, serialize_result, view_answer

    ran: dict = {}

    def open_some(states: list) -> list | None:
        if not ran:
            ran["result"], ran["error"] = run_checked(source, variables)
            ran["until"] = time.monotonic() + seconds
        if ran["error"] is not None:
            return None
        out = []
        for view, opened in states:
            if time.monotonic() > ran["until"]:
                break
            resp = serialize_result(ran["result"], {view: opened}, whole=False)
            if resp["fingerprint"] != fingerprint or view >= len(resp["views"]):
                return None  # not the run the page holds
            part = view_answer(resp, view)
            draw_response(part)
            part.pop("svg", None)
            out.append(OpenResponse.model_validate(part).model_dump(mode="json", by_alias=True))
        return out

    return open_some


def nested_states(opened_answer: dict, view: int, opened: list[str]) -> list[tuple[int, list[str]]]:
    """The open sets one box further from ``opened``: each box the answer's drawing shows inside the
    part opened last (a loop's chunks), opened as well."""
    drawn = set(opened_answer["views"][0].get("open") or []) if opened_answer.get("views") else set()
    if not opened:
        return []
    return [(view, [*opened, p["id"]]) for p in opened_answer.get("parts") or []
            if p.get("parent") == opened[-1] and p["id"] not in opened and p["id"] not in drawn]


def all_layouts(answer: dict) -> dict:
    """Every drawing the page may ask for: ``{"svgs": [...], "keys": {"<level>|<direction>": [svg
    index of each view, ...]}}`` (equal drawings are kept once)."""
    from .drawing.layout import LayoutSettings, direction_settings, draw_views, layout_data
    from .schemas.layout import LayoutInput, layout_input

    if not answer.get("views"):
        return {"svgs": [], "keys": {}, "folded": {}}
    data = layout_data(LayoutInput.model_validate(layout_input(answer)))
    # each level's own open set (within what the answer holds), not the one the answer was drawn at
    data["views"] = [dict(v, open=None) for v in data["views"]]
    svgs: list[str] = []
    index: dict[str, int] = {}
    keys, folded = {}, {}
    for level in LEVELS:
        for direction in DIRECTIONS:
            drawings = draw_views(data, direction_settings(LayoutSettings(), direction), fold=level)
            ids = []
            for d in drawings:
                if d.svg not in index:
                    index[d.svg] = len(svgs)
                    svgs.append(d.svg)
                ids.append(index[d.svg])
            key = f"{level}|{direction}"
            keys[key] = ids
            folded[key] = [{"folded": d.folded, "folds": d.folds, "open": d.open, "segments": d.segments,
                            "undrawn": d.undrawn} for d in drawings]
    return {"svgs": svgs, "keys": keys, "folded": folded}


def limits_data() -> dict:
    """What ``GET /api/limits`` answers, without a server (the default settings)."""
    from dataclasses import asdict

    from engine.runner import Settings

    from .drawing.layout import LayoutSettings
    from .mlp.limits import mlp_limits
    run = {k: float(v) for k, v in asdict(Settings()).items() if isinstance(v, int | float) and k != "seed"}
    return {"run": run, "layout_max_nodes": LayoutSettings().max_nodes,
            "mlp": mlp_limits().model_dump(mode="json")}


def drawn_answer(response: dict) -> dict:
    """A serialized run (app/worker/execute.py, without drawings) drawn and checked against the schema:
    the JSON data ``POST /api/run`` would answer."""
    from .drawing.layout import draw_response
    from .schemas.run import RunResponse

    draw_response(response)
    response.pop("svg", None)
    response.setdefault("timings", {})
    # by its fields' JSON names, as the server's answer writes them (a check's "pass", not pass_index)
    return RunResponse.model_validate(response).model_dump(mode="json", by_alias=True)


class ProgramFailed(Exception):
    """The program cannot run at all (syntax, a forbidden construct, a limit): ``error`` is the
    ``ErrorInfo`` data the page would show (type, message, line, col)."""

    def __init__(self, error: dict):
        super().__init__(error.get("message", ""))
        self.error = error


def run_answer(source: str, variables: dict | None = None) -> dict:
    """Run a program in this process, through the runner (the same language, limits and answer as
    the server's workers), and draw it. Raises ``ProgramFailed`` when it cannot run at all; a
    program that fails while running is answered with its ``error``, as the page shows it."""
    from .worker.execute import run_and_serialize

    out = run_and_serialize(source, variables)
    if "program_error" in out:
        raise ProgramFailed(out["program_error"])
    return drawn_answer(out["response"])

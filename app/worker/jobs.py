"""The jobs a sandboxed child can run, by name: the only code the server can ask a child to run.

A job takes JSON data and returns JSON data, or ``(data, text)`` where the text (a large answer
already written as JSON) travels as the frame's body.
"""

from __future__ import annotations


def run(source: str, variables: dict | None = None, fold="auto", later: bool = False):
    """``POST /api/run``: the answer's JSON text (with slots for the drawings) as the body, and what
    the server needs to draw and splice as the value; or ``{"program_error": ...}``. ``fold``: the
    level ("auto", "module", "op"), or ``{view: [part ids to open]}`` (``POST /api/open``).
    ``later``: without what ``extras`` answers (the page asks for it when it shows it)."""
    from .execute import run_for_http

    if isinstance(fold, dict):  # JSON keys are strings
        fold = {int(k): v for k, v in fold.items()}
    out = run_for_http(source, variables, fold, later=bool(later))
    if "program_error" in out:
        return out
    prepared = out["prepared"]
    text = prepared.pop("json")
    return {"prepared": prepared}, text


def open_part(source: str, variables: dict | None, view: int, opened: list, had: list | None = None):
    """``POST /api/open``: the program run again with parts of one view open: that view's answer as
    the body (with a slot for its drawing; without what a drawing with the parts ``had`` open
    showed), and what the server draws; or ``{"program_error": ...}``."""
    from .execute import open_for_http

    out = open_for_http(source, variables, int(view), [str(p) for p in opened],
                        None if had is None else [str(p) for p in had])
    if "program_error" in out:
        return out
    prepared = out["prepared"]
    text = prepared.pop("json")
    return {"prepared": prepared}, text


def opens(source: str, variables: dict | None, states: list, seconds: float):
    """Answers of ``POST /api/open`` ahead of the click (app/folding/ahead.py): the program run once
    more and each ``[view, open part ids, the parts open in the page's drawing]`` of ``states``
    answered in turn for about ``seconds``;
    their JSON texts one after the other as the body, what the server draws (each with its text's
    length in characters) as the value; or ``{"program_error": ...}``."""
    from .execute import opens_for_http

    out = opens_for_http(source, variables, [(int(v), [str(p) for p in o], [str(p) for p in h])
                                             for v, o, h in states], float(seconds))
    if "program_error" in out:
        return out
    texts = [p.pop("json") for p in out["prepared"]]
    return {"prepared": out["prepared"], "sizes": [len(t) for t in texts]}, "".join(texts)


def extras(source: str, variables: dict | None = None):
    """``POST /api/run/extras``: the program run again, and what its answer left for later (the
    check by hand, the course views but the heat) as JSON text in the body; the value is empty; or
    ``{"program_error": ...}``."""
    from .answer import json_text
    from .execute import extras_for_http

    out = extras_for_http(source, variables)
    if "program_error" in out:
        return out
    return {}, json_text(out["extras"])


def boundary(config: dict, source: str | None, grid: int, frames: int) -> dict:
    """``POST /api/mlp/boundary``: decision-boundary frames of a training program."""
    from ..mlp.boundary import boundary_job

    return boundary_job(config, source, grid, frames)


JOBS = {"run": run, "open": open_part, "opens": opens, "extras": extras, "boundary": boundary}

WARM_UP = "x = torch.tensor([1.0, 2.0], requires_grad=True)\nloss = (torch.sigmoid(x * 3) ** 2).sum()\n" \
          "loss.backward()\nprint(x.grad)\n"


def warm_up() -> None:
    """Import and exercise what every run uses, once, in the template (children inherit it)."""
    from ..mlp import boundary  # noqa: F401
    from . import execute  # noqa: F401 - the imports are the point

    run(WARM_UP)
    run("(a + b) * c", {"a": {"value": 2.0, "requires_grad": True}, "b": {"value": -1.0},
                        "c": {"value": 10.0}})

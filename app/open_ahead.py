"""Boxes opened ahead of the click: which open sets of a run's views the user is likely to ask
``POST /api/open`` for next, and their answers from one more run of the program.

A folded drawing of a big program answers quickly, but opening one of its boxes runs the program
again (nothing of a run is kept between requests). When the workers are idle after a run, the
server asks one worker for the answers of the boxes the drawing shows (each opened on its own) and
puts them in the shared cache, so the first boxes the user opens come back at once
(app/routes/open_ahead.py).
"""

from __future__ import annotations

import time

from engine.gcpause import gc_paused


def states_ahead(answer: dict, most: int) -> list[tuple[int, list[str], list[str]]]:
    """The first ``most`` requests worth answering ahead for an answer (of ``POST /api/run`` or
    ``/api/open``: its ``views``, each with its number and drawn ``open`` parts, and its
    ``parts``), as ``(view, open, had)``: each box a drawing shows (a closed part whose parent is
    open, or that has none) opened on its own, named as the page names it (``had`` the view's open
    parts, ``open`` those and the new one)."""
    opened = {view.get("index", i): list(view.get("open") or []) for i, view in enumerate(answer["views"])}
    out = []
    for p in answer.get("parts") or []:
        base = opened.get(p["view"])
        if base is None or p["id"] in base:
            continue
        up = p.get("parent")
        if up is None or up in base:
            out.append((p["view"], [*base, p["id"]], base))
            if len(out) >= most:
                break
    return out


def opens_for_http(source: str, variables: dict | None, states: list, seconds: float) -> dict:
    """The program run once more, then the answer ``POST /api/open`` gives for each ``(view, open,
    had)`` of ``states`` in turn, while less than ``seconds`` have gone by since the run ended:
    ``{"prepared": [each answer prepared as app/answer.py does, with its JSON text]}``, or
    ``{"program_error": ...}``."""
    from .execute import prepared_view, run_checked, serialize_result

    with gc_paused():
        t0 = time.perf_counter()
        result, error = run_checked(source, variables)
        if error is not None:
            return error
        ran = time.perf_counter()
        until = ran + seconds
        prepared, last = [], 0.0
        for view, opened, had in states:
            if prepared and time.perf_counter() + last > until:  # the next would end past the budget
                break
            t1 = time.perf_counter()
            resp = serialize_result(result, {int(view): [str(p) for p in opened]}, whole=False)
            if not 0 <= int(view) < len(resp["views"]):
                break
            one = prepared_view(resp, int(view), had, {})
            last = time.perf_counter() - t1
            one["timings"] = {"run": ran - t0, "serialize": last}
            prepared.append(one)
        return {"prepared": prepared}

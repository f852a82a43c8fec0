"""Boxes opened ahead of the click: which open sets of a run's views the user is likely to ask
``POST /api/open`` for next, and their answers from one more run of the program.

A folded drawing of a big program answers quickly, but opening one of its boxes runs the program
again (nothing of a run is kept between requests). When the workers are idle after a run, the
server asks one worker for the answers of the boxes the drawing shows (each opened on its own) and
puts them in the shared cache, so the first boxes the user opens come back at once
(app/routes/open_ahead.py; the worker's side is ``opens_for_http`` in app/worker/execute.py).
"""

from __future__ import annotations


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

"""The server half of the /api/run answer: each drawing spliced into the worker's JSON text
(app/worker/answer.py writes it, with a slot per drawing), then checked.

The text comes from the worker, which runs the user's program: it is trusted for nothing the page
shows as markup. A worker can leave a slot out and write its own ``"svg"``, write a slot twice or
somewhere else, add a view or a second ``"svg"`` key after the slot (a JSON parser keeps the last
one). So after splicing, the answer is read as the page will read it (app/schemas/plain.py, which
checks it against the schema in the same pass) and ``check_drawings`` refuses it unless every
drawing in it is exactly one the server made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from ..worker.answer import _dumps

if TYPE_CHECKING:
    from ..drawing.drawn import Drawing


class ForeignDrawing(ValueError):
    """The worker's answer text carries a drawing the server did not make (or misplaces a slot)."""


DRAWING_FIELDS = ("svg", "folded", "folds", "undrawn", "open", "segments")


def drawing_fields(d: Drawing) -> dict:
    """What a view of the answer holds of the server's drawing ``d``, as JSON data."""
    return orjson.loads(_dumps({"svg": d.svg, "folded": d.folded, "folds": d.folds, "undrawn": d.undrawn,
                              "open": d.open, "segments": d.segments}))


def splice_answer(prepared: dict, drawings: list[Drawing], timings: dict) -> str:
    """Server side: the complete JSON answer. ``ForeignDrawing`` when a slot is unknown, missing
    or used twice."""
    nonce = prepared["nonce"]
    parts = {"timings": f'"timings":{_dumps(timings)}'}
    for i, d in enumerate(drawings):
        parts[f"view{i}"] = (f'"svg":{_dumps(d.svg)},"folded":{_dumps(d.folded)},"folds":{_dumps(d.folds)},'
                             f'"undrawn":{_dumps(d.undrawn)},"open":{_dumps(d.open)},'
                             f'"segments":{_dumps(d.segments)}')
    text = prepared["json"]
    out, pos, marker = [], 0, f'":"@@{nonce}-'
    while (hit := text.find(marker, pos)) >= 0:  # str.find: a regex over megabytes of JSON is slow
        key_start = text.rfind('"', 0, hit) + 1  # a view's "svg", or "timings"
        name_end = text.index('@@"', hit + len(marker))
        name = text[hit + len(marker):name_end]
        if name not in parts:
            raise ForeignDrawing(f"an unknown or repeated slot: {name[:40]!r}")
        out.append(text[pos:key_start - 1])
        out.append(parts.pop(name))
        pos = name_end + 3
    if parts:
        raise ForeignDrawing(f"slots left out: {sorted(parts)[:3]}")
    out.append(text[pos:])
    return "".join(out)


def check_drawings(data, drawings: list[Drawing]) -> None:
    """Raise ``ForeignDrawing`` unless the answer's ``data``, read as the page reads it (a JSON parser
    keeps the last of repeated keys, as ``JSON.parse`` does), holds exactly ``drawings``: one view per
    drawing, each with the drawing's fields, and no top-level ``svg``."""
    if not isinstance(data, dict) or "svg" in data:
        raise ForeignDrawing("a drawing outside the views")
    views = data.get("views")
    if not isinstance(views, list) or len(views) != len(drawings):
        raise ForeignDrawing("not one view per drawing")
    for view, drawing in zip(views, drawings):
        if not isinstance(view, dict) or view.get("svg") != drawing.svg:
            raise ForeignDrawing("a view's svg is not the server's drawing")
        if {k: view.get(k) for k in DRAWING_FIELDS} != drawing_fields(drawing):
            raise ForeignDrawing("a view's drawing fields are not the server's")

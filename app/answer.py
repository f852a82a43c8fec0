"""The /api/run answer as JSON text, written in the worker and completed with drawings here.

The worker serializes everything but the drawings to JSON (in parallel to the server, and a string
crosses the process pipe much faster than a large nested dict) and sends along the little the
layout needs. The server lays out the views and splices each drawing into a slot of the text.
A slot is ``"<field>":"@@<nonce>-<name>@@"``: a quote can only follow a colon unescaped at a
real key/value boundary, and the random nonce cannot be guessed by the program's output.
"""

from __future__ import annotations

import json
import secrets

from .layout import Drawing, layout_input


def _dumps(obj) -> str:
    return json.dumps(obj, allow_nan=False, separators=(",", ":"))  # ASCII: the faster encoder


def prepare_answer(response: dict, sent: dict | None = None) -> dict:
    """Worker side: ``{"json": text with slots, "nonce", "layout": layout_input, "views": n}``.
    ``sent``: what the text holds instead of ``response`` (with the same views), which is drawn."""
    nonce = secrets.token_hex(8)
    data = layout_input(response)
    for i, view in enumerate(response["views"]):
        for key in ("folded", "folds", "undrawn", "open", "segments"):
            view.pop(key, None)
        view["svg"] = f"@@{nonce}-view{i}@@"
    response = response if sent is None else sent
    response.pop("svg", None)  # the first view's drawing is views[0].svg: no second copy
    response["timings"] = f"@@{nonce}-timings@@"
    try:
        text = _dumps(response)
    except ValueError:  # a non-finite number app/values.py did not see: let pydantic write null
        from .schemas import RunResponse

        text = RunResponse.model_validate(response).model_dump_json()
    return {"json": text, "nonce": nonce, "layout": data, "views": len(response["views"]),
            "fingerprint": response.get("fingerprint", "")}


def splice_answer(prepared: dict, drawings: list[Drawing], timings: dict) -> str:
    """Server side: the complete JSON answer."""
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
        out.append(text[pos:key_start - 1])
        out.append(parts[name])
        pos = name_end + 3
    out.append(text[pos:])
    return "".join(out)

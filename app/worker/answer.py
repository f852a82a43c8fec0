"""The /api/run answer as JSON text, written in the worker and completed with drawings by the server.

The worker serializes everything but the drawings to JSON (in parallel to the server, and a string
crosses the process pipe much faster than a large nested dict) and sends along the little the
layout needs. The server lays out the views and splices each drawing into a slot of the text
(app/server/splice.py). A slot is ``"<field>":"@@<nonce>-<name>@@"``: a quote can only follow a
colon unescaped at a real key/value boundary, and the random nonce cannot be guessed by the
program's output.
"""

from __future__ import annotations

import json
import math
import secrets

import orjson

from ..schemas.layout import layout_input


def _dumps(obj) -> str:
    """Compact JSON text of ``obj``; a non-finite float is written null, as JSON can."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # what orjson does not write (an integer over 64 bits): the standard encoder
        return json.dumps(_finite(obj), separators=(",", ":"))


def json_text(obj) -> str:
    """``obj`` as compact JSON text, as an answer is written (a non-finite float as null)."""
    return _dumps(obj)


def _finite(obj):
    """``obj`` with every non-finite float replaced by None."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


TIME_LIMIT_NOTE = "(limit: timeout_s)"  # how the runner's LimitError names its wall-time limit


def ran_out_of_time(response: dict) -> bool:
    """Whether the run of a serialized ``response`` was stopped by its wall-time limit: where it
    stopped depends on how busy the machine was, so such an answer is neither shared nor compared
    with another run's."""
    err = response.get("error")
    return bool(err) and err.get("type") == "LimitError" and TIME_LIMIT_NOTE in str(err.get("message"))


def prepare_answer(response: dict, sent: dict | None = None) -> dict:
    """Worker side: ``{"json": text with slots, "nonce", "layout": layout_input, "views": n,
    "fingerprint"}``. ``sent``: what the text holds instead of ``response`` (with the same views),
    which is drawn."""
    nonce = secrets.token_hex(8)
    data = layout_input(response)
    for i, view in enumerate(response["views"]):
        for key in ("folded", "folds", "undrawn", "open", "segments"):
            view.pop(key, None)
        view["svg"] = f"@@{nonce}-view{i}@@"
    response = response if sent is None else sent
    response.pop("svg", None)  # the first view's drawing is views[0].svg: no second copy
    response["timings"] = f"@@{nonce}-timings@@"
    text = _dumps(response)  # a non-finite number app/worker/values.py did not see: written null
    return {"json": text, "nonce": nonce, "layout": data, "views": len(response["views"]),
            "fingerprint": response.get("fingerprint", "")}

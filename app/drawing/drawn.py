"""Whole drawings kept in the layout cache, by a digest of what they are drawn from.

Each piece's SVG is cached by its DOT text (app/drawing/compose.py), but writing that text for every
piece of every view on every request costs more than the rest of the drawing once the pieces are
laid out. A view's drawing is a function of the layout data (every node, edge, part and view, with
its ids and labels), the settings, the level and the code: the same data digested is the same
drawing, kept whole. Only drawings the server made itself in full go in (none cut short by a
deadline or drawn closed because a layout ran out of time), so what comes out is one of its own.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import orjson

from ..package import code_digest


@dataclass
class Drawing:
    """One view's drawing and what it folded; ``undrawn`` says why there is only a note instead."""

    svg: str
    folded: bool = False
    folds: list[dict] = field(default_factory=list)
    undrawn: str | None = None  # "too_many_nodes" | "time_budget" | "graphviz_failed"
    open: list[str] = field(default_factory=list)  # the parts drawn open
    segments: dict[str, list[int]] = field(default_factory=dict)  # s<k> element -> the edges it stands for


PREFIX = "drawing-"


def drawings_key(data: dict, settings, fold: str) -> str | None:
    """The digest of a ``layout_data``, the layout settings and the level; view ``i``'s drawing is
    kept under ``f"{key}-{i}"``. None for data JSON cannot hold (then nothing is kept)."""
    try:
        text = orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return None
    h = hashlib.sha1(code_digest().encode())
    h.update(repr((settings, fold)).encode())
    h.update(text)
    return PREFIX + h.hexdigest()


def drawing_text(d: Drawing) -> str:
    """A drawing as the text the cache keeps."""
    return orjson.dumps({"svg": d.svg, "folded": d.folded, "folds": d.folds, "undrawn": d.undrawn,
                         "open": d.open, "segments": d.segments}).decode()


def kept_drawing(text: str | None) -> Drawing | None:
    """The drawing a cache text holds (None: none kept)."""
    if text is None:
        return None
    return Drawing(**orjson.loads(text))

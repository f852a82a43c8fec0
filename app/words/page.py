"""The page's catalogue of words (static/js/i18n/en.js, zh.js), read where the server writes some of
the same words itself: the legend under a drawing and a 0-d tensor's shape (app/drawing/dot_text.py).
The catalogue is their one place; this reads its entries of the form ``  key: "text",`` (a JSON
string on one line), the only form it holds."""

from __future__ import annotations

import json
import re
from functools import cache

from ..package import STATIC

LANGS = ("en", "zh")
_ENTRY = re.compile(r'^\s+(\w+): ("(?:[^"\\]|\\.)*"),$', re.M)


@cache
def page_words(lang: str) -> dict[str, str]:
    """Every ``key: "text"`` entry of the page's main catalogue file in ``lang``, in its order."""
    if lang not in LANGS:
        raise ValueError(f"no catalogue for {lang!r}")
    text = (STATIC / "js" / "i18n" / f"{lang}.js").read_text(encoding="utf-8")
    return {key: json.loads(value) for key, value in _ENTRY.findall(text)}


def legend_words() -> list[tuple[str, str, str]]:
    """The drawing's legend as (colour key, English, Chinese), in the catalogue's order of its
    ``dl_<colour key>`` entries."""
    en, zh = page_words("en"), page_words("zh")
    return [(key[3:], text, zh[key]) for key, text in en.items() if key.startswith("dl_")]

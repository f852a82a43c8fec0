"""The app's own messages by id: ``own_message("server_busy", 3)`` is the English of ``server_busy`` in the
server's catalogue (en.py) with its ``{}`` filled in order; app/error_text.py says it in Chinese from
zh.py when it is answered. ``said`` gives the words of the ``SAID`` table in either language."""

from __future__ import annotations

from . import en, zh


def own_message(key: str, *parts: object) -> str:
    """The English message ``key`` with ``parts`` in its ``{}`` places, in order."""
    return en.MESSAGES[key].format(*parts)


def said(key: str, lang: str, *parts: object) -> str:
    """The words ``key`` of the server's ``SAID`` table in ``lang`` ("en" or "zh"), with ``parts`` in
    their places, in order."""
    return (zh if lang == "zh" else en).SAID[key].format(*parts)

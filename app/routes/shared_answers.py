"""Answers kept in the shared cache (``app.drawing.layout.CACHE``: this process, or Redis for every replica).

Runs are deterministic: the same program, inputs and seed record the same graph and the same numbers,
so the answer of ``POST /api/run`` or ``POST /api/open`` for the same request is the same text, for
anyone. A class running one example, Run pressed again, a shared link opened by thirty students:
the program runs once, and while it runs the same request waits for its answer instead of taking a
second worker. A key holds everything an answer depends on, the code that computes it included, so
replicas of different versions sharing one Redis never serve each other's answers. Only an answer
worked out by a worker that had run nothing before is kept (``Reply.fresh``): a worker kept for one
client's next runs is that client's alone, whatever its earlier programs did to it.
"""

from __future__ import annotations

import hashlib
import json
import threading

from ..drawing.layout import CACHE
from ..package import code_digest

ANSWER_TTL_S = 3600  # how long an answer stays in the shared cache
# An answer larger than this is not kept: it would push many drawings out of the cache (an answer
# with every op of a large program open is tens of MB).
MAX_KEPT_CHARS = 4 * 2**20


def _key(kind: str, settings, parts: list) -> str:
    # The job table too: tests serve their own, whose answers differ for the same request.
    text = json.dumps([code_digest(), settings.sandbox_jobs, *parts], sort_keys=True)
    return f"{kind}:" + hashlib.sha256(text.encode()).hexdigest()


def run_key(settings, source: str, variables: dict | None, fold: str, direction: str) -> str:
    """The key of a ``POST /api/run`` answer (``variables`` as the routes dump a request's)."""
    return _key("run", settings, [source, variables, fold, direction])


def open_key(settings, source: str, variables: dict | None, view: int, opened: list[str], direction: str,
             had: list[str] | None) -> str:
    """The key of a ``POST /api/open`` answer (``had``: the parts open in the page's drawing, in any
    order)."""
    held = None if had is None else sorted(had)
    return _key("open", settings, [source, variables, view, list(opened), direction, held])


def extras_key(settings, source: str, variables: dict | None) -> str:
    """The key of a ``POST /api/run/extras`` answer (nothing of it depends on the drawing)."""
    return _key("extras", settings, [source, variables])


def keep(key: str, text: str) -> None:
    """Keep an answer's text under ``key`` for a while (not when it is too large to be worth it)."""
    if len(text) <= MAX_KEPT_CHARS:
        CACHE.put(key, text, ttl_s=ANSWER_TTL_S)


class Pending:
    """The keys whose answers are being worked out in this process, each with an event set when done."""

    def __init__(self):
        self._lock = threading.Lock()
        self._events: dict[str, threading.Event] = {}

    def claim(self, keys: list[str]) -> list[str]:
        """The keys of ``keys`` nobody is working out yet, now claimed by the caller."""
        with self._lock:
            mine = [k for k in keys if k not in self._events]
            for k in mine:
                self._events[k] = threading.Event()
            return mine

    def done(self, keys: list[str]) -> None:
        with self._lock:
            for k in keys:
                event = self._events.pop(k, None)
                if event is not None:
                    event.set()

    def wait(self, key: str, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) if ``key`` is being worked out; whether it was."""
        with self._lock:
            event = self._events.get(key)
        if event is None:
            return False
        event.wait(timeout)
        return True


PENDING = Pending()


class Counts:
    """How many answers came from the cache, and how many of those waited for a run under way."""

    def __init__(self):
        self._lock = threading.Lock()
        self.hits = 0
        self.waited = 0

    def hit(self, waited: bool) -> None:
        with self._lock:
            self.hits += 1
            self.waited += waited


COUNTS = Counts()


def shared_answer(key: str, wait_s: float) -> tuple[str | None, list[str]]:
    """The kept answer of ``key``, if there is one or one being worked out arrives within ``wait_s``;
    else None and ``[key]`` when the caller now works it out (``done`` it afterwards), or ``[]`` when
    the answer being worked out did not come (the caller works it out on its own)."""
    text = CACHE.get(key)
    if text is not None:
        COUNTS.hit(False)
        return text, []
    mine = PENDING.claim([key])
    if mine:
        return None, mine
    PENDING.wait(key, wait_s)
    text = CACHE.get(key)
    if text is not None:
        COUNTS.hit(True)
    return text, []

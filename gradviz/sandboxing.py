"""Where ``gradviz render``, ``gradviz.render`` / ``show`` / ``html`` and ``%%gradviz`` run a
program's source: in the same OS sandbox as the server when this machine has bubblewrap, else in
this process with the language layer alone.

Sandboxed, the program runs in a worker of a ``SandboxPool`` of one place (app/sandbox/: a
template under bubblewrap and seccomp forks a fresh child per run), started at the first run and
kept for the process's next ones (a notebook kernel's session), closed at exit. The worker's reply is
data: it is checked and drawn here by the server's own functions (app/routes/worker_calls.py,
app/routes/open_ahead.py), never unpickled. ``gradviz.record()`` runs no program source and never
comes here.

``sandbox``: ``"auto"`` (the default: the sandbox when it can start, else the language layer with a
one-line warning), ``False`` (the language layer only, on purpose) or ``"require"`` / ``True``
(fail when the sandbox cannot start).
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import sys
import threading
import time
from dataclasses import dataclass

from app.words.messages import said

from .errors import GradvizError

LAYERS_ALL = ("language", "process", "os")
NO_BWRAP = (said("no_bwrap", "en"), said("no_bwrap", "zh"))
INSTALL_HINT = "Debian/Ubuntu: apt-get install bubblewrap"
_SERVER_HINT = re.compile(r"[;,]\s*(or\s+)?set GRADVIZ_SANDBOX=language-only.*$", re.S)


@dataclass(frozen=True)
class Containment:
    """Which of gradviz's layers of containment ran a program: ``layers`` ("language", "process",
    "os"), and when the OS sandbox did not, why (``reason`` in English, ``reason_zh`` in Chinese)."""

    layers: tuple[str, ...]
    reason: str | None = None
    reason_zh: str | None = None

    @property
    def sandboxed(self) -> bool:
        return "os" in self.layers

    def text(self, lang: str = "en") -> str:
        """"ran in: language + process + OS sandbox", or "language layer only: <why>"."""
        if self.sandboxed:
            return said("ran_in", lang, self._names(lang))
        return said("language_layer_only", lang, self._reason(lang))

    def note(self, lang: str = "en") -> str:
        """What a page it wrote says of it: "The program ran in: ..." / "...with the language layer
        only: <why>"."""
        if self.sandboxed:
            return said("program_ran_in", lang, self._names(lang))
        return said("program_language_only", lang, self._reason(lang))

    def _names(self, lang: str) -> str:
        return " + ".join(said(f"layer_{layer}", lang) for layer in self.layers)

    def _reason(self, lang: str) -> str | None:
        return (self.reason_zh or self.reason) if lang == "zh" else self.reason

    def __str__(self) -> str:
        return self.text()


def language_only(reason: str, reason_zh: str | None = None) -> Containment:
    """The language layer alone, for ``reason``."""
    return Containment(("language",), reason, reason_zh or reason)


SANDBOXED = Containment(LAYERS_ALL)
_lock = threading.Lock()
_pool = None
_failed: Containment | None = None  # why the sandbox could not start in this process (not tried again)
_warned: set[str] = set()
_last: Containment | None = None


def mode_of(sandbox) -> str:
    """``sandbox`` as "auto", "off" or "require"."""
    if sandbox is False or sandbox == "off":
        return "off"
    if sandbox is True or sandbox == "require":
        return "require"
    if sandbox is None or sandbox == "auto":
        return "auto"
    raise GradvizError(f"sandbox must be 'auto', 'require', True or False, not {sandbox!r}")


def containment_for(sandbox, opted_out: str = "sandbox=False", warn: bool = True):
    """``(pool, Containment)`` for a program about to run: the started pool (None for the language
    layer alone) and the layers that will run it. ``opted_out``: how the caller says "no sandbox"
    (the reason shown). ``"require"`` raises ``GradvizError`` when the sandbox cannot start; ``"auto"``
    falls back to the language layer, with a line on stderr (``warn``) once per reason."""
    mode = mode_of(sandbox)
    if mode == "off":
        return None, language_only(opted_out)
    pool, failed = _started()
    if pool is not None:
        return pool, SANDBOXED
    if mode == "require":
        hint = f" ({INSTALL_HINT})" if failed.reason == NO_BWRAP[0] else ""
        raise GradvizError(f"the OS sandbox was required, and {failed.reason}{hint}")
    if warn and failed.reason not in _warned:
        _warned.add(failed.reason)
        hint = f" ({INSTALL_HINT} adds it)" if failed.reason == NO_BWRAP[0] else ""
        print(f"gradviz: warning: running programs with the language layer only: {failed.reason}{hint}",
              file=sys.stderr)
    return None, failed


def _started():
    """The process's pool, started now if need be: ``(pool, None)``, or ``(None, why not)``."""
    global _pool, _failed
    with _lock:
        if _pool is not None:
            return _pool, None
        if _failed is not None:
            return None, _failed
        if shutil.which("bwrap") is None:
            _failed = language_only(*NO_BWRAP)
            return None, _failed
        from app import sandbox

        try:
            _pool = sandbox.SandboxPool(pool_settings())
        except (sandbox.SandboxUnavailable, ImportError, OSError) as exc:
            detail = _SERVER_HINT.sub("", str(exc)).strip() or type(exc).__name__
            _failed = language_only(*(said("sandbox_failed", lang, detail) for lang in ("en", "zh")))
            return None, _failed
        atexit.register(close)
        return _pool, None


def pool_settings():
    """The pool's settings: the server's sandbox with one place (a fresh worker for each run: none is
    kept for a client)."""
    from app import sandbox

    return sandbox.SandboxSettings(mode="full", slots=1, reserved=0, per_client=1, queue_wait_s=600.0)


def current_pool():
    """The pool this process runs programs in, or None when none is started."""
    return _pool


def close() -> None:
    """Stop the pool (at exit; the next sandboxed run starts another) and forget why the sandbox could
    not start, so that it is tried again."""
    global _pool, _failed
    with _lock:
        pool, _pool, _failed = _pool, None, None
    if pool is not None:
        pool.close()


def record(containment: Containment | None) -> None:
    """Remember which layers ran the last program (``gradviz.ran_in()``)."""
    global _last
    if containment is not None:
        _last = containment


def last() -> Containment | None:
    """Which layers ran the last program of this process, or None before any."""
    return _last


# ---- a program's run in the sandbox, checked and drawn as the server does ----------------------------
def _app_settings():
    """The server's settings, its drawings given the time the language-layer path gives them."""
    from app.settings import AppSettings

    settings = AppSettings()
    settings.layout_budget_s = max(settings.layout_budget_s, settings.layout.timeout_s)
    return settings


def _call(pool, settings, job: str, *args):
    """``job`` in a sandboxed worker: its reply, or ``ProgramFailed`` with the error the server would
    answer (a timeout, a crash, a reply that broke the protocol)."""
    from app import sandbox
    from app.routes.worker_errors import worker_error_response
    from app.server.pool import run_deadline

    failures = (sandbox.PoolBusy, sandbox.RunTimeout, sandbox.WorkerCrashed, sandbox.WorkerProtocolError,
                sandbox.JobFailed)
    try:
        return pool.call(job, *args, timeout=run_deadline(settings))
    except failures as exc:
        raise _failed_with(worker_error_response(exc)) from None


def _failed_with(response):
    """An error response of the server as the ``ProgramFailed`` the language-layer path raises."""
    from app import offline

    return offline.ProgramFailed(json.loads(response.body)["error"])


def run_answer(pool, source: str, variables: dict | None = None) -> dict:
    """Run a program in a sandboxed worker of ``pool`` and draw it here: the data ``POST /api/run``
    answers, as ``app.offline.run_answer`` gives it. Raises ``ProgramFailed`` when it cannot run."""
    from app.routes import worker_calls

    settings = _app_settings()
    t0 = time.perf_counter()
    reply = _call(pool, settings, "run", source, variables, "auto")
    got = worker_calls.prepared_of(reply)
    if not isinstance(got, tuple):
        raise _failed_with(got)
    budget_end = time.monotonic() + settings.layout_budget_s
    from app.schemas import RunResponse as model

    drawn, _ = worker_calls.drawn_answer(*got, settings, "auto", t0, budget_end, model)
    if drawn is None:
        raise GradvizError(f"the sandboxed worker's answer was refused: {worker_calls.UNFIT}")
    return drawn.data


def opened_answers(containment: Containment, source: str, variables: dict | None, answer: dict) -> dict:
    """``app.offline.opened_answers``: what an offline page needs to open its boxes one at a time,
    the program run again by the layers that ran it first (sandboxed: the ``opens`` job the server
    opens boxes ahead with, planned by the same ``app.offline.plan_opened`` as the language-layer path)."""
    from app import offline
    from app.routes.open_ahead import drawn_opens

    if not containment.sandboxed:
        return offline.opened_answers(source, variables, answer)
    pool, _ = _started()
    if pool is None:  # the sandbox went away since the run: nothing is run outside it
        return {"answers": {}, "left": 0}
    settings = _app_settings()
    bases = [list(view.get("open") or []) for view in answer["views"]]

    def open_some(states: list) -> list | None:
        t0 = time.perf_counter()
        try:
            reply = _call(pool, settings, "opens", source, variables,
                          [[view, opened, bases[view]] for view, opened in states], offline.OPENED_SECONDS)
        except offline.ProgramFailed:
            return None
        drawn = drawn_opens(reply, len(states), answer.get("fingerprint", ""), settings, "auto", t0,
                            time.monotonic() + settings.layout_budget_s)
        return [None if text is None else json.loads(text) for text, _ in drawn]

    return offline.plan_opened(answer, open_some)

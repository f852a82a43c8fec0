"""Answers of ``POST /api/open`` worked out before the user asks (app/folding/ahead.py says which).

After a run whose answer took a while, when every worker is idle, a worker runs the program again
and answers the first box its drawing shows, opened, then another the other boxes, each opened on
its own; the server draws them and puts them in the shared cache where ``POST /api/open`` looks
first. A request for an answer being worked out waits for it instead of running the program a
second time. Under load nothing is done ahead (the place would be taken from someone's run), and
the client is charged the worker time as for its own requests.
"""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

from fastapi.responses import Response
from starlette.background import BackgroundTask

from engine.gcpause import gc_paused

from ..drawing.layout import CACHE
from ..folding.ahead import states_ahead
from ..sandbox import JobFailed, PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError
from ..schemas.open import OpenResponse
from ..server.clients import client_of
from ..server.pool import request_budget, run_deadline
from .shared_answers import PENDING, keep, open_key
from .worker_calls import Answer, drawn_answer, prepared_of, worker_seconds


def answered(request, source: str, variables: dict | None, direction: str, answer: Answer) -> Response:
    """The response carrying ``answer`` (a run's or an opened view's) and, once it is sent, the boxes
    its drawing shows opened ahead; not when nothing is opened ahead, or when its worker took less
    than ``open_ahead_after_s`` (opening reruns a quick run quickly too). ``X-Gradviz-Cache`` says
    whether the answer came from the shared cache."""
    body = answer.raw if answer.raw is not None else answer.text.encode()
    response = Response(body, media_type="application/json",
                        headers={"X-Gradviz-Cache": "hit" if answer.cached else "miss"})
    settings = request.app.state.settings
    if settings.open_ahead <= 0 or answer.worker_s < settings.open_ahead_after_s:
        return response
    client = client_of(request.scope)
    response.background = BackgroundTask(_after_answer, request.app, client, source, variables, direction,
                                         answer)
    return response


def _after_answer(app, client: str, source: str, variables: dict | None, direction: str,
                  got: Answer) -> int:
    settings = app.state.settings
    answer = got.data if got.data is not None else json.loads(got.text)
    states = states_ahead(answer, settings.open_ahead)
    if not states:
        return 0
    return open_ahead(app, client, source, variables, direction, answer.get("fingerprint", ""), states)


def open_ahead(app, client: str, source: str, variables: dict | None, direction: str, fingerprint: str,
               states: list) -> int:
    """Work out and cache the answers of ``states`` (``(view, open, had)``) for the run with
    ``fingerprint``, if the workers are idle; how many were cached. The first box (the one a user
    opens first, most of the time) is answered by a run of its own: a click on it waits for that
    run, not for the answers of all the boxes."""
    settings = app.state.settings
    keys = [open_key(settings, source, variables, view, opened, direction, had)
            for view, opened, had in states]
    pairs = list(zip(states, keys))
    cached = 0
    for wanted in (pairs[:1], pairs[1:]):
        # A batch's keys are claimed when its run starts, not before: a click on a box of the
        # second batch while the first runs is answered by a run of its own at once, instead of
        # waiting for the first box's answer and then for its own batch.
        mine = set(PENDING.claim([k for _, k in wanted if CACHE.get(k) is None]))
        batch = [(s, k) for s, k in wanted if k in mine]
        if not batch:
            continue
        try:
            got = _answer_batch(app, client, source, variables, direction, fingerprint, batch)
        finally:
            PENDING.done(list(mine))
        if got is None:
            break
        cached += got
    return cached


def _answer_batch(app, client: str, source: str, variables: dict | None, direction: str, fingerprint: str,
                  batch: list) -> int | None:
    """Ask an idle worker for the answers of ``batch`` (``((view, open, had), key)``) and cache them:
    how many were cached, or None when no worker was idle or it failed."""
    settings = app.state.settings
    t0 = time.perf_counter()
    budget_end = time.monotonic() + request_budget(settings)
    try:
        reply = app.state.pool.call("opens", source, variables, [list(s) for s, _ in batch],
                                    settings.open_ahead_s, timeout=run_deadline(settings),
                                    client=client, if_idle=True)
    except (PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError, JobFailed):
        return None
    with gc_paused():
        return _cache_answers(reply, batch, fingerprint, settings, direction, t0, budget_end)


def _cache_answers(reply, todo: list, fingerprint: str, settings, direction: str, t0: float,
                   budget_end: float) -> int:
    """Cache the worker's answers that ``drawn_opens`` drew whole; how many were cached."""
    cached = 0
    drawn = drawn_opens(reply, len(todo), fingerprint, settings, direction, t0, budget_end)
    for (_, key), (answer, prepared) in zip(todo, drawn):
        if answer is None:
            continue
        keep(key, Answer(answer, fingerprint, worker_seconds(prepared.timings)).kept())
        cached += 1
    return cached


def drawn_opens(reply, most: int, fingerprint: str, settings, direction: str, t0: float, budget_end: float):
    """The answers of an ``opens`` reply (at most ``most``) split, each checked as ``POST /api/open``
    checks its own and drawn, in order: ``(its text, or None when it was not drawn whole; its prepared
    answer)``, up to the first that is not of the run with ``fingerprint`` (a broken reply: none).
    Also how ``gradviz render`` opens a program's boxes ahead, in its own sandbox."""
    value, body = reply.value, reply.body
    if not isinstance(value, dict) or body is None:
        return
    answers, sizes = value.get("prepared"), value.get("sizes")
    if type(answers) is not list or type(sizes) is not list or len(answers) != len(sizes) \
            or len(answers) > most or not all(type(n) is int and n >= 0 for n in sizes) \
            or sum(sizes) != len(body):
        return
    at = 0
    for prepared, size in zip(answers, sizes):
        text, at = body[at:at + size], at + size
        got = prepared_of(SimpleNamespace(value={"prepared": prepared}, body=text), views=1)
        if not isinstance(got, tuple) or got[0].fingerprint != fingerprint or got[0].timed_out:
            return  # not the run the page holds, one cut short by the clock, or a broken reply
        drawn, complete = drawn_answer(got[0], got[1], settings, direction, t0, budget_end, OpenResponse)
        yield (drawn.text if complete else None), got[0]

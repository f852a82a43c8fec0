"""Calling a sandboxed worker for a request and checking what it answers: the one path of
``POST /api/run``, ``/api/open`` (and the answers worked out ahead for it) and the MLP builder's
boundary. A worker's reply is data only; it is checked against the schema here before anything
of it is drawn or sent."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

from fastapi import Request
from fastapi.responses import Response
from pydantic import ValidationError

from engine.gcpause import gc_paused

from ..drawing.layout import direction_settings, draw_views, layout_data
from ..sandbox import JobFailed, PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError
from ..schemas.plain import reader
from ..schemas.worker import WorkerRunReply
from ..server.clients import client_of, worker_key_of
from ..server.errors import error_response
from ..server.pool import request_budget, run_deadline
from ..server.splice import ForeignDrawing, check_drawings, splice_answer
from ..words.messages import own_message
from .shared_answers import PENDING, keep, shared_answer
from .worker_errors import worker_error_response

UNFIT = own_message("worker_answer_unfit")
log = logging.getLogger("gradviz")


@dataclass
class Drawn:
    """A worker's answer with the server's drawings spliced in: its text, and its data as the page
    reads that text (checked against the schema)."""

    text: str
    data: dict
    raw: bytes  # the text as UTF-8: what was read, and what the response sends


@dataclass
class Answer:
    """A request's answer text, the fingerprint of the run it shows, the seconds its worker spent on
    it, and whether it came from the shared cache."""

    text: str
    fingerprint: str
    worker_s: float
    cached: bool = False
    data: dict | None = None  # the text as the page reads it, when the server read it (not from the cache)
    raw: bytes | None = None  # the text as UTF-8, when the server read it

    def kept(self) -> str:
        """The text the shared cache keeps: a line of what the answer is, then the answer."""
        return json.dumps({"fingerprint": self.fingerprint, "worker_s": self.worker_s}) + "\n" + self.text

    @classmethod
    def from_kept(cls, kept: str) -> Answer:
        head, _, text = kept.partition("\n")
        about = json.loads(head)
        return cls(text, about["fingerprint"], about["worker_s"], cached=True)


def answer_once(request: Request, key: str, job: str, args: tuple, model, direction: str,
                views: int | None = None, check=None):
    """The answer of a run-like request (``job`` with ``args`` in a worker, its views drawn, checked
    against ``model``): from the shared cache under ``key``, or from the same request under way,
    or worked out now and kept there when every view was drawn by a worker that ran nothing
    before and the run did not stop on its wall-time limit. ``check(got)``, with ``got`` the
    worker's prepared answer or the kept ``Answer`` (both have its ``fingerprint``): a response to
    send instead, or None. An ``Answer``, or the error response to send."""
    settings = request.app.state.settings

    def work():
        t0 = time.perf_counter()
        budget_end = time.monotonic() + request_budget(settings)
        reply = call_worker(request, job, *args)
        if isinstance(reply, Response):
            return reply, False
        with gc_paused():  # a large answer is many small objects: see engine/gcpause.py
            got = prepared_of(reply, views)
            if isinstance(got, Response):
                return got, False
            prepared, text = got
            refusal = check(prepared) if check is not None else None
            if refusal is not None:
                return refusal, False
            drawn, complete = drawn_answer(prepared, text, settings, direction, t0, budget_end, model)
            if drawn is None:
                return worker_error_response(WorkerProtocolError(UNFIT)), False
            answer = Answer(drawn.text, prepared.fingerprint, worker_seconds(prepared.timings),
                            data=drawn.data, raw=drawn.raw)
            # where a run stopped on its wall-time limit depends on how busy the machine was
            return answer, complete and reply.fresh and not prepared.timed_out

    answer = kept_or_worked(request, key, work)
    if isinstance(answer, Answer) and answer.cached and check is not None:
        refusal = check(answer)
        if refusal is not None:
            return refusal
    return answer


def kept_or_worked(request: Request, key: str, work):
    """The answer kept in the shared cache under ``key`` (or that the same request under way
    arrives with), else ``work()``: ``(an Answer or the error response to send, whether it may be
    kept for anyone)``, kept when it may. Only an answer a worker that ran nothing before worked out
    may be kept: a kept worker's answer is its own client's alone."""
    kept, mine = shared_answer(key, request_budget(request.app.state.settings))
    try:
        if kept is not None:
            return Answer.from_kept(kept)
        answer, shareable = work()
        if shareable and isinstance(answer, Answer):
            keep(key, answer.kept())
        return answer
    finally:
        PENDING.done(mine)


def worker_seconds(timings: dict) -> float:
    """Seconds a run and its serializing took in the worker."""
    return timings.get("run", 0.0) + timings.get("serialize", 0.0)


def call_worker(request: Request, job: str, *args):
    """Run ``job`` with ``args`` in a sandboxed worker for this request: its reply, or the error
    response to send (busy, timeout, crash, a reply that broke the protocol)."""
    settings = request.app.state.settings
    try:
        return request.app.state.pool.call(job, *args, timeout=run_deadline(settings),
                                           client=client_of(request.scope),
                                           keep_for=worker_key_of(request.scope))
    except (PoolBusy, RunTimeout, WorkerCrashed, WorkerProtocolError, JobFailed) as exc:
        return worker_error_response(exc)


def prepared_of(reply, views: int | None = None):
    """A worker's reply to a run as ``(prepared answer, its JSON text)``, or the error response to
    send: a reply that does not fit the schema or is incomplete (``views``: how many views it must
    draw; default: as many as it says), a program that could not run."""
    try:
        out = WorkerRunReply.model_validate(reply.value)
    except ValidationError:
        return worker_error_response(WorkerProtocolError(UNFIT))
    if out.program_error is not None:
        err = out.program_error
        return error_response(400, err.type, err.message, err.line, err.col)
    prepared = out.prepared
    if prepared is None or reply.body is None or prepared.views != len(prepared.layout.views) \
            or (views is not None and prepared.views != views):
        return worker_error_response(WorkerProtocolError(own_message("worker_answer_incomplete")))
    return prepared, reply.body


def drawn_answer(prepared, text: str, settings, direction: str, t0: float, budget_end: float, model):
    """The answer with its drawings (laid out within what is left of the budget), checked against
    ``model`` (a ``Drawn``), and whether every view was drawn; (None, False) when it does not fit, or
    when any drawing in it is not exactly one the server made (the page draws them as markup)."""
    t1 = time.perf_counter()
    # what is left of the request's budget, and never more than the drawing's own share of it
    deadline = min(budget_end, time.monotonic() + settings.layout_budget_s)
    drawings = draw_views(layout_data(prepared.layout), direction_settings(settings.layout, direction),
                          deadline=deadline)
    timings = dict(prepared.timings, layout=time.perf_counter() - t1, total=time.perf_counter() - t0)
    try:
        answer = splice_answer({"json": text, "nonce": prepared.nonce}, drawings, timings)
        raw = answer.encode()
        data = reader(model).read(raw)  # checked against the schema and read, in one pass
        check_drawings(data, drawings)
    except ForeignDrawing as exc:
        log.warning("a worker's answer was refused: %s", exc)
        return None, False
    except (ValidationError, KeyError, ValueError):
        return None, False
    return Drawn(answer, data, raw), all(d.undrawn is None for d in drawings)

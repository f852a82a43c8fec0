"""The server's side of the sandbox: one template process, one fresh child per call.

``SandboxPool.call(job, *args, timeout=...)`` runs a named job (app/worker/jobs.py) in a new child
forked by the template and returns what it answered, as data. Every call:
- waits for a place, fairly among clients (app/sandbox/admission.py; at most ``queue_wait_s``,
  else ``PoolBusy``: overload);
- runs it below the server's priority while other requests wait for a place (at the server's
  otherwise: app/sandbox/template_process.py's ``WORKER_NICE``);
- takes a spare: a child the template forked and warmed up in advance, on one end of a fresh socket
  pair the template made and sent back (a dead template is replaced, with its spares, before a call
  is handed over), and asks for the next spare at once;
- the child says hello, reads the request, answers with frames (app/sandbox/channel.py), and is
  killed as soon as its answer is in;
- at ``timeout`` asks the template to kill the child (``RunTimeout``, with the line the child was
  running when its watchdog could say it); a child that dies without answering is ``WorkerCrashed``;
  one that sends anything but well-formed frames is killed and ``WorkerProtocolError`` raised.
Nothing a child sends is unpickled or executed: it is parsed as JSON and checked by the caller.
The template process itself (started, told its settings, asked to fork, stopped) is
app/sandbox/template_process.py's ``Template``.
"""

from __future__ import annotations

import collections
import itertools
import socket
import threading
import time
from dataclasses import dataclass, field

from ..words.messages import own_message
from . import channel, confinement, lockdown
from .admission import Admission, AdmissionSettings, PoolBusy
from .child import YIELD_NICE
from .template_process import WORKER_NICE, SandboxSettings, Template

HELLO_TIMEOUT_S = 20.0  # a spare that does not say hello by then means the template is stuck
LATE_LINE_S = 0.25  # how long a timed-out call waits for its child's late line report
# A worker may be kept for its own client's next calls (never another's): after a quick answer, for
# a while, for a few calls (and at most ``SandboxSettings.kept`` of them in all, ~7-15 MB each).
KEEP_IF_FASTER_S = 0.5
KEEP_MAX_CALLS = 50


class RunTimeout(Exception):
    """The call passed its deadline; its child was killed. ``line``/``col``: where it was, if known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.line = line
        self.col = col


class WorkerCrashed(RuntimeError):
    """The child died without answering (killed by a limit, or it crashed)."""


class WorkerProtocolError(RuntimeError):
    """The child answered something that is not data in the agreed frames; it was killed."""


class JobFailed(RuntimeError):
    """The job raised inside the child; ``type`` and ``message`` are what it reported (as data)."""

    def __init__(self, type_: str, message: str):
        super().__init__(f"{type_}: {message}")
        self.type = type_
        self.message = message


@dataclass
class Reply:
    """A job's answer as data. ``fresh``: computed by a child that had run nothing before it (only
    such an answer may be shared with other clients: a kept worker carries what its client's
    earlier runs left behind)."""

    value: object
    body: str | None = None
    timings: dict = field(default_factory=dict)
    fresh: bool = True


class SandboxPool:
    """Runs jobs in sandboxed children; thread-safe (each caller takes one place)."""

    def __init__(self, settings: SandboxSettings | None = None):
        self.settings = settings = settings or SandboxSettings()
        if settings.mode not in ("full", "language-only"):
            raise ValueError(f"unknown sandbox mode {settings.mode!r} (full or language-only)")
        self._filters = None
        if settings.mode == "full":
            confinement.bwrap_path()
            from .seccomp_rules import compiled

            self._filters = compiled()
        self.admission = Admission(AdmissionSettings(general=settings.slots, reserved=settings.reserved,
                                                     per_client=settings.per_client))
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._spare_came = threading.Condition(self._lock)
        self._spares: collections.deque[_Spare] = collections.deque()
        self._asked: set[int] = set()  # spares asked of the current template, not yet sent
        self._kept: collections.OrderedDict[str, list[_Spare]] = collections.OrderedDict()
        self._closed = False
        self._stopping = threading.Event()
        self.restarts = 0
        self._template = Template(settings, self._filters, self._spawned)
        self.layers = self._layers(self._template.status)
        if settings.mode == "full" and not self.layers["os"]:
            self._template.stop()
            raise confinement.SandboxUnavailable(
                f"the worker started but is not confined as required ({self._template.status}); "
                "set GRADVIZ_SANDBOX=language-only to run without the OS sandbox")
        with self._lock:
            self._top_up()
        threading.Thread(target=self._reap_kept, name="sandbox-kept", daemon=True).start()

    def _layers(self, status: dict) -> dict:
        """Which layers hold, from what the template saw of itself against this process."""
        ours = lockdown.status()
        own_namespaces = all(status.get(f"ns_{ns}") and status.get(f"ns_{ns}") != ours.get(f"ns_{ns}")
                             for ns in lockdown.NAMESPACES)
        first = {k: (status.get(k) or ["?"])[0] for k in ("Seccomp", "NoNewPrivs", "CapEff")}
        confined = (self.settings.mode == "full" and own_namespaces and first["Seccomp"] == "2"
                    and first["NoNewPrivs"] == "1" and set(first["CapEff"]) == {"0"}
                    and "0" not in (status.get("Uid") or ["0"]))
        return {"language": True, "process": True, "os": confined}

    def health(self) -> dict:
        """What ``/api/health`` reports of the sandbox."""
        return {"mode": self.settings.mode, "layers": dict(self.layers)}

    def stats(self) -> dict:
        """Places, queue and restarts, for /api/health and /metrics."""
        with self._lock:
            kept = sum(len(ws) for ws in self._kept.values())
        return dict(self.admission.snapshot(), spares=len(self._spares), kept=kept, restarts=self.restarts)

    # ---- spares: children forked and warmed up ahead of the requests they will serve ------------
    def _top_up(self) -> None:
        """Ask the template for spares until there are (or will be) ``places`` of them (lock held).
        While requests wait for a place, a new spare skips its warm-up: one of them takes it as
        soon as it is forked, and would wait for the warm-up to end (on a busy pool, the warm-up
        of every child was as much CPU as the runs themselves)."""
        warm = not self.admission.waiting()
        while len(self._spares) + len(self._asked) < self.settings.places and not self._closed:
            rid = next(self._ids)
            try:
                self._template.send({"op": "spawn", "id": rid, "warm": warm})
            except OSError:
                return  # the template is gone: the next call replaces it
            self._asked.add(rid)

    def _spawned(self, template: Template, rid: int, sock: socket.socket | None) -> None:
        """The template forked spare ``rid`` (``sock``: its connection; None: it could not fork)."""
        with self._lock:
            wanted = template is self._template and rid in self._asked and not self._closed
            self._asked.discard(rid)
            if wanted and sock is not None:
                self._spares.append(_Spare(template, rid, sock))
                self._spare_came.notify_all()
                return
        if sock is not None:
            sock.close()
            if wanted is False:
                self._kill(_Spare(template, rid, sock))

    def _take_spare(self, keep_for: str | None, nice: int = 0) -> _Spare:
        """A worker for a call: one kept for ``keep_for`` if there is one, else a spare of a live
        template (a dead template is replaced first, its spares and kept workers dropped). A child
        can lower its priority, never raise it: a kept worker that ran a heavy client's request is
        not used for a request that asks for ``nice`` below that (its client is light again)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is closed")
            if not self._template.alive():
                self._restart()
            self._sweep_kept()
            kept = self._kept.get(keep_for) if keep_for else None
            if kept:
                worker = kept.pop()
                if not kept:
                    del self._kept[keep_for]
                if worker.nice <= max(nice, WORKER_NICE):
                    return worker
                self._kill(worker)
                worker.sock.close()
            self._top_up()
            until = time.monotonic() + HELLO_TIMEOUT_S
            while not self._spares and time.monotonic() < until and self._template.alive():
                self._spare_came.wait(min(0.25, until - time.monotonic()))
                self._top_up()  # a fork that failed is asked for again
            if not self._spares:
                raise _TemplateStuck()
            spare = self._spares.popleft()
            self._top_up()
            return spare

    def _restart(self) -> None:
        """Replace the template (lock held): its spares and kept workers go with it."""
        self._template.stop()
        while self._spares:
            self._spares.popleft().sock.close()
        for workers in self._kept.values():
            for w in workers:
                w.sock.close()
        self._kept.clear()
        self._asked.clear()
        self._template = Template(self.settings, self._filters, self._spawned)
        self.restarts += 1

    def _replace(self, broken: Template) -> None:
        with self._lock:
            if self._template is broken and not self._closed:
                self._restart()
                self._top_up()

    # ---- calls -------------------------------------------------------------------------------------
    def call(self, job: str, *args, timeout: float, client: str = "-", keep_for: str | None = None,
             if_idle: bool = False, **kwargs) -> Reply:
        """Run ``job(*args, **kwargs)`` for ``client`` in a sandboxed child that has served no other
        client; its answer as data. With ``keep_for`` (a key only one client can present), the child
        may be kept for that key's next calls instead of a fresh one (fast runs only). The deadline
        starts when a place is granted (waiting for one is bounded separately). ``if_idle``: only
        while no other call runs or waits (``PoolBusy`` at once otherwise): work done ahead, whose
        child runs below the server's priority (a request that comes meanwhile goes first)."""
        heavy = self.admission.is_heavy(client)
        if if_idle:
            ticket = self.admission.acquire_idle(client)
            if ticket is None:
                raise PoolBusy(1)
        else:
            ticket = self.admission.acquire(client, min(self.settings.queue_wait_s, timeout))
        t0 = time.monotonic()
        try:
            for attempt in (1, 2):
                try:
                    nice = self._template.nice_at(self.admission.waiting())
                    if if_idle:
                        nice = max(nice, WORKER_NICE)
                    lowest = max(nice, YIELD_NICE if heavy else 0)  # where this call may leave its worker
                    spare = self._take_spare(keep_for, lowest)
                    spare.nice = max(spare.nice, lowest)
                    reply = self._call(spare, job, args, kwargs, t0 + timeout, heavy, nice)
                    self._after(spare, keep_for, reply)
                    return reply
                except _TemplateStuck:
                    self._replace(self._template)
                    if attempt == 2:
                        raise WorkerCrashed(own_message("worker_not_started")) from None
            raise AssertionError("unreachable")
        finally:
            self.admission.release(ticket)

    def _call(self, spare: _Spare, job: str, args, kwargs, deadline: float, heavy: bool,
              nice: int = 0) -> Reply:
        """One request on ``spare``; the socket is closed (and the child killed) unless it answered."""
        reader = channel.Reader(spare.sock, self.settings.max_answer_bytes)
        answered = False
        try:
            if spare.served == 0:
                try:
                    hello, _ = reader.read(min(deadline, time.monotonic() + HELLO_TIMEOUT_S))
                except channel.ChannelError:
                    self._kill(spare)
                    if time.monotonic() < deadline - 0.05:
                        raise _TemplateStuck() from None
                    raise RunTimeout(own_message("run_not_started")) from None
                if hello.get("type") != "hello":
                    self._kill(spare)
                    raise WorkerProtocolError(own_message("worker_no_greeting"))
            started = time.monotonic()
            try:
                channel.send(spare.sock, {"job": job, "args": list(args), "kwargs": kwargs,
                                          "deadline_s": max(0.05, deadline - started), "yield": heavy,
                                          "nice": nice})
            except OSError:
                self._kill(spare)
                raise WorkerCrashed(own_message("worker_ended_early")) from None
            reply = self._answer(spare, reader, deadline, started)
            reply.fresh = spare.served == 0
            answered = True
            return reply
        finally:
            if not answered:
                spare.sock.close()

    def _after(self, worker: _Spare, keep_for: str | None, reply: Reply) -> None:
        """Keep a worker that answered quickly for its client's next call, or kill it. A heavy
        client's too: its runs cost less CPU in a kept worker than in fresh ones, and admission,
        not a fork per run, is what makes it wait behind others."""
        worker.served += 1
        quick = reply.timings.get("worker", 0.0) < KEEP_IF_FASTER_S
        with self._lock:
            if (keep_for and quick and worker.served < KEEP_MAX_CALLS and worker.template is self._template
                    and not self._closed):
                worker.idle_since = time.monotonic()
                self._kept.setdefault(keep_for, []).append(worker)
                self._kept.move_to_end(keep_for)
                self._sweep_kept()
                return
        self._kill(worker)
        worker.sock.close()

    def _reap_kept(self) -> None:
        """Kill kept workers once idle too long, whether or not calls come (a thread for the pool's
        life)."""
        while not self._stopping.wait(min(1.0, max(0.05, self.settings.keep_idle_s / 4))):
            with self._lock:
                self._sweep_kept()

    def _sweep_kept(self) -> None:
        """Kill kept workers idle too long, and the least recently used beyond the bound (lock held)."""
        now = time.monotonic()
        total = sum(len(ws) for ws in self._kept.values())
        for key in list(self._kept):
            workers = self._kept[key]
            for w in list(workers):
                if total > self.settings.kept or now - w.idle_since > self.settings.keep_idle_s:
                    workers.remove(w)
                    total -= 1
                    self._kill(w)
                    w.sock.close()
            if not workers:
                del self._kept[key]

    @staticmethod
    def _late_line(reader: channel.Reader) -> tuple[int | None, int | None]:
        """Where a child that ran past its deadline was, from a line report that comes within
        ``LATE_LINE_S`` (its watchdog sends it shortly before the deadline, but on a busy machine a
        worker below the server's priority may be scheduled late); (None, None) otherwise."""
        try:
            header, _ = reader.read(time.monotonic() + LATE_LINE_S)
        except (channel.ChannelTimeout, channel.ChannelClosed, channel.ChannelError):
            return None, None
        if header.get("type") != "line":
            return None, None
        line, col = header.get("line"), header.get("col")
        return (line if type(line) is int else None, col if type(col) is int else None)

    def _answer(self, spare: _Spare, reader: channel.Reader, deadline: float, started: float) -> Reply:
        where = (None, None)
        while True:
            try:
                header, body = reader.read(deadline)
            except channel.ChannelTimeout:
                if where == (None, None):
                    where = self._late_line(reader)
                self._kill(spare)
                raise RunTimeout(own_message("run_past_deadline"), *where) from None
            except channel.ChannelClosed:
                self._kill(spare)
                raise WorkerCrashed(own_message("worker_ended_silent")) from None
            except channel.ChannelError as e:
                self._kill(spare)
                raise WorkerProtocolError(own_message("worker_answer_not_data", e)) from None
            kind = header.get("type")
            if kind == "line":
                line, col = header.get("line"), header.get("col")
                where = (line if type(line) is int else None, col if type(col) is int else None)
                continue
            if kind == "result" and "value" in header:
                return Reply(header["value"], body, {"worker": time.monotonic() - started})
            self._kill(spare)  # a job that failed, or an answer off the agreement: not kept
            if kind == "error" and isinstance(header.get("error"), dict):
                err = header["error"]
                raise JobFailed(str(err.get("type", "RuntimeError"))[:100],
                                str(err.get("message", ""))[:2000])
            raise WorkerProtocolError(own_message("worker_answer_unknown"))

    @staticmethod
    def _kill(spare: _Spare) -> None:
        try:
            spare.template.send({"op": "kill", "id": spare.rid})
        except OSError:
            pass

    def close(self) -> None:
        self._stopping.set()
        with self._lock:
            self._closed = True
            self._spare_came.notify_all()
            while self._spares:
                self._spares.popleft().sock.close()
            for workers in self._kept.values():
                for w in workers:
                    w.sock.close()
            self._kept.clear()
            self._template.stop()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class _Spare:
    """A child of ``template`` (request id ``rid``) that serves calls on ``sock`` (``served`` so far)."""

    template: Template
    rid: int
    sock: socket.socket
    served: int = 0
    idle_since: float = 0.0
    nice: int = 0  # the highest nice value its requests asked for: it runs at that priority or lower


class _TemplateStuck(Exception):
    """The template did not take or did not fork the call: replace it and try once more."""

"""One forked child of the template: warms up, then serves requests on its own socket (one; or,
when the server keeps it for the same client, that client's next ones), until it is killed.

Before anything else it drops what it does not need: the template's control socket and every other
descriptor, its stdout/stderr (to /dev/null); it adds the child seccomp filter and its resource
limits. Then it runs the job table's warm-up (the first run after a fork copies the pages it
touches: better now than while a user waits), starts its one extra thread (the watchdog), adds
the filter that forbids any further thread to both, says hello, and waits for its request. It answers
with data frames only (app/sandbox/channel.py):

- ``{"type": "hello"}`` once it is ready;
- ``{"type": "line", "line", "col"}`` shortly before the request's deadline, from a watchdog
  thread, so that a run killed inside one long NumPy call can still say where it was;
- ``{"type": "result", "value"}`` (plus a text body for large answers) or
  ``{"type": "error", "error": {"type", "message"}}``.
"""

from __future__ import annotations

import gc
import os
import resource
import socket
import threading
import time

from . import channel, lockdown

WATCHDOG_LEAD_S = 0.3  # the line report is sent this long before the server's deadline
LONG_RUN_S = 0.5  # a run this long yields the CPU to shorter ones (a lower scheduling priority)
YIELD_NICE = 10
WARM_UP_CPU_S = 30  # CPU seconds for the warm-up; a request then gets its own deadline's worth
LIFETIME_CPU_S = 3600  # all the CPU seconds one child may ever use
FOREVER_S = 365 * 86400.0  # a spare waits for its request as long as the server keeps it
_BASE_NICE = [0]  # the template's nice value (the server's), which a request's "nice" is added to


def _only_fd(keep: int, null: int) -> None:
    """Close every descriptor but ``keep``; 0, 1, 2 point to /dev/null (``null``, opened by the
    template: the filter lets nothing open a file for writing)."""
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 16)


def run_child(fd: int, null: int, module, filters: dict, init: dict, warm: bool = True) -> None:
    """The child's whole life (never returns). ``filters``: the child's and the threads' seccomp
    filters as BPF (None without the OS layer). ``warm``: run the job table's warm-up first (its
    first touches of the template's memory copy the pages a run writes, ~2x a small run's CPU time):
    worth it for a spare that waits, not for one a waiting request takes at once."""
    code = 0
    try:
        _only_fd(fd, null)
        lockdown.die_with_parent()
        _BASE_NICE[0] = os.getpriority(os.PRIO_PROCESS, 0)
        if os.getppid() == 1:  # the template died between fork and here
            os._exit(1)
        lockdown.limit(init.get("memory_bytes"), None, init.get("open_files"))
        resource.setrlimit(resource.RLIMIT_CPU, (WARM_UP_CPU_S, LIFETIME_CPU_S))
        if filters.get("child") is not None:
            lockdown.load_bpf(filters["child"])
        warm_up = getattr(module, "warm_up", None) if warm else None
        if warm_up is not None:
            warm_up()
        _serve(socket.socket(fileno=fd), module.JOBS, filters.get("threads"), init.get("seccomp_nr"))
    except BaseException:  # noqa: BLE001 - nothing may escape a child; the server sees the socket close
        code = 1
    finally:
        os._exit(code)


class _Writer:
    """Frames to the server from two threads (the job and the watchdog), one at a time."""

    def __init__(self, conn: socket.socket):
        self.conn = conn
        self.lock = threading.Lock()

    def send(self, header: dict, body: str | None = None) -> None:
        with self.lock:
            channel.send(self.conn, header, body)


def _serve(conn: socket.socket, jobs: dict, threads_filter: bytes | None, seccomp_nr: int | None) -> None:
    """Say hello, then answer requests one at a time until the server kills this process (it sends
    more than one only to the same client's next runs)."""
    out = _Writer(conn)
    watchdog = _Watchdog(out)
    if threads_filter is not None:  # the watchdog runs: no run needs another thread
        lockdown.load_bpf_all_threads(threads_filter, int(seccomp_nr))
    # No automatic collection while a job runs: a run allocates hundreds of thousands of objects
    # that live until its answer is sent, and the first collection after them would walk them all
    # (a third of a second on a 20,000-op run) while the user waits. Cycles are collected after the
    # answer is out, in case the server keeps this child for the same client's next run.
    gc.disable()
    out.send({"type": "hello"})
    reader = channel.Reader(conn, max_body=0)
    while True:
        request, _ = reader.read(time.monotonic() + FOREVER_S)
        _answer(out, watchdog, jobs, request)
        gc.collect()


def _answer(out: _Writer, watchdog: _Watchdog, jobs: dict, request: dict) -> None:
    start = time.monotonic()
    deadline_s = float(request.get("deadline_s", 0)) or 10.0
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + deadline_s) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    job = jobs.get(request.get("job"))
    if job is None:
        out.send({"type": "error", "error": {"type": "RuntimeError", "message": "unknown job"}})
        return
    nice = request.get("nice")
    if type(nice) is int and nice > 0:  # requests wait for a place: the server's own work goes first
        lockdown.lower_priority(_BASE_NICE[0] + nice)
    if request.get("yield"):  # a client that used much worker time lately: others go first
        lockdown.lower_priority(_BASE_NICE[0] + YIELD_NICE)
    watchdog.begin(start, start + deadline_s - WATCHDOG_LEAD_S)
    try:
        result = job(*request.get("args", ()), **request.get("kwargs", {}))
    except BaseException as exc:  # noqa: BLE001 - reported as data, never re-raised across processes
        watchdog.end()
        out.send({"type": "error", "error": {"type": type(exc).__name__, "message": _message(exc)}})
        return
    watchdog.end()
    value, body = result if isinstance(result, tuple) else (result, None)
    out.send({"type": "result", "value": value}, body)


def _message(exc: BaseException) -> str:
    try:
        return str(exc)[:2000]
    except Exception:  # noqa: BLE001 - an exception whose text cannot be made
        return ""


class _Watchdog:
    """One thread for the child's life: during each run it lowers the priority once the run has
    gone on long, and reports the run's line just before the deadline (nothing once it ended)."""

    def __init__(self, out: _Writer):
        self.out = out
        self.cond = threading.Condition()
        self.active: tuple[int, float, float] | None = None  # (run number, start, report time)
        self.runs = 0
        threading.Thread(target=self._loop, daemon=True).start()

    def begin(self, start: float, report_at: float) -> None:
        with self.cond:
            self.runs += 1
            self.active = (self.runs, start, report_at)
            self.cond.notify()

    def end(self) -> None:
        with self.cond:
            self.active = None
            self.cond.notify()

    def _still(self, run: int, until: float) -> bool:
        """Wait until ``until``; True if run number ``run`` is still going then."""
        with self.cond:
            while self.active is not None and self.active[0] == run:
                left = until - time.monotonic()
                if left <= 0:
                    return True
                self.cond.wait(left if left < FOREVER_S else None)
            return False

    def _loop(self) -> None:
        while True:
            with self.cond:
                while self.active is None:
                    self.cond.wait()
                run, start, report_at = self.active
            if not self._still(run, min(start + LONG_RUN_S, report_at)):
                continue
            try:
                lockdown.lower_priority(_BASE_NICE[0] + YIELD_NICE)
            except OSError:
                pass
            if not self._still(run, report_at):
                continue

            from engine import trace

            rec = trace.ACTIVE
            line, col = rec.location if rec is not None and rec.location else (None, None)
            try:
                self.out.send({"type": "line", "line": line, "col": col})
            except OSError:
                pass
            self._still(run, float("inf"))  # once per run

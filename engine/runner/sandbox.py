"""``WorkerPool``: run a function in worker processes that are killed at a deadline.

The wall-time limit must hold even while one NumPy call runs for a long time, and the server must
stay responsive meanwhile, so runs happen in separate processes: the caller waits on a pipe with
a timeout; at the deadline the worker is killed and a fresh one started. Workers are started with
the 'spawn' context (the server has threads, so fork is unsafe), run one call at a time, and limit
themselves (address space, no file writes, no core dumps) before serving.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time

_STARTUP_TIMEOUT = 60.0
_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class RunTimeout(Exception):
    """The call did not finish before its deadline (its worker was killed and replaced)."""


class WorkerCrashed(RuntimeError):
    """The worker died during the call (e.g. killed by the OS); it was replaced."""


def _limit_resources(memory_bytes: int | None) -> None:
    """Defence in depth for the worker: bounded address space, no files written, no core dumps."""
    try:
        import resource
        import signal

        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with EFBIG instead of killing
    except (ImportError, ValueError, OSError):
        pass


def _worker_main(conn, memory_bytes: int | None) -> None:
    """The worker loop: receive (fn, args), send ("ok", result) or ("err", exception)."""
    _limit_resources(memory_bytes)
    conn.send(("ready", None))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        except Exception as e:  # the request could not be unpickled
            conn.send(("err", RuntimeError(f"bad request for the worker: {e!r}")))
            continue
        if msg is None:
            return
        fn, args, kwargs = msg
        try:
            reply = ("ok", fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - everything goes back to the caller
            reply = ("err", e)
        try:
            conn.send(reply)
        except Exception as e:
            conn.send(("err", RuntimeError(f"the worker's result could not be sent back: {e!r}")))


class _Worker:
    __slots__ = ("process", "conn", "ready", "calls")

    def __init__(self, process, conn):
        self.process = process
        self.conn = conn
        self.ready = False
        self.calls = 0


class WorkerPool:
    """A fixed number of worker processes; ``call`` runs a module-level function in one of them.

    Thread-safe: concurrent callers each get their own worker (or wait for one to be free).
    """

    def __init__(self, workers: int = 1, memory_mb: int | None = 3072, max_calls: int = 200):
        for var in _THREAD_VARS:  # inherited by the spawned workers: one BLAS thread each
            os.environ.setdefault(var, "1")
        self._ctx = mp.get_context("spawn")
        self._memory = memory_mb * 2**20 if memory_mb else None
        self._max_calls = max_calls
        self._cond = threading.Condition()
        self._closed = False
        self._idle: list[_Worker] = [self._start() for _ in range(max(1, workers))]
        self._busy: list[_Worker] = []

    def _start(self) -> _Worker:
        parent, child = self._ctx.Pipe(duplex=True)
        p = self._ctx.Process(target=_worker_main, args=(child, self._memory), daemon=True)
        p.start()
        child.close()
        return _Worker(p, parent)

    @staticmethod
    def _stop(w: _Worker, graceful: bool = False) -> None:
        if graceful:
            try:
                w.conn.send(None)
                w.process.join(1.0)
            except (OSError, ValueError):
                pass
        if w.process.is_alive():
            w.process.kill()
        w.process.join(5.0)
        w.conn.close()

    def _acquire(self, timeout: float) -> _Worker:
        end = time.monotonic() + timeout
        with self._cond:
            while not self._idle:
                if self._closed:
                    raise RuntimeError("the worker pool is closed")
                left = end - time.monotonic()
                if left <= 0:
                    raise RunTimeout("all workers are busy; try again in a moment")
                self._cond.wait(left)
            if self._closed:
                raise RuntimeError("the worker pool is closed")
            w = self._idle.pop()
            self._busy.append(w)
            return w

    def _release(self, w: _Worker, replace: bool) -> None:
        if replace:
            self._stop(w)
        with self._cond:
            self._busy.remove(w)
            if self._closed:
                if not replace:
                    self._stop(w, graceful=True)
            else:
                self._idle.append(self._start() if replace else w)
            self._cond.notify()

    def _wait_ready(self, w: _Worker) -> None:
        if w.ready:
            return
        if not w.conn.poll(_STARTUP_TIMEOUT):
            raise WorkerCrashed("the worker did not start")
        status, _ = w.conn.recv()
        if status != "ready":
            raise WorkerCrashed("the worker did not start")
        w.ready = True

    def call(self, fn, *args, timeout: float, **kwargs):
        """Run ``fn(*args, **kwargs)`` in a worker; return its result or re-raise its exception.

        ``fn`` must be a module-level function (it is pickled by name). At ``timeout`` seconds the
        worker is killed, replaced, and ``RunTimeout`` raised.
        """
        w = self._acquire(timeout)
        replace = True
        try:
            try:
                self._wait_ready(w)
                w.conn.send((fn, args, kwargs))
                if not w.conn.poll(timeout):
                    raise RunTimeout(f"the program ran longer than {timeout:g} s and was stopped")
                status, value = w.conn.recv()
            except (EOFError, OSError) as e:
                raise WorkerCrashed(f"the worker died while running the program ({e!r})") from None
            w.calls += 1
            replace = w.calls >= self._max_calls
        finally:
            self._release(w, replace)
        if status == "err":
            raise value
        return value

    def close(self) -> None:
        """Stop every worker (waiting for none of the running calls)."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for w in idle:
            self._stop(w, graceful=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""The server's handle on the template process (app/sandbox/template.py is the process itself):
``Template`` starts it (under bubblewrap and its seccomp filters when ``filters`` are given), tells
it the job table and the limits of its children, and hands each child's socket, as the template
forks one and sends it back, to the pool (app/sandbox/pool.py). ``SandboxSettings``: how workers are
confined and sized, for the template and the pool."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass

from .. import package
from . import confinement

STARTUP_TIMEOUT_S = 60.0
# While requests wait for a place, each worker runs below the server's priority, so that the server
# answers (/api/health, drawings) while they use every core; a worker can raise its nice value,
# never lower it. Otherwise they run at the server's. The sandbox's session (bubblewrap's) keeps the
# server's priority as a whole: where the kernel groups tasks by session, that group has one share
# against the server's session already, and at +5 it had a third of a share against every other
# session of a machine busy with other work (a 50-step MLP run took 2.1 s instead of 0.77 s, and 16
# clients got 12-17 answers a second instead of 42-58).
WORKER_NICE = 5
# The sandbox's user may have this many processes and threads per place (a backstop: the seccomp
# filters already keep a child from starting any). As root, every sandbox of the machine counts
# (user 65534 is shared), so this leaves room for others beside the pool's own.
PROCESSES_PER_PLACE = 64
MIN_PROCESSES = 256
# Worker processes compute with one thread: a child may not start any beyond its watchdog.
_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")



@dataclass
class SandboxSettings:
    """How workers are confined and sized."""

    mode: str = "full"  # "full": OS layer required; "language-only": explicitly without it
    slots: int = 2  # children running at once, for any client
    reserved: int = 1  # more children at once, only for clients that used little worker time lately
    per_client: int = 2  # one client's requests running at once
    keep_idle_s: float = 60.0  # a kept worker idle this long is killed
    # Workers kept for their own clients' next runs, at most, all clients together. A class's clients
    # take turns faster than a few kept workers last: each of them then forks a fresh worker per
    # run, whose first touches of the template's pages cost 3-5x the small run itself.
    kept: int = 16
    memory_mb: int = 3072  # address space of each child
    queue_wait_s: float = 5.0  # longest wait for a free place before PoolBusy
    nice_when_waiting: int = 1  # requests waiting for a place from which workers run at WORKER_NICE
    max_answer_bytes: int = 64 * 2**20
    jobs: str = f"{package.APP}.worker.jobs"  # the job table the template imports
    extra_code: tuple[str, ...] = ()  # more checkout directories the sandbox shows (tests' jobs)

    @property
    def places(self) -> int:
        """Children that may run at once."""
        return self.slots + self.reserved

class Template:
    """One running template process and its control socket. ``on_spawned(template, id, socket or
    None)`` is called from this template's listening thread for each child it forked (None: the
    fork failed)."""

    def __init__(self, settings: SandboxSettings, filters: dict[str, bytes] | None, on_spawned=None):
        self.settings = settings
        self.on_spawned = on_spawned
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1", "LANG": "C.UTF-8",
               "HOME": "/nonexistent", "PATH": "/usr/bin"}
        env.update({v: "1" for v in _THREAD_VARS})
        module_args = [*package.python_module_args("sandbox.template"), str(theirs.fileno())]
        fds = [theirs.fileno()]
        if filters is not None:
            argv, options = confinement.command(module_args, env, settings.extra_code)
            fds.append(_readable(options))
            argv = [a.replace("{fd}", str(fds[1])) for a in argv]
            proc_env = {"PATH": "/usr/bin:/bin"}
        else:
            argv = [sys.executable, *module_args]
            proc_env = dict(env, PATH=os.environ.get("PATH", "/usr/bin"))
        try:
            self.proc = subprocess.Popen(argv, pass_fds=fds, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, cwd=str(confinement.ROOT), env=proc_env)
        finally:
            for fd in fds[1:]:
                os.close(fd)
        theirs.close()
        self.ctl = ours
        self.lock = threading.Lock()
        init = {"op": "init", "jobs": settings.jobs, "memory_bytes": settings.memory_mb * 2**20,
                "open_files": 64,
                "filters": {k: base64.b64encode(v).decode() for k, v in (filters or {}).items()}}
        if filters is not None:
            from .seccomp_rules import seccomp_syscall

            init.update(seccomp_nr=seccomp_syscall(), own_session=True,
                        processes=max(MIN_PROCESSES, PROCESSES_PER_PLACE * settings.places))
        self.ctl.send(json.dumps(init).encode())
        self.ctl.settimeout(STARTUP_TIMEOUT_S)
        try:
            ready = json.loads(self.ctl.recv(1 << 16) or b"null")
        except (OSError, ValueError):
            ready = None
        self.ctl.settimeout(None)
        if not isinstance(ready, dict) or ready.get("op") != "ready":
            self.stop()
            raise confinement.SandboxUnavailable(
                f"the sandboxed worker did not start (exit status {self.proc.poll()})")
        self.status = ready.get("status") or {}
        threading.Thread(target=self._listen, name="sandbox-template", daemon=True).start()

    def _listen(self) -> None:
        """Hand each child's socket, as the template sends it, to ``on_spawned``."""
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.ctl, 4096, 1)
            except OSError:
                return
            if not data:
                return
            sock = socket.socket(fileno=fds[0]) if fds else None
            try:
                msg = json.loads(data)
                rid = int(msg["id"])
            except (ValueError, KeyError, TypeError):
                if sock is not None:
                    sock.close()
                continue
            if self.on_spawned is not None:
                self.on_spawned(self, rid, sock if msg.get("op") == "spawned" else None)
            elif sock is not None:
                sock.close()

    def nice_at(self, waiting: int) -> int:
        """The nice value, above the server's, of a request's worker while ``waiting`` requests wait
        for a place."""
        return WORKER_NICE if waiting >= self.settings.nice_when_waiting else 0

    def alive(self) -> bool:
        """Whether the template process still runs."""
        return self.proc.poll() is None

    def send(self, msg: dict, fds: list[int] = ()) -> None:
        """Send the template one control message (with descriptors ``fds``)."""
        with self.lock:
            socket.send_fds(self.ctl, [json.dumps(msg).encode()], list(fds))

    def stop(self) -> None:
        """Close the control socket and end the template process."""
        try:
            with contextlib.suppress(OSError):
                self.ctl.shutdown(socket.SHUT_RDWR)  # wakes the listening thread
            self.ctl.close()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(10)


def _readable(data: bytes) -> int:
    """A descriptor to read ``data`` from, from its start (an anonymous file: no size limit)."""
    fd = os.memfd_create("bwrap-args", os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd

"""The template process: started once inside the sandbox, it imports everything a run needs, then
forks one fresh child per request (``python -m app.sandbox.template CONTROL_FD``).

No program ever runs in the template itself, so every child starts from the same clean, warmed-up
state and has served no other client. The server talks to the template over a control socket
(SOCK_SEQPACKET, one JSON message per packet):

- ``{"op": "init", ...}`` (first): the job table to import, the seccomp filters as BPF, the
  limits; the template answers ``{"op": "ready", "status": ...}`` (what it sees of its confinement).
- ``{"op": "spawn", "id"}``: make a socket pair, fork a child that warms up, then serves requests
  on one end (app/sandbox/child.py), and send the other end back with ``{"op": "spawned", "id"}``
  (SCM_RIGHTS; ``{"op": "failed", "id"}`` if the fork failed). The pair is made here, inside the
  sandbox, so that what the child can learn of its peer (SO_PEERCRED) is the template: user
  65534 and a pid of the sandbox, not the server. The server keeps a few such spares ready, so a
  request never waits for a fork or a warm-up.
- ``{"op": "kill", "id"}``: kill that child now (the server asks at the request's deadline, and as
  soon as it has the answer).

The template never reads anything a child sends; when the server goes away it kills its children
and exits.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import importlib
import json
import os
import select
import signal
import socket
import sys

from . import lockdown


class Template:
    """The fork server's state: the control socket, the job table, the live children."""

    def __init__(self, ctl: socket.socket, init: dict):
        self.ctl = ctl
        self.init = init
        self.children: dict[int, int] = {}  # request id -> pid
        self.dying: set[int] = set()  # killed, not yet reaped
        self.module = importlib.import_module(init["jobs"])
        self.filters = {name: _bpf(init, name) for name in ("child", "threads")}
        self.devnull = os.open(os.devnull, os.O_RDWR)  # for the children's stdio (see child.py)

    def warm_up(self) -> None:
        """Run the job table's warm-up (trusted code) so that children start with hot imports and
        caches, then freeze the heap so that the children's garbage collections leave it shared."""
        warm = getattr(self.module, "warm_up", None)
        if warm is not None:
            warm()
        gc.collect()
        gc.freeze()

    def serve(self) -> None:
        while True:
            self.reap()
            ready, _, _ = select.select([self.ctl], [], [], 0.05 if self.dying else 0.25)
            if ready and not self.receive():
                break
        for rid in list(self.children):
            self.kill(rid)

    def receive(self) -> bool:
        """Handle one control message; False when the server has gone."""
        try:
            data, fds, _, _ = socket.recv_fds(self.ctl, 65536, 1)
        except OSError:
            return False
        if not data:
            return False
        try:
            msg = json.loads(data)
            op = msg.get("op")
            if op == "spawn":
                self.spawn(int(msg["id"]), msg.get("warm", True) is not False)
            elif op == "kill":
                self.kill(int(msg["id"]))
        finally:
            for fd in fds:
                os.close(fd)
        return True

    def spawn(self, rid: int, warm: bool = True) -> None:
        """Fork child ``rid`` on one end of a new socket pair; the other end goes to the server.
        ``warm``: the child warms up before it says hello (see child.py)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = os.fork()
            if pid == 0:
                from .child import run_child

                run_child(theirs.fileno(), self.devnull, self.module, self.filters, self.init, warm)
                os._exit(0)  # not reached: run_child always exits
            self.children[rid] = pid
            socket.send_fds(self.ctl, [json.dumps({"op": "spawned", "id": rid}).encode()], [ours.fileno()])
        except OSError:  # no fork (the process limit), or the server is gone
            self.kill(rid)
            with contextlib.suppress(OSError):
                self.ctl.send(json.dumps({"op": "failed", "id": rid}).encode())
        finally:
            ours.close()
            theirs.close()

    def kill(self, rid: int) -> None:
        """Kill a child (it is reaped in the loop: the template never waits on a dying process)."""
        pid = self.children.pop(rid, None)
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.dying.add(pid)

    def reap(self) -> None:
        done = set()
        while self.children or self.dying:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            done.add(pid)
        if done:
            self.children = {rid: pid for rid, pid in self.children.items() if pid not in done}
            self.dying -= done


def _bpf(init: dict, name: str) -> bytes | None:
    text = (init.get("filters") or {}).get(name)
    return base64.b64decode(text) if text else None


def main(argv: list[str]) -> None:
    ctl = socket.socket(fileno=int(argv[1]))
    lockdown.die_with_parent()
    init = json.loads(ctl.recv(1 << 20))
    # The template, its session's scheduling group and each child start at the server's priority; a
    # child lowers its own as its request says (child.py) and can never climb back.
    lockdown.limit_nice()
    if init.get("processes"):
        lockdown.limit_processes(int(init["processes"]))
    template = Template(ctl, init)
    template.warm_up()
    lockdown.not_dumpable()
    bpf = _bpf(init, "template")
    if bpf is not None:
        lockdown.load_bpf(bpf)
    ctl.send(json.dumps({"op": "ready", "status": lockdown.status(), "pid": os.getpid()}).encode())
    template.serve()


if __name__ == "__main__":
    main(sys.argv)

"""A job table whose ``run`` job answers like a compromised worker would (the program's source
names how), to show that the server accepts nothing but the agreed data."""

from __future__ import annotations

import os
import pickle
import socket
import stat
import struct

from app.worker.jobs import JOBS as PRODUCTION
from app.worker.jobs import warm_up  # noqa: F401 - the template warms up as production's does

PWN_ENV = "GV_PWNED_BY_WORKER"


class _Pwn:
    def __reduce__(self):
        return (os.putenv, (PWN_ENV, "1"))


def own_socket() -> socket.socket:
    """This child's connection to the server: the one socket among its descriptors."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and stat.S_ISSOCK(os.fstat(fd).st_mode):
                return socket.socket(fileno=fd)
        except OSError:
            continue
    raise RuntimeError("no socket")


def _raw_frame(data: bytes) -> None:
    """Write ``data`` straight onto this child's socket and stop."""
    own_socket().sendall(data)
    os._exit(0)


def run(source: str, variables=None, fold="auto", later: bool = False):
    kind = source
    if kind == "pickle":
        _raw_frame(pickle.dumps(_Pwn()))
    if kind == "pickle-in-frame":
        blob = pickle.dumps(_Pwn())
        _raw_frame(struct.pack(">I", len(blob)) + blob)
    if kind == "deep-header":  # nested past any parser's recursion limit
        head = b"[" * 100_000 + b"]" * 100_000
        _raw_frame(struct.pack(">I", len(head)) + head)
    if kind == "huge-header":
        _raw_frame(struct.pack(">I", 2**31) + b"{")
    if kind == "nan":
        head = b'{"type":"result","value":{"prepared":NaN}}'
        _raw_frame(struct.pack(">I", len(head)) + head)
    if kind == "wrong-shape":
        return {"prepared": {"nonce": "zz", "layout": {"nodes": {"1": {"kind": "<svg onload=x>"}}}}}, "{}"
    if kind == "dot-injection":
        out = PRODUCTION["run"]("x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n")
        value, text = out
        for node in value["prepared"]["layout"]["nodes"]:
            for field in ("name", "label", "sym"):  # every text the drawing writes
                node[field] = 'x" image="/etc/passwd" label="'
        return value, text
    if kind == "fingerprint-newline":  # would split the line the shared cache keeps before an answer
        value, text = PRODUCTION["run"]("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
        value["prepared"]["fingerprint"] = '0\n{"injected": 1}'
        return value, text
    if kind in ("nan-in-answer-text", "text-for-a-number"):  # JSON the page cannot read; off the schema
        value, text = PRODUCTION["run"]("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
        lie = {"nan-in-answer-text": ('"stdout":', '"x":[NaN],"stdout":'),
               "text-for-a-number": ('"nodes":[{"id":', '"nodes":[{"id":"0","was":')}[kind]
        assert lie[0] in text
        return value, text.replace(*lie, 1)
    if kind == "bad-answer-text":
        value, _ = PRODUCTION["run"](source, variables)
        return value, '{"variables": 1}'
    raise SystemExit(7)


def extras(source: str, variables=None):
    """The extras of an honest run with a bare NaN in its text (JSON the page cannot read)."""
    value, text = PRODUCTION["extras"]("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    if source == "nan-in-extras-text":
        assert '"timings":{' in text
        text = text.replace('"timings":{', '"timings":{"x":NaN,', 1)
    return value, text


JOBS = dict(PRODUCTION, run=run, extras=extras)

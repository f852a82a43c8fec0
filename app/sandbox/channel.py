"""Frames between the server and a sandboxed process: data only, never pickle.

A frame is a 4-byte big-endian length, a JSON header of that length (UTF-8, no NaN or infinities),
and, when the header says ``"body": n``, n bytes of UTF-8 text after it (the answer JSON, which
would be slow to escape into the header). The reader bounds every size and every wait.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import time

import orjson

MAX_HEADER = 4 * 2**20


class ChannelError(Exception):
    """The other side sent something that is not a well-formed frame (or nothing in time)."""


class ChannelClosed(ChannelError):
    """The other side closed the connection (or died) before a whole frame arrived."""


class ChannelTimeout(ChannelError):
    """No whole frame before the deadline."""


def encode(header: dict, body: str | None = None) -> bytes:
    """One frame's bytes."""
    data = body.encode("utf-8") if body is not None else b""
    if body is not None:
        header = dict(header, body=len(data))
    try:
        head = orjson.dumps(header, option=orjson.OPT_NON_STR_KEYS)  # a non-finite float: null
    except TypeError:  # what orjson does not write (an integer over 64 bits): the standard encoder
        head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return struct.pack(">I", len(head)) + head + data


def send(sock: socket.socket, header: dict, body: str | None = None) -> None:
    """Write one frame (blocking)."""
    sock.sendall(encode(header, body))


class Reader:
    """Reads frames from one socket with a deadline and size limits."""

    def __init__(self, sock: socket.socket, max_body: int):
        self.sock = sock
        self.max_body = max_body

    def _exactly(self, n: int, deadline: float) -> bytes:
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChannelTimeout("no answer before the deadline")
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                continue
            try:
                chunk = self.sock.recv(min(n - got, 1 << 20))
            except OSError as e:
                raise ChannelClosed(f"the connection failed ({e.strerror})") from None
            if not chunk:
                raise ChannelClosed("the other side closed the connection")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def read(self, deadline: float) -> tuple[dict, str | None]:
        """The next frame's header (a dict) and body text (or None)."""
        (size,) = struct.unpack(">I", self._exactly(4, deadline))
        if size > MAX_HEADER:
            raise ChannelError(f"a frame header of {size:,} bytes is over the limit")
        data = self._exactly(size, deadline)
        try:
            header = orjson.loads(data)  # strict: UTF-8, no NaN or infinities, bounded nesting
        except Exception as e:  # noqa: BLE001 - not JSON, nested too deep, or any other failure of the parser
            raise ChannelError(f"a frame header could not be parsed as JSON ({e})") from None
        if not isinstance(header, dict):
            raise ChannelError("a frame header is not a JSON object")
        n = header.get("body")
        if n is None:
            return header, None
        if type(n) is not int or not 0 <= n <= self.max_body:
            raise ChannelError(f"a frame body of {n!r} bytes is over the limit of {self.max_body:,}")
        try:
            return header, self._exactly(n, deadline).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ChannelError(f"a frame body is not UTF-8: {e}") from None

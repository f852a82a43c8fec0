"""The rules of a live class, with no I/O: what identifies a class (an unguessable id in the link, a
short code to type), who may lead it (a teacher token only the teacher's browser holds), who is a
student of it (a token the server signed for that class), how long it lives, and how often a client
may join or guess. The store (``class_store.py``) keeps the classes; the routes
(``app/routes/class_api.py``) apply these rules.

Nothing here is personal: a student is a random token, a guess is a few numbers, and everything of
a class is dropped when the teacher ends it or after ``IDLE_S`` without the teacher."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import OrderedDict

ID_BYTES = 16  # the link's id: 128 random bits
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed from the back
CODE_LEN = 6  # 30 bits: guessing one is bounded by CODE_TRIES_PER_MINUTE
IDLE_S = 2 * 3600.0  # a class the teacher left this long is gone
JOINS_PER_MINUTE = 10  # per client (session cookie and address)
ADDRESS_JOINS_PER_MINUTE = 600  # per address: a whole school behind one, not a flood of new cookies
CODE_TRIES_PER_MINUTE = 20  # per address: unknown codes typed
GUESSES_PER_MINUTE = 30  # per student of a class
STARTS_PER_MINUTE = 5  # per client
MAX_STATE_BYTES = 128 * 1024  # what a teacher's page publishes at once
MAX_QUESTIONS = 16  # guesses at one step (an op sends one gradient per input)
MAX_NUMBERS = 9  # numbers in one guess (predict.js asks values of at most 9 elements)


def new_id() -> str:
    """A class id for the join link."""
    return secrets.token_urlsafe(ID_BYTES)


def new_code() -> str:
    """A short code to type (``CODE_LEN`` letters and digits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))


def normal_code(text: str) -> str | None:
    """A typed code as stored (upper case, no spaces or dashes), or None if it cannot be one."""
    code = "".join(ch for ch in str(text).upper() if ch not in " -")
    if len(code) != CODE_LEN or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def valid_id(text: str) -> bool:
    """Could ``text`` be a class id (so that nothing else reaches the store as a key)?"""
    return len(text) == math.ceil(ID_BYTES * 4 / 3) and all(ch.isalnum() or ch in "-_" for ch in text)


def new_teacher_token() -> tuple[str, str]:
    """A teacher token and the digest the store keeps of it."""
    token = secrets.token_urlsafe(24)
    return token, token_digest(token)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_teacher(token: str | None, digest: str) -> bool:
    """Does ``token`` lead the class whose teacher digest is ``digest``?"""
    return bool(token) and hmac.compare_digest(token_digest(token), digest)


def student_token(class_id: str, secret: bytes) -> str:
    """A new student of ``class_id``: a random token and the server's MAC of it and the class."""
    nonce = secrets.token_hex(8)
    return nonce + _student_mac(class_id, nonce, secret)


def student_of(token: str | None, class_id: str, secret: bytes) -> bool:
    """Was ``token`` issued by this server (or a replica sharing its secret) for ``class_id``?"""
    if not token or len(token) != 32:
        return False
    return hmac.compare_digest(_student_mac(class_id, token[:16], secret), token[16:])


def _student_mac(class_id: str, nonce: str, secret: bytes) -> str:
    return hmac.new(secret, f"class:{class_id}:{nonce}".encode(), hashlib.sha256).hexdigest()[:16]


def guess_numbers(guesses: list[list[float]]) -> list[list[float]] | None:
    """The guesses of one step as plain finite floats, or None when they break the bounds."""
    if len(guesses) > MAX_QUESTIONS or any(len(g) > MAX_NUMBERS for g in guesses):
        return None
    out = [[float(x) for x in g] for g in guesses]
    return out if all(math.isfinite(x) for g in out for x in g) else None


class Window:
    """At most ``limit`` events per key in any minute (a sliding window), for a bounded number of
    keys (the least recently seen forgotten first). Thread-safe."""

    def __init__(self, limit: int, span_s: float = 60.0, keys: int = 100_000):
        self.limit = limit
        self.span_s = span_s
        self.keys = keys
        self._times: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count one event of ``key``; False (and not counted) when it is over the limit."""
        now = time.monotonic() if now is None else now
        with self._lock:
            times = [t for t in self._times.pop(key, []) if now - t < self.span_s]
            ok = len(times) < self.limit
            if ok:
                times.append(now)
            self._times[key] = times
            while len(self._times) > self.keys:
                self._times.popitem(last=False)
            return ok

"""The live classes of this server: starting one, joining it, the teacher's updates published to
every follower, the students' guesses and the reveal, the end. The rules are in
``class_rules.py``, the records in ``class_store.py``, the streams in ``class_hub.py``; this module
applies them for the routes (``app/routes/class_api.py``). Every refusal is a ``Refused`` with its
4xx status and its words in English and Chinese (the server catalogue), counted by reason for ``/metrics``."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from ..schemas.common import error_info
from ..words.messages import own_message
from . import class_rules as rules
from .class_hub import LocalHub, RedisHub
from .class_store import MemoryClasses, RedisClasses

# Each refusal's status and error type; its words are the server catalogue's class_<reason> (app/words/).
REASONS = {
    "unknown": (404, "ClassNotFound"),
    "not_teacher": (403, "NotTheTeacher"),
    "not_student": (403, "NotAStudent"),
    "joins": (429, "TooManyJoins"),
    "codes": (429, "TooManyCodes"),
    "starts": (429, "TooManyClasses"),
    "guesses": (429, "TooManyGuesses"),
    "guess_shape": (422, "BadGuess"),
    "too_large": (413, "RequestTooLarge"),
}


@dataclass
class Refused(Exception):
    """A request the class rules refuse (``reason``: a key of ``REASONS``)."""

    reason: str

    def content(self) -> dict:
        return {"error": error_info(REASONS[self.reason][1], own_message(f"class_{self.reason}"))}

    @property
    def status(self) -> int:
        return REASONS[self.reason][0]


def message(record: dict, kind: str = "state") -> str:
    """What a follower's stream carries: the class's whole state, its sequence number, the last reveal."""
    return json.dumps({"kind": kind, "seq": record["seq"], "state": record.get("state"),
                       "revealed": record.get("revealed")}, separators=(",", ":"))


class Classes:
    """The classes one server process serves (its store and hub, its rate windows)."""

    def __init__(self, store, hub, secret: bytes):
        self.store, self.hub, self.secret = store, hub, secret
        self.joins = rules.Window(rules.JOINS_PER_MINUTE)
        self.address_joins = rules.Window(rules.ADDRESS_JOINS_PER_MINUTE)
        self.codes = rules.Window(rules.CODE_TRIES_PER_MINUTE)
        self.starts = rules.Window(rules.STARTS_PER_MINUTE)
        self.guess_window = rules.Window(rules.GUESSES_PER_MINUTE)
        self.refused: dict[str, int] = {}

    def refuse(self, reason: str) -> Refused:
        self.refused[reason] = self.refused.get(reason, 0) + 1
        return Refused(reason)

    async def start(self, client: str) -> dict:
        """A new class led by ``client``: its id, code and teacher token."""
        if not self.starts.allow(client):
            raise self.refuse("starts")
        token, digest = rules.new_teacher_token()
        while True:
            record = {"id": rules.new_id(), "code": rules.new_code(), "teacher": digest, "seq": 0,
                      "state": None, "revealed": None}
            if await self.store.create(record):
                return {"id": record["id"], "code": record["code"], "teacher": token}

    async def find(self, cid: str) -> dict:
        record = await self.store.get(cid) if rules.valid_id(cid) else None
        if record is None:
            raise self.refuse("unknown")
        return record

    async def by_code(self, text: str, address: str) -> str:
        """The id of the class with the typed code; unknown codes are bounded per address."""
        code = rules.normal_code(text)
        cid = await self.store.by_code(code) if code else None
        if cid is None:
            raise self.refuse("unknown" if self.codes.allow(address) else "codes")
        return cid

    async def join(self, cid: str, client: str) -> dict:
        """A new student of the class: a token of its own and the class as it is now. ``client``:
        the client id (``s:<cookie>@<address>``), bounded itself and with its address."""
        if not self.joins.allow(client) or not self.address_joins.allow(client.rpartition("@")[2]):
            raise self.refuse("joins")
        record = await self.find(cid)
        return {"id": cid, "student": rules.student_token(cid, self.secret), "seq": record["seq"],
                "state": record["state"], "revealed": record["revealed"]}

    async def teacher(self, cid: str, token: str | None) -> dict:
        record = await self.find(cid)
        if not rules.is_teacher(token, record["teacher"]):
            raise self.refuse("not_teacher")
        return record

    async def publish(self, cid: str, token: str | None, **fields) -> int:
        """The teacher's page changed the class (its state, or a reveal): every follower hears it."""
        await self.teacher(cid, token)
        record = await self.store.update(cid, **fields)
        if record is None:
            raise self.refuse("unknown")
        await self.hub.publish(cid, record["seq"], message(record))
        return record["seq"]

    async def end(self, cid: str, token: str | None) -> None:
        record = await self.teacher(cid, token)
        await self.store.end(cid)
        await self.hub.publish(cid, record["seq"] + 1, message(dict(record, seq=record["seq"] + 1), "end"))

    async def guess(self, cid: str, student: str | None, frame: int, guesses: list) -> None:
        await self.find(cid)
        if not rules.student_of(student, cid, self.secret):
            raise self.refuse("not_student")
        if not self.guess_window.allow(f"{cid}:{student}"):
            raise self.refuse("guesses")
        numbers = rules.guess_numbers(guesses)
        if numbers is None:
            raise self.refuse("guess_shape")
        await self.store.guess(cid, frame, student, numbers)

    async def answers(self, cid: str, token: str | None, frame: int, full: bool) -> dict:
        """How many students answered at ``frame`` (and, ``full``, their guesses) for the teacher."""
        await self.teacher(cid, token)
        if full:
            guesses = await self.store.guesses(cid, frame)
            return {"count": len(guesses), "guesses": guesses}
        return {"count": await self.store.count(cid, frame), "guesses": None}

    async def current(self, cid: str) -> tuple[int, str] | None:
        record = await self.store.get(cid)
        return None if record is None else (record["seq"], message(record))


def classes_of(app) -> Classes:
    """This process's classes (made at first use): in Redis when ``GRADVIZ_CACHE_URL`` is set."""
    found = getattr(app.state, "classes", None)
    if found is None:
        url = os.environ.get("GRADVIZ_CACHE_URL")
        secret = app.state.settings.client_secret
        if url:
            import redis.asyncio

            client = redis.asyncio.from_url(url, socket_connect_timeout=2.0)
            found = Classes(RedisClasses(client), None, secret)
            found.hub = RedisHub(client, found.current)
        else:
            found = Classes(MemoryClasses(), LocalHub(), secret)
        app.state.classes = found
    return found


def class_gauges(app) -> dict[str, tuple[str, float]]:
    """For /metrics: this process's followers and the class requests it refused, by reason."""
    found = getattr(app.state, "classes", None)
    refused = found.refused if found else {}
    out = {"gradviz_class_followers": ("live class streams open in this process",
                                       found.hub.followers() if found else 0)}
    for reason in REASONS:
        out[f"gradviz_class_refused_{reason}_total"] = (f"class requests refused: {reason}",
                                                       refused.get(reason, 0))
    return out

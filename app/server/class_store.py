"""Where the live classes are kept: in this process (``MemoryClasses``), or in Redis
(``RedisClasses``, with ``GRADVIZ_CACHE_URL``) so that every replica behind the proxy sees the same
classes. A class is a record (its code, its teacher's token digest, the state the teacher's page
published and its sequence number, the last reveal) and the guesses of its students, one set per
step; all of it expires ``IDLE_S`` after the teacher's last update, and is deleted when the class
ends."""

from __future__ import annotations

import json
import time

from .class_rules import IDLE_S


class MemoryClasses:
    """The classes of this process."""

    def __init__(self, idle_s: float = IDLE_S):
        self.idle_s = idle_s
        self._classes: dict[str, dict] = {}
        self._codes: dict[str, str] = {}
        self._guesses: dict[str, dict[int, dict[str, list]]] = {}
        self._touched: dict[str, float] = {}

    def _sweep(self) -> None:
        now = time.monotonic()
        for cid in [c for c, t in self._touched.items() if now - t > self.idle_s]:
            self._drop(cid)

    def _drop(self, cid: str) -> None:
        record = self._classes.pop(cid, None)
        if record is not None:
            self._codes.pop(record["code"], None)
        self._guesses.pop(cid, None)
        self._touched.pop(cid, None)

    async def create(self, record: dict) -> bool:
        """Keep a new class; False when its code is taken (make another)."""
        self._sweep()
        if record["code"] in self._codes:
            return False
        self._classes[record["id"]] = record
        self._codes[record["code"]] = record["id"]
        self._touched[record["id"]] = time.monotonic()
        return True

    async def get(self, cid: str) -> dict | None:
        self._sweep()
        return self._classes.get(cid)

    async def by_code(self, code: str) -> str | None:
        self._sweep()
        return self._codes.get(code)

    async def update(self, cid: str, **fields) -> dict | None:
        """Change a class's record (the teacher acted): one more in its sequence, its life renewed."""
        record = self._classes.get(cid)
        if record is None:
            return None
        record.update(fields, seq=record["seq"] + 1)
        self._touched[cid] = time.monotonic()
        return record

    async def end(self, cid: str) -> None:
        self._drop(cid)

    async def guess(self, cid: str, frame: int, student: str, numbers: list) -> None:
        self._guesses.setdefault(cid, {}).setdefault(frame, {})[student] = numbers

    async def guesses(self, cid: str, frame: int) -> list[list]:
        return list(self._guesses.get(cid, {}).get(frame, {}).values())

    async def count(self, cid: str, frame: int) -> int:
        return len(self._guesses.get(cid, {}).get(frame, {}))


class RedisClasses:
    """The classes in Redis, shared by the replicas (``redis.asyncio`` client)."""

    def __init__(self, client, idle_s: float = IDLE_S):
        self.r = client
        self.ttl = int(idle_s)

    async def create(self, record: dict) -> bool:
        cid = record["id"]
        if not await self.r.set(f"gvc:code:{record['code']}", cid, nx=True, ex=self.ttl):
            return False
        await self.r.set(f"gvc:{cid}", json.dumps(record), ex=self.ttl)
        return True

    async def get(self, cid: str) -> dict | None:
        raw = await self.r.get(f"gvc:{cid}")
        return json.loads(raw) if raw else None

    async def by_code(self, code: str) -> str | None:
        raw = await self.r.get(f"gvc:code:{code}")
        return raw.decode() if isinstance(raw, bytes) else raw

    async def update(self, cid: str, **fields) -> dict | None:
        # Only the teacher writes a class's record, one request after the other: no two writers race.
        record = await self.get(cid)
        if record is None:
            return None
        record.update(fields, seq=record["seq"] + 1)
        pipe = self.r.pipeline()
        pipe.set(f"gvc:{cid}", json.dumps(record), ex=self.ttl)
        pipe.expire(f"gvc:code:{record['code']}", self.ttl)
        await pipe.execute()
        return record

    async def end(self, cid: str) -> None:
        record = await self.get(cid)
        frames = await self.r.smembers(f"gvc:{cid}:frames")
        keys = [f"gvc:{cid}", f"gvc:{cid}:frames"] + [f"gvc:{cid}:g:{int(f)}" for f in frames]
        if record is not None:
            keys.append(f"gvc:code:{record['code']}")
        await self.r.delete(*keys)

    async def guess(self, cid: str, frame: int, student: str, numbers: list) -> None:
        pipe = self.r.pipeline()
        pipe.hset(f"gvc:{cid}:g:{frame}", student, json.dumps(numbers))
        pipe.expire(f"gvc:{cid}:g:{frame}", self.ttl)
        pipe.sadd(f"gvc:{cid}:frames", frame)
        pipe.expire(f"gvc:{cid}:frames", self.ttl)
        await pipe.execute()

    async def guesses(self, cid: str, frame: int) -> list[list]:
        return [json.loads(v) for v in (await self.r.hgetall(f"gvc:{cid}:g:{frame}")).values()]

    async def count(self, cid: str, frame: int) -> int:
        return int(await self.r.hlen(f"gvc:{cid}:g:{frame}"))

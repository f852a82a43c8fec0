"""How a teacher's update reaches every follower's stream: each server process keeps one mailbox per
open stream, grouped by class, and hands a published message to each of them. A mailbox holds only
the latest message (each is the class's whole state, so a follower that was slow misses nothing it
needs). Without Redis a message is handed over in this process; with it (``RedisHub``) it is
published on the class's channel and every replica's one subscriber hands it to its own followers.
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("gradviz")
CHANNEL = "gvc:ev:"


class Mailbox:
    """The latest (seq, text) for one stream, and a wake-up when a new one arrives."""

    def __init__(self):
        self.latest: tuple[int, str] | None = None
        self._ready = asyncio.Event()

    def put(self, seq: int, text: str) -> None:
        if self.latest is None or seq > self.latest[0]:
            self.latest = (seq, text)
            self._ready.set()

    async def next(self, timeout_s: float) -> tuple[int, str] | None:
        """The newest message not yet taken, or None after ``timeout_s`` without one."""
        try:
            async with asyncio.timeout(timeout_s):  # no task per wait, unlike wait_for (300 followers)
                await self._ready.wait()
        except TimeoutError:
            return None
        self._ready.clear()
        return self.latest


class LocalHub:
    """Followers of this process, by class; publishing hands the message to them directly."""

    def __init__(self):
        self.boxes: dict[str, set[Mailbox]] = {}

    def join(self, cid: str) -> Mailbox:
        box = Mailbox()
        self.boxes.setdefault(cid, set()).add(box)
        return box

    def leave(self, cid: str, box: Mailbox) -> None:
        boxes = self.boxes.get(cid)
        if boxes is not None:
            boxes.discard(box)
            if not boxes:
                del self.boxes[cid]

    def followers(self) -> int:
        return sum(len(b) for b in self.boxes.values())

    def deliver(self, cid: str, seq: int, text: str) -> None:
        for box in self.boxes.get(cid, ()):
            box.put(seq, text)

    async def publish(self, cid: str, seq: int, text: str) -> None:
        self.deliver(cid, seq, text)


class RedisHub(LocalHub):
    """Followers of this process; messages go through Redis pub/sub, so those of other replicas
    get them too. ``resync(cid)`` gives a class's current (seq, text) after the subscription was
    lost and made again (what was published meanwhile is not replayed by Redis)."""

    def __init__(self, client, resync):
        super().__init__()
        self.r = client
        self.resync = resync
        self._task: asyncio.Task | None = None

    def join(self, cid: str) -> Mailbox:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._listen())
        return super().join(cid)

    async def publish(self, cid: str, seq: int, text: str) -> None:
        await self.r.publish(CHANNEL + cid, f"{seq}\n{text}")

    async def _listen(self) -> None:
        lost = False
        while True:
            try:
                pubsub = self.r.pubsub()
                await pubsub.psubscribe(CHANNEL + "*")
                if lost:
                    await self._catch_up()
                async for msg in pubsub.listen():
                    if msg.get("type") != "pmessage":
                        continue
                    self._dispatch(msg["channel"], msg["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis away: followers wait, we subscribe again
                log.warning("class hub: Redis subscription lost (%s); again in 1 s", exc)
                lost = True
                await asyncio.sleep(1.0)

    def _dispatch(self, channel, data) -> None:
        channel = channel.decode() if isinstance(channel, bytes) else channel
        data = data.decode() if isinstance(data, bytes) else data
        seq, _, text = data.partition("\n")
        self.deliver(channel[len(CHANNEL):], int(seq), text)

    async def _catch_up(self) -> None:
        for cid in list(self.boxes):
            now = await self.resync(cid)
            if now is not None:
                self.deliver(cid, *now)

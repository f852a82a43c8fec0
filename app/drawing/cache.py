"""The layout cache: structure key → SVG template, so each graph structure is laid out once.
The same interface keeps other shareable answers for a while (``put`` with ``ttl_s``): a structure
``dot`` could not lay out in time, a part of a run the page opened.

In one process by default (``LayoutCache``, least recently used out first, bounded in entries and
characters). With ``GRADVIZ_CACHE_URL=redis://host:port/db`` the templates are shared through
Redis by every server replica (``RedisLayoutCache``): the replicas stay stateless and a structure
laid out by one is a hit for all. Redis being slow or down only costs a layout, never a request.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict

log = logging.getLogger("gradviz")


class LayoutCache:
    """Structure key → SVG template (placeholders for ids), least recently used out first."""

    def __init__(self, size: int, max_chars: int = 64 * 2**20):
        self.size = size
        self.max_chars = max_chars  # drawings of big graphs are large: bound the memory too
        self.chars = 0
        self._items: OrderedDict[str, str] = OrderedDict()
        self._expires: dict[str, float] = {}  # key -> time.monotonic() after which it is gone
        self._lock = threading.Lock()
        self.renders = 0  # dot runs (cache misses)
        self.hits = 0

    def get(self, key: str) -> str | None:
        with self._lock:
            svg = self._items.get(key)
            if svg is not None and key in self._expires and time.monotonic() > self._expires[key]:
                self.chars -= len(self._items.pop(key))
                del self._expires[key]
                svg = None
            if svg is not None:
                self._items.move_to_end(key)
                self.hits += 1
            return svg

    def put(self, key: str, svg: str, ttl_s: float | None = None) -> None:
        """Keep ``svg`` under ``key`` (for ``ttl_s`` seconds, or until it is the least recently
        used one over the bounds)."""
        with self._lock:
            if ttl_s is None:
                self._expires.pop(key, None)
            else:
                self._expires[key] = time.monotonic() + ttl_s
            old = self._items.pop(key, None)
            self.chars -= len(old) if old is not None else 0
            self._items[key] = svg
            self.chars += len(svg)
            while len(self._items) > 1 and (len(self._items) > self.size or self.chars > self.max_chars):
                gone, dropped = self._items.popitem(last=False)
                self._expires.pop(gone, None)
                self.chars -= len(dropped)

    def stats(self) -> dict:
        with self._lock:
            return {"hits": self.hits, "renders": self.renders, "entries": len(self._items)}

    def count_render(self) -> None:
        with self._lock:
            self.renders += 1

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._expires.clear()
            self.renders = self.hits = self.chars = 0

    def __len__(self) -> int:
        return len(self._items)


class RedisLayoutCache:
    """The same interface over Redis (keys ``gradviz:layout:<key>``, expiring after ``ttl_s``)."""

    PREFIX = "gradviz:layout:"

    def __init__(self, url: str, ttl_s: int = 7 * 86400, timeout_s: float = 0.25):
        import redis

        self.url = url
        self.ttl_s = ttl_s
        self._redis = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        self._errors = (redis.RedisError, OSError)
        self._lock = threading.Lock()
        self.renders = 0
        self.hits = 0

    def get(self, key: str) -> str | None:
        try:
            value = self._redis.get(self.PREFIX + key)
        except self._errors as exc:
            log.warning("layout cache unavailable (%s): drawing without it", exc)
            return None
        if value is None:
            return None
        with self._lock:
            self.hits += 1
        return value.decode("utf-8")

    def put(self, key: str, svg: str, ttl_s: float | None = None) -> None:
        try:
            self._redis.set(self.PREFIX + key, svg.encode("utf-8"), ex=int(ttl_s or self.ttl_s))
        except self._errors as exc:
            log.warning("layout cache unavailable (%s): not stored", exc)

    def stats(self) -> dict:
        with self._lock:
            return {"hits": self.hits, "renders": self.renders, "entries": -1}

    def count_render(self) -> None:
        with self._lock:
            self.renders += 1

    def clear(self) -> None:
        try:
            keys = list(self._redis.scan_iter(self.PREFIX + "*"))
            if keys:
                self._redis.delete(*keys)
        except self._errors:
            pass
        with self._lock:
            self.renders = self.hits = 0

    def __len__(self) -> int:
        try:
            return sum(1 for _ in self._redis.scan_iter(self.PREFIX + "*"))
        except self._errors:
            return 0


def cache_from_env(size: int):
    """The cache this process uses: Redis when ``GRADVIZ_CACHE_URL`` is set, else in memory."""
    url = os.environ.get("GRADVIZ_CACHE_URL", "").strip()
    if url:
        return RedisLayoutCache(url)
    return LayoutCache(size)

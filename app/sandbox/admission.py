"""Who runs next: fair admission of requests to the worker places.

Each client (its session cookie, else its address) has
- a share: at most ``per_client`` of its requests run at once, at most ``per_client_queue`` wait;
- an account of the worker time it used recently (decaying with ``half_life_s``); a client whose
  account is over ``heavy_after_s`` is *heavy*.

There are ``general`` places anyone may use and ``reserved`` places only for clients that are not
heavy, so long programs can never hold every worker. When a place frees up, the waiting request
whose client used the least worker time recently goes first (arrival order breaks ties). A request
that cannot get a place within its wait, or that finds the queue full, is refused with ``PoolBusy``
and an estimate of when to retry.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

MAX_CLIENTS = 10_000  # accounts kept (least recently seen dropped first)


class PoolBusy(Exception):
    """Every place is taken and stayed taken while the call waited: the server is overloaded."""

    def __init__(self, retry_after_s: int):
        super().__init__(f"the server is busy; try again in {retry_after_s} s")
        self.retry_after_s = retry_after_s


@dataclass
class AdmissionSettings:
    general: int = 2
    reserved: int = 1
    per_client: int = 2
    per_client_queue: int = 4
    queue_limit: int = 128
    heavy_after_s: float = 1.0
    half_life_s: float = 20.0


@dataclass
class Ticket:
    """A granted place: its lane ("general" or "reserved") and when it was granted."""

    client: str
    lane: str
    granted: float = 0.0


@dataclass
class _Account:
    used: float = 0.0  # decayed worker seconds
    at: float = field(default_factory=time.monotonic)
    running: int = 0
    waiting: int = 0

    def value(self, now: float, half_life: float) -> float:
        return self.used * 0.5 ** ((now - self.at) / half_life)

    def add(self, seconds: float, now: float, half_life: float) -> None:
        self.used = self.value(now, half_life) + seconds
        self.at = now


@dataclass
class _Waiter:
    client: str
    seq: int
    event: threading.Event = field(default_factory=threading.Event)
    ticket: Ticket | None = None


class Admission:
    """Thread-safe admission control (one per pool)."""

    def __init__(self, settings: AdmissionSettings):
        self.s = settings
        self._lock = threading.Lock()
        self._accounts: OrderedDict[str, _Account] = OrderedDict()
        self._waiting: list[_Waiter] = []
        self._running = {"general": 0, "reserved": 0}
        self._seq = itertools.count()
        self._service = 0.05  # recent mean seconds per request, for Retry-After

    # ---- the two calls ------------------------------------------------------------------------------
    def acquire(self, client: str, wait_s: float) -> Ticket:
        """A place for one request of ``client`` within ``wait_s`` seconds, else ``PoolBusy``."""
        with self._lock:
            acct = self._account(client)
            if len(self._waiting) >= self.s.queue_limit or acct.waiting >= self.s.per_client_queue:
                raise PoolBusy(self._retry_after())
            waiter = _Waiter(client, next(self._seq))
            self._waiting.append(waiter)
            acct.waiting += 1
            self._grant()
        if waiter.event.wait(wait_s):
            return waiter.ticket
        with self._lock:
            if waiter.ticket is not None:  # granted just as the wait ran out
                return waiter.ticket
            self._waiting.remove(waiter)
            acct.waiting -= 1
            raise PoolBusy(self._retry_after())

    def acquire_idle(self, client: str) -> Ticket | None:
        """A general place for work nobody waits for (``client`` is charged for it), only while
        every place is free and nobody waits; else None at once."""
        with self._lock:
            if self._waiting or any(self._running.values()):
                return None
            acct = self._account(client)
            self._running["general"] += 1
            acct.running += 1
            return Ticket(client, "general", time.monotonic())

    def release(self, ticket: Ticket) -> None:
        """The request is done: free its place and charge its client for the worker time."""
        now = time.monotonic()
        used = now - ticket.granted
        with self._lock:
            self._running[ticket.lane] -= 1
            acct = self._account(ticket.client)
            acct.running -= 1
            acct.add(used, now, self.s.half_life_s)
            self._service = 0.9 * self._service + 0.1 * used
            self._grant()

    # ---- state ---------------------------------------------------------------------------------------
    def snapshot(self) -> dict:
        """Places in use and requests waiting, for /api/health and /metrics."""
        with self._lock:
            now = time.monotonic()
            heavy = sum(1 for a in self._accounts.values() if self._heavy(a, now))
            return {"places": self.s.general + self.s.reserved, "reserved": self.s.reserved,
                    "running": sum(self._running.values()), "queued": len(self._waiting),
                    "heavy_clients": heavy}

    def is_heavy(self, client: str) -> bool:
        with self._lock:
            acct = self._accounts.get(client)
            return acct is not None and self._heavy(acct, time.monotonic())

    def _heavy(self, acct: _Account, now: float) -> bool:
        return acct.value(now, self.s.half_life_s) > self.s.heavy_after_s

    # ---- inside the lock -------------------------------------------------------------------------------
    def _account(self, client: str) -> _Account:
        acct = self._accounts.get(client)
        if acct is None:
            acct = self._accounts[client] = _Account()
            if len(self._accounts) > MAX_CLIENTS:
                for key, old in list(self._accounts.items()):
                    if old.running == 0 and old.waiting == 0:
                        del self._accounts[key]
                        break
        else:
            self._accounts.move_to_end(client)
        return acct

    def _grant(self) -> None:
        """Give free places to waiting requests, lightest client first."""
        now = time.monotonic()
        order = sorted(self._waiting, key=lambda w: (self._accounts[w.client].value(now, self.s.half_life_s),
                                                     w.seq))
        for w in order:
            free_general = self._running["general"] < self.s.general
            free_reserved = self._running["reserved"] < self.s.reserved
            if not (free_general or free_reserved):
                return
            acct = self._accounts[w.client]
            if acct.running >= self.s.per_client:
                continue
            heavy = self._heavy(acct, now)
            lane = "general" if free_general else ("reserved" if not heavy else None)
            if lane is None:
                continue
            self._running[lane] += 1
            acct.running += 1
            acct.waiting -= 1
            self._waiting.remove(w)
            w.ticket = Ticket(w.client, lane, now)
            w.event.set()

    def _retry_after(self) -> int:
        places = max(1, self.s.general + self.s.reserved)
        return max(1, min(30, round((len(self._waiting) + 1) * self._service / places + 0.5)))

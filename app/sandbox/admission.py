"""Who runs next: fair admission of requests to the worker places.

A client id is ``identity`` or ``identity@group`` (app/server/clients.py: the session cookie and the
address it came from). Each identity with a record has an *account* of the worker time it used
recently (decaying with ``half_life_s``, time still running counted too); over ``heavy_after_s``
it is *heavy*. An identity has a record once one of its requests finished.

Identities cost a client nothing to make, so a never-seen one is no proof of light use: until it
has a record, its requests are *newcomers*, counted together on one account per group (address),
which has one client's share. A whole class behind one school address shares that account for its
first request only; every student is on their own account from then on.

- A share: at most ``per_client`` requests of an account run at once, at most ``per_client_queue``
  wait (``newcomer_queue`` for a group's newcomers).
- Places: ``general`` ones anyone may use, and ``reserved`` ones only for identities with a record
  of light use, so neither long programs nor freshly made identities can hold every worker.
- Order: when a place frees up, identities with a record of light use go first, then newcomers of
  a light group, then the rest (heavy); within each, the account that used least recently, then
  arrival order.

A request that cannot get a place within its wait, or that finds its queue full, is refused with
``PoolBusy`` and an estimate of when to retry.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from ..words.messages import own_message

MAX_CLIENTS = 10_000  # accounts kept (least recently seen dropped first)
NEWCOMERS = "+"  # prefix of a group's newcomer account (identities never start with it)
KNOWN_LIGHT, NEWCOMER, HEAVY = 0, 1, 2  # ranks: lower goes first
CURRENT = ContextVar("gradviz_client", default="-")  # the client of the request this code serves


def current_client() -> str:
    """The client id of the request being served in this context ("-" outside a request)."""
    return CURRENT.get()


class PoolBusy(Exception):
    """Every place is taken and stayed taken while the call waited: the server is overloaded."""

    def __init__(self, retry_after_s: int):
        super().__init__(own_message("server_busy", retry_after_s))
        self.retry_after_s = retry_after_s


@dataclass
class AdmissionSettings:
    general: int = 2
    reserved: int = 1
    per_client: int = 2
    per_client_queue: int = 4
    newcomer_queue: int = 8  # a group's requests from identities without a record, waiting at once
    # below the server's threads for sync routes (40), so waiting requests never hold all of them
    queue_limit: int = 24
    heavy_after_s: float = 1.0
    half_life_s: float = 20.0


@dataclass
class Ticket:
    """A granted place: its lane ("general" or "reserved"), when it was granted, and the account
    it is charged to (the identity's own, or its group's newcomer account)."""

    client: str
    lane: str
    granted: float = 0.0
    charge: str = ""


@dataclass
class _Account:
    used: float = 0.0  # decayed worker seconds
    at: float = 0.0
    running: int = 0
    waiting: int = 0
    granted_sum: float = 0.0  # sum of the grant times of the requests running now
    done: int = 0

    def value(self, now: float, half_life: float) -> float:
        """Decayed seconds used, with the time of the requests still running."""
        return self.used * 0.5 ** ((now - self.at) / half_life) + self.running * now - self.granted_sum

    def add(self, seconds: float, now: float, half_life: float) -> None:
        self.used = self.used * 0.5 ** ((now - self.at) / half_life) + seconds
        self.at = now


@dataclass
class _Waiter:
    client: str
    charge: str
    seq: int
    event: threading.Event = field(default_factory=threading.Event)
    ticket: Ticket | None = None


def split_client(client: str) -> tuple[str, str]:
    """``(identity, group)`` of a client id ``identity@group`` (a bare id is its own group)."""
    identity, sep, group = client.partition("@")
    return identity, (group if sep else identity)


class Admission:
    """Thread-safe admission control (one per pool, one for the server's drawings)."""

    def __init__(self, settings: AdmissionSettings, clock: Callable[[], float] = time.monotonic):
        self.s = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._accounts: OrderedDict[str, _Account] = OrderedDict()
        self._waiting: list[_Waiter] = []
        self._running = {"general": 0, "reserved": 0}
        self._seq = itertools.count()
        self._service = 0.05  # recent mean seconds per request, for Retry-After

    # ---- the calls ----------------------------------------------------------------------------------
    def acquire(self, client: str, wait_s: float) -> Ticket:
        """A place for one request of ``client`` within ``wait_s`` seconds, else ``PoolBusy``."""
        with self._lock:
            charge, newcomer = self._charge_of(client)
            acct = self._account(charge)
            limit = self.s.newcomer_queue if newcomer else self.s.per_client_queue
            if len(self._waiting) >= self.s.queue_limit or acct.waiting >= limit:
                raise PoolBusy(self._retry_after())
            waiter = _Waiter(client, charge, next(self._seq))
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
            charge, _ = self._charge_of(client)
            return self._take(client, charge, "general", self._clock())

    def release(self, ticket: Ticket) -> None:
        """The request is done: free its place and charge the worker time to its account, and to
        its identity's own (which has a record from now on)."""
        now = self._clock()
        used = now - ticket.granted
        with self._lock:
            self._running[ticket.lane] -= 1
            acct = self._account(ticket.charge)
            acct.running -= 1
            acct.granted_sum -= ticket.granted
            acct.add(used, now, self.s.half_life_s)
            acct.done += 1
            identity, _ = split_client(ticket.client)
            if identity != ticket.charge:
                own = self._account(identity)
                own.add(used, now, self.s.half_life_s)
                own.done += 1
            self._service = 0.9 * self._service + 0.1 * used
            self._grant()

    # ---- state ---------------------------------------------------------------------------------------
    def snapshot(self) -> dict:
        """Places in use and requests waiting, for /api/health and /metrics."""
        with self._lock:
            now = self._clock()
            heavy = sum(1 for a in self._accounts.values() if self._heavy(a, now))
            return {"places": self.s.general + self.s.reserved, "reserved": self.s.reserved,
                    "running": sum(self._running.values()), "queued": len(self._waiting),
                    "heavy_clients": heavy}

    def waiting(self) -> int:
        """Requests waiting for a place now."""
        with self._lock:
            return len(self._waiting)

    def is_heavy(self, client: str) -> bool:
        """Whether ``client``'s next request counts as heavy (its own account heavy, or, while it
        has no record, its group's newcomers)."""
        with self._lock:
            charge, _ = self._charge_of(client)
            acct = self._accounts.get(charge)
            return acct is not None and self._heavy(acct, self._clock())

    def rank(self, client: str) -> int:
        """``KNOWN_LIGHT``, ``NEWCOMER`` or ``HEAVY``: where ``client``'s next request would queue."""
        with self._lock:
            charge, newcomer = self._charge_of(client)
            return self._rank(charge, newcomer, self._clock())

    def _heavy(self, acct: _Account, now: float) -> bool:
        return acct.value(now, self.s.half_life_s) > self.s.heavy_after_s

    # ---- inside the lock -------------------------------------------------------------------------------
    def _charge_of(self, client: str) -> tuple[str, bool]:
        """The account a request of ``client`` is charged to, and whether it is a newcomer's."""
        identity, group = split_client(client)
        own = self._accounts.get(identity)
        if own is not None and own.done > 0:
            return identity, False
        return NEWCOMERS + group, True

    def _rank(self, charge: str, newcomer: bool, now: float) -> int:
        acct = self._accounts.get(charge)
        if acct is not None and self._heavy(acct, now):
            return HEAVY
        return NEWCOMER if newcomer else KNOWN_LIGHT

    def _account(self, key: str) -> _Account:
        acct = self._accounts.get(key)
        if acct is None:
            acct = self._accounts[key] = _Account(at=self._clock())
            if len(self._accounts) > MAX_CLIENTS:
                self._drop_oldest_idle()
        else:
            self._accounts.move_to_end(key)
        return acct

    def _drop_oldest_idle(self) -> None:
        idle = next((k for k, a in self._accounts.items() if a.running == 0 and a.waiting == 0), None)
        if idle is not None:
            del self._accounts[idle]

    def _take(self, client: str, charge: str, lane: str, now: float) -> Ticket:
        acct = self._account(charge)
        self._running[lane] += 1
        acct.running += 1
        acct.granted_sum += now
        return Ticket(client, lane, now, charge)

    def _grant(self) -> None:
        """Give free places to waiting requests: identities with a record of light use first, then
        newcomers, then heavy clients; the least used account first within each."""
        if not self._waiting:
            return
        now = self._clock()
        half = self.s.half_life_s

        def order(w: _Waiter) -> tuple:
            acct = self._accounts[w.charge]
            return (self._rank(w.charge, w.charge.startswith(NEWCOMERS), now), acct.value(now, half), w.seq)

        for w in sorted(self._waiting, key=order):
            free_general = self._running["general"] < self.s.general
            free_reserved = self._running["reserved"] < self.s.reserved
            if not (free_general or free_reserved):
                return
            acct = self._accounts[w.charge]
            if acct.running >= self.s.per_client:
                continue
            light = self._rank(w.charge, w.charge.startswith(NEWCOMERS), now) == KNOWN_LIGHT
            lane = "general" if free_general else ("reserved" if light else None)
            if lane is None:
                continue
            acct.waiting -= 1
            self._waiting.remove(w)
            w.ticket = self._take(w.client, w.charge, lane, now)
            w.event.set()

    def _retry_after(self) -> int:
        places = max(1, self.s.general + self.s.reserved)
        return max(1, min(30, round((len(self._waiting) + 1) * self._service / places + 0.5)))

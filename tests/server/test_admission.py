"""Fair admission to the worker places: a share per client, places only clients with a record of
light use may take, the lightest client first, identities without a record counted together per
address (however many a client makes), and overload refused at once with a time to retry."""

from __future__ import annotations

import threading
import time

import pytest

from app.sandbox.admission import HEAVY, KNOWN_LIGHT, NEWCOMER, Admission, AdmissionSettings, PoolBusy


def hold(adm: Admission, client: str, seconds: float) -> None:
    """Charge ``client`` for ``seconds`` of worker time (as a finished request would)."""
    t = adm.acquire(client, 1.0)
    t.granted -= seconds
    adm.release(t)


def waiting_acquire(adm: Admission, client: str, out: list, wait: float = 5.0) -> threading.Thread:
    def go() -> None:
        try:
            out.append((client, adm.acquire(client, wait)))
        except PoolBusy as e:
            out.append((client, e))

    t = threading.Thread(target=go)
    t.start()
    time.sleep(0.05)
    return t


def test_a_client_runs_at_most_its_share_at_once():
    adm = Admission(AdmissionSettings(general=4, reserved=0, per_client=2))
    a1, a2 = adm.acquire("a", 1), adm.acquire("a", 1)
    with pytest.raises(PoolBusy):
        adm.acquire("a", 0.1)  # places are free, but not for a third request of "a"
    b = adm.acquire("b", 0.1)
    for t in (a1, a2, b):
        adm.release(t)


def test_heavy_clients_cannot_take_the_reserved_places():
    adm = Admission(AdmissionSettings(general=1, reserved=1, per_client=2, heavy_after_s=1.0))
    hold(adm, "h1", 5.0)
    hold(adm, "h2", 5.0)
    hold(adm, "student", 0.01)  # a record of light use
    first = adm.acquire("h1", 1)
    assert first.lane == "general"
    with pytest.raises(PoolBusy):
        adm.acquire("h2", 0.1)  # only the reserved place is free: not for a heavy client
    light = adm.acquire("student", 0.1)
    assert light.lane == "reserved"
    adm.release(first)
    adm.release(light)


def test_the_lightest_waiting_client_goes_first():
    adm = Admission(AdmissionSettings(general=1, reserved=0, per_client=1))
    hold(adm, "heavy", 3.0)
    busy = adm.acquire("other", 1)
    got: list = []
    t1 = waiting_acquire(adm, "heavy", got)  # arrived first
    t2 = waiting_acquire(adm, "light", got)
    adm.release(busy)
    t2.join(5)
    assert got[0][0] == "light"
    adm.release(got[0][1])
    t1.join(5)
    adm.release(got[1][1])


def test_a_full_queue_is_refused_at_once_with_a_time_to_retry():
    adm = Admission(AdmissionSettings(general=1, reserved=0, per_client=1, queue_limit=2, per_client_queue=1))
    busy = adm.acquire("x", 1)
    got: list = []
    threads = [waiting_acquire(adm, c, got) for c in ("y", "z")]
    t0 = time.monotonic()
    with pytest.raises(PoolBusy) as info:
        adm.acquire("w", 5.0)
    assert time.monotonic() - t0 < 1.0  # refused without waiting out its 5 s
    assert 1 <= info.value.retry_after_s <= 30
    adm.release(busy)
    for t in threads:  # each waiting request runs in turn
        t.join(5)
        adm.release(got[-1][1])
    assert [c for c, _ in got] == ["y", "z"]
    assert adm.snapshot()["running"] == 0 and adm.snapshot()["queued"] == 0


def test_waiting_past_the_wait_is_busy_and_leaves_the_queue():
    adm = Admission(AdmissionSettings(general=1, reserved=0))
    busy = adm.acquire("x", 1)
    with pytest.raises(PoolBusy):
        adm.acquire("y", 0.1)
    assert adm.snapshot()["queued"] == 0
    adm.release(busy)
    adm.release(adm.acquire("y", 0.1))


def test_work_done_ahead_takes_a_place_only_while_every_place_is_free():
    adm = Admission(AdmissionSettings(general=2, reserved=1, per_client=2))
    busy = adm.acquire("b", 1)
    assert adm.acquire_idle("a") is None  # someone's request runs: nothing is done ahead
    adm.release(busy)
    ahead = adm.acquire_idle("a")
    assert ahead is not None and adm.snapshot()["running"] == 1
    assert adm.acquire_idle("a") is None  # one piece of work ahead at a time
    ahead.granted -= 3.0
    adm.release(ahead)
    assert adm.snapshot()["running"] == 0
    assert adm.is_heavy("a") == (3.0 > adm.s.heavy_after_s)  # charged like its own requests


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def charged(adm: Admission, client: str, seconds: float, clock: Clock) -> None:
    """One finished request of ``client`` that ran ``seconds`` on the fake clock."""
    t = adm.acquire(client, 1.0)
    clock.now += seconds
    adm.release(t)


def test_a_minted_identity_does_not_take_the_reserved_place_from_a_known_light_client():
    clock = Clock()
    adm = Admission(AdmissionSettings(general=1, reserved=1, per_client=2), clock=clock)
    charged(adm, "s:student@school", 0.05, clock)
    hog = adm.acquire("s:minted1@attacker", 1)  # the general place
    assert hog.lane == "general" and adm.rank("s:minted2@attacker") == NEWCOMER
    with pytest.raises(PoolBusy):
        adm.acquire("s:minted2@attacker", 0.1)  # a new identity is no record of light use
    with pytest.raises(PoolBusy):
        adm.acquire("s:minted3@elsewhere", 0.1)  # nor from another address
    student = adm.acquire("s:student@school", 0.1)
    assert student.lane == "reserved"
    for t in (hog, student):
        adm.release(t)


def test_identities_without_a_record_share_one_account_per_address():
    clock = Clock()
    adm = Admission(AdmissionSettings(general=4, reserved=0, per_client=2, newcomer_queue=1), clock=clock)
    a, b = adm.acquire("s:n1@10.0.0.9", 1), adm.acquire("s:n2@10.0.0.9", 1)
    got: list = []
    waiter = waiting_acquire(adm, "s:n3@10.0.0.9", got)  # places are free, not the address's share
    with pytest.raises(PoolBusy):
        adm.acquire("s:n4@10.0.0.9", 5.0)  # and its newcomers' queue is full: refused at once
    other = adm.acquire("s:n5@10.0.0.7", 0.1)  # another address has a share of its own
    assert not got
    adm.release(a)
    waiter.join(5)
    assert got and got[0][0] == "s:n3@10.0.0.9"
    for t in (b, other, got[0][1]):
        adm.release(t)


def test_a_class_behind_one_address_is_on_its_own_accounts_after_one_request():
    clock = Clock()
    adm = Admission(AdmissionSettings(general=2, reserved=1, per_client=2), clock=clock)
    students = [f"s:student{i}@school" for i in range(30)]
    for s in students:  # each one's first request, on the address's newcomer account
        charged(adm, s, 0.05, clock)
    assert all(adm.rank(s) == KNOWN_LIGHT for s in students)
    tickets = [adm.acquire(s, 0.1) for s in students[:3]]  # the reserved place included
    assert sorted(t.lane for t in tickets) == ["general", "general", "reserved"]
    for t in tickets:
        adm.release(t)


def test_known_light_then_newcomers_then_heavy():
    clock = Clock()
    adm = Admission(AdmissionSettings(general=1, reserved=0, per_client=1), clock=clock)
    charged(adm, "s:heavy@h", 5.0, clock)
    charged(adm, "s:light@l", 0.05, clock)
    busy = adm.acquire("s:busy@b", 1)
    got: list = []
    threads = [waiting_acquire(adm, c, got) for c in ("s:heavy@h", "s:fresh@f", "s:light@l")]
    for k in range(len(threads)):  # one place: each release lets the first in line in
        adm.release(busy)
        while len(got) <= k:
            time.sleep(0.01)
        busy = got[-1][1]
    adm.release(busy)
    for t in threads:
        t.join(5)
    assert [c for c, _ in got] == ["s:light@l", "s:fresh@f", "s:heavy@h"]


def test_time_still_running_counts_and_use_decays():
    clock = Clock()
    adm = Admission(AdmissionSettings(general=2, reserved=1, per_client=2, heavy_after_s=1.0,
                                      half_life_s=20.0), clock=clock)
    charged(adm, "s:c@x", 0.1, clock)
    long_run = adm.acquire("s:c@x", 1)
    assert not adm.is_heavy("s:c@x")
    clock.now += 3.0  # its program still runs
    assert adm.is_heavy("s:c@x") and adm.rank("s:c@x") == HEAVY
    adm.release(long_run)
    clock.now += 20.0 * 3  # three half-lives: 3.1 s used counts as about 0.4 s
    assert not adm.is_heavy("s:c@x") and adm.rank("s:c@x") == KNOWN_LIGHT


def test_minting_identities_is_bounded_by_the_address_share():
    clock = Clock()
    adm = Admission(AdmissionSettings(general=2, reserved=1, per_client=2, newcomer_queue=3), clock=clock)
    got: list = []
    running = [adm.acquire(f"s:m{i}@evil", 1) for i in range(2)]
    threads = [waiting_acquire(adm, f"s:m{i}@evil", got, wait=0.3) for i in range(2, 5)]
    refused = 0
    for i in range(5, 40):
        try:
            adm.acquire(f"s:m{i}@evil", 0.0)
        except PoolBusy:
            refused += 1
    assert refused == 35 and adm.snapshot()["running"] == 2  # one general place stays free
    for t in threads:
        t.join(5)
    for t in running:
        adm.release(t)

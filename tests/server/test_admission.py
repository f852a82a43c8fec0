"""Fair admission to the worker places: a share per client, places only light clients may take,
the lightest client first, and overload refused at once with a time to retry."""

from __future__ import annotations

import threading
import time

import pytest

from app.sandbox.admission import Admission, AdmissionSettings, PoolBusy


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

"""The live class's rules without HTTP: ids and codes, who leads and who follows, the windows that
bound joins and guesses, what a class keeps and when it is gone."""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.server import class_rules as rules
from app.server.class_hub import LocalHub
from app.server.class_store import MemoryClasses
from app.server.classes import Classes, Refused

SECRET = b"k" * 32


def run(coro):
    """Run ``coro`` to its end on a loop of its own (in a thread: a browser test's loop may be running)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def test_the_link_carries_at_least_64_random_bits_and_codes_are_typable():
    ids = {rules.new_id() for _ in range(2000)}
    assert len(ids) == 2000 and all(rules.valid_id(i) for i in ids)
    assert rules.ID_BYTES * 8 >= 64
    assert len(rules.CODE_ALPHABET) ** rules.CODE_LEN > 2**29
    code = rules.new_code()
    assert rules.normal_code(code.lower()[:3] + "-" + code[3:]) == code
    assert rules.normal_code("O0I1!!") is None and rules.normal_code("ABC") is None
    assert not rules.valid_id("../../etc") and not rules.valid_id("a" * 40)


def test_only_the_teacher_token_leads_and_student_tokens_belong_to_one_class():
    token, digest = rules.new_teacher_token()
    assert rules.is_teacher(token, digest)
    assert not rules.is_teacher(None, digest) and not rules.is_teacher(token + "x", digest)
    student = rules.student_token("class-a", SECRET)
    assert rules.student_of(student, "class-a", SECRET)
    assert not rules.student_of(student, "class-b", SECRET)
    assert not rules.student_of(student, "class-a", b"other secret")
    assert not rules.student_of(student[:-1] + ("0" if student[-1] != "0" else "1"), "class-a", SECRET)


def test_a_window_bounds_events_per_key_per_minute():
    w = rules.Window(3)
    assert [w.allow("a", now=t) for t in (0, 1, 2, 3)] == [True, True, True, False]
    assert w.allow("b", now=3)  # another key has its own count
    assert w.allow("a", now=60.5)  # the first one left the minute


def test_guesses_are_bounded_finite_numbers():
    assert rules.guess_numbers([[1, 2.5], [3]]) == [[1.0, 2.5], [3.0]]
    assert rules.guess_numbers([[math.inf]]) is None
    assert rules.guess_numbers([[0.0] * (rules.MAX_NUMBERS + 1)]) is None
    assert rules.guess_numbers([[1.0]] * (rules.MAX_QUESTIONS + 1)) is None


def _classes():
    return Classes(MemoryClasses(), LocalHub(), SECRET)


def test_a_class_from_start_to_end():
    async def go():
        c = _classes()
        started = await c.start("s:t@1.2.3.4")
        cid, teacher = started["id"], started["teacher"]
        assert await c.by_code(started["code"].lower(), "1.2.3.4") == cid
        joined = await c.join(cid, "s:u@1.2.3.5")
        # what is kept of a class: nothing of who joined, and of the teacher only a digest of the token
        record = await c.store.get(cid)
        assert set(record) == {"id", "code", "teacher", "seq", "state", "revealed"}
        assert teacher not in record.values() and "1.2.3" not in repr(record)
        box = c.hub.join(cid)
        seq = await c.publish(cid, teacher, state={"frame": 3})
        assert seq == 1 and (await box.next(1.0))[0] == 1
        with pytest.raises(Refused) as e:
            await c.publish(cid, joined["student"], state={"frame": 9})
        assert e.value.status == 403
        await c.guess(cid, joined["student"], 3, [[1.0]])
        await c.guess(cid, joined["student"], 3, [[2.0]])  # the latest counts
        assert await c.answers(cid, teacher, 3, True) == {"count": 1, "guesses": [[[2.0]]]}
        await c.end(cid, teacher)
        assert "end" in (await box.next(1.0))[1]
        for action in (c.find(cid), c.join(cid, "s:v@1.2.3.6"), c.by_code(started["code"], "1.2.3.4")):
            with pytest.raises(Refused) as e:
                await action
            assert e.value.status == 404
        assert c.refused == {"not_teacher": 1, "unknown": 3}
    run(go())


def test_a_student_of_another_class_cannot_guess_and_floods_are_refused():
    async def go():
        c = _classes()
        a, b = await c.start("s:t@1"), await c.start("s:t@1")
        other = (await c.join(b["id"], "s:u@2"))["student"]
        with pytest.raises(Refused) as e:
            await c.guess(a["id"], other, 0, [[1.0]])
        assert e.value.status == 403
        mine = (await c.join(a["id"], "s:u@2"))["student"]
        statuses = []
        for _ in range(rules.GUESSES_PER_MINUTE + 2):
            try:
                await c.guess(a["id"], mine, 0, [[1.0]])
                statuses.append(204)
            except Refused as exc:
                statuses.append(exc.status)
        assert statuses.count(204) == rules.GUESSES_PER_MINUTE and statuses[-1] == 429
    run(go())


def test_joins_are_bounded_per_client_and_unknown_codes_per_address():
    async def go():
        c = _classes()
        cid = (await c.start("s:t@1"))["id"]
        outcomes = []
        for _ in range(rules.JOINS_PER_MINUTE + 1):
            try:
                await c.join(cid, "s:same@9.9.9.9")
                outcomes.append("ok")
            except Refused as exc:
                outcomes.append(exc.reason)
        assert outcomes[-1] == "joins" and outcomes.count("ok") == rules.JOINS_PER_MINUTE
        reasons = []
        for _ in range(rules.CODE_TRIES_PER_MINUTE + 1):
            try:
                await c.by_code("ZZZZZZ", "9.9.9.9")
            except Refused as exc:
                reasons.append(exc.reason)
        assert reasons[-1] == "codes" and reasons.count("unknown") == rules.CODE_TRIES_PER_MINUTE
    run(go())


def test_a_class_left_idle_expires_with_everything_it_kept():
    async def go():
        store = MemoryClasses(idle_s=0.05)
        c = Classes(store, LocalHub(), SECRET)
        started = await c.start("s:t@1")
        student = (await c.join(started["id"], "s:u@2"))["student"]
        await c.guess(started["id"], student, 0, [[1.0]])
        await asyncio.sleep(0.1)
        assert await store.get(started["id"]) is None and await store.by_code(started["code"]) is None
        assert await store.count(started["id"], 0) == 0
    run(go())

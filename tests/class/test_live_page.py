"""A live class on real pages: a teacher and three students (English and Chinese, a laptop and a
phone), each in a browser context of their own. The students follow the teacher's program and
steps, look around and come back, predict and see their marks and the class's share; the teacher
sees the answers come in and the histogram after Reveal; a student who was offline, or whose
connection went quiet without a word, comes back to the current step by itself; the class ends."""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest
from browser.support import PageErrors, blur, open_page, pass_steps, pick_example, step_label, wait_ready

from .netcut import NetCut

pytestmark = pytest.mark.browser
SHOTS = Path("/tmp/gv/shots/klass")
FOLLOW = {"en": "Following the teacher", "zh": "正在跟随老师"}
AWAY = {"en": "Looking around on your own", "zh": "正在自己浏览"}
RIGHT = {"en": "right", "zh": "正确"}
WRONG = {"en": "wrong", "zh": "错误"}
SHARE = {"en": "Class: 1 of 2 right (50%)", "zh": "全班: 2 人中 1 人正确 (50%)"}
ENDED = {"en": "The class has ended.", "zh": "课堂已结束。"}

# The truth of the first question at the current frame, read from the page's own modules.
TRUTH = """() => Promise.all([import('/static/js/predict.js'), import('/static/js/state.js'),
  import('/static/js/format.js')]).then(([p, s, f]) => {
  const q = p.questions(s.state.timeline, s.state.frame)[0];
  return q ? f.flat(q.truth.data).map(Number) : null;
})"""


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _same_step(student, teacher, timeout: float = 15_000) -> None:
    want = teacher.get_by_test_id("step-label").inner_text()
    student.wait_for_function("(w) => document.querySelector('[data-testid=step-label]').textContent === w",
                              arg=want, timeout=timeout)


def _says(page, testid: str, text: str, timeout: float = 15_000) -> None:
    page.wait_for_function("([id, w]) => document.querySelector(`[data-testid=${id}]`).textContent"
                           ".includes(w)", arg=[testid, text], timeout=timeout)


def _press(page, key: str, times: int = 1) -> None:
    blur(page)
    for _ in range(times):
        page.keyboard.press(key)


@pytest.fixture
def room(browser, server):
    errors = PageErrors()
    teacher = open_page(browser, server, 1280, 720, "en", errors=errors)
    pick_example(teacher, "neuron")
    teacher.get_by_test_id("present").click()
    teacher.get_by_test_id("class-start").click()
    link = teacher.get_by_test_id("class-link").input_value()
    path = urlparse(link)
    at = f"{path.path}?{path.query}"
    screens = ((1280, 720, "en"), (1280, 720, "zh"), (390, 844, "zh"))
    students = [(open_page(browser, server, w, h, lang, errors=errors, path=at), lang)
                for w, h, lang in screens]
    yield teacher, students, link
    for page in [teacher] + [s for s, _ in students]:
        page.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console: {real}"


def test_a_teacher_and_three_students(room):
    teacher, students, link = room
    assert "?class=" in link and len(link.rsplit("=", 1)[1]) >= 22
    assert len(teacher.get_by_test_id("class-code").inner_text()) == 6
    assert teacher.locator("[data-testid=class-qr] svg path").count() == 1
    for page, lang in students:
        _says(page, "class-follow", FOLLOW[lang], 30_000)
        _same_step(page, teacher, 30_000)
        assert page.get_by_test_id("class-start").is_hidden()
    # the teacher steps; every student follows, in their own language
    _press(teacher, "ArrowRight", 3)
    for page, lang in students:
        _same_step(page, teacher)
        assert page.evaluate("document.documentElement.lang").startswith("zh" if lang == "zh" else "en")
    # the course view the teacher opens opens on every student's page
    teacher.get_by_test_id("lens-heat").click()
    for page, _ in students:
        page.wait_for_function("() => document.querySelector('[data-testid=lens-panel]').dataset.lens"
                               " === 'heat'", timeout=15_000)
    teacher.get_by_test_id("lens-heat").click()
    # a student looks around, the teacher moves on, the student comes back
    me, lang = students[0]
    _press(me, "ArrowLeft")
    me.get_by_test_id("class-back").wait_for(state="visible")
    assert AWAY[lang] in me.get_by_test_id("class-follow").inner_text()
    _press(teacher, "ArrowRight")
    _same_step(students[1][0], teacher)
    assert me.get_by_test_id("step-label").inner_text() != teacher.get_by_test_id("step-label").inner_text()
    me.get_by_test_id("class-back").click()
    _same_step(me, teacher)
    assert me.get_by_test_id("class-back").is_hidden()
    _predict_together(teacher, students)
    _shots(teacher, students)
    teacher.get_by_test_id("class-end").click()
    for page, lang in [(students[0][0], "zh"), *students[1:]]:  # the first one switched to Chinese
        _says(page, "class-follow", ENDED[lang])


def _predict_together(teacher, students):
    teacher.get_by_test_id("predict").click()
    first, _ = pass_steps(teacher, 1)
    teacher.locator("#chapter").select_option(str(first - 1))
    blur(teacher)
    truth = teacher.evaluate(TRUTH)
    assert truth, "the first step of the backward pass asks a question"
    answers = teacher.get_by_test_id("class-answers")
    answers.wait_for(state="visible")
    _says(teacher, "class-answers", "Answers: 0")
    # the teacher does not guess: their panel asks without a box and counts the class's answers
    _says(teacher, "predict-class-answers", "Answers: 0")
    assert teacher.get_by_test_id("guess-0").count() == 0
    guesses = [", ".join(repr(x) for x in truth), ", ".join(repr(x + 1.5) for x in truth)]
    for (page, _), guess in zip(students, guesses):
        _same_step(page, teacher)
        box = page.get_by_test_id("guess-0")
        box.fill(guess)
        box.press("Enter")
        page.get_by_test_id("class-note").wait_for(state="visible")
    _says(teacher, "class-answers", "Answers: 2")
    _says(teacher, "predict-class-answers", "Answers: 2")
    assert students[2][0].get_by_test_id("verdict-0").count() == 0, "nothing is revealed before the teacher"
    teacher.get_by_test_id("reveal").click()
    hist = teacher.get_by_test_id("class-histogram")
    hist.wait_for(state="visible")
    assert "Right: 1 · Wrong: 1" in hist.inner_text()
    assert hist.locator(".class-bar.right").count() == 1 and hist.locator(".class-bar.wrong").count() == 1
    # and revealed, the answer and how the class did, not a mark of a guess the teacher never made
    _says(teacher, "class-result-0", SHARE["en"])
    panel = teacher.get_by_test_id("predict-panel").inner_text()
    assert "no guess" not in panel and teacher.get_by_test_id("verdict-0").count() == 0, panel
    for (page, lang), mark in zip(students, (RIGHT, WRONG, WRONG)):
        page.get_by_test_id("verdict-0").wait_for(state="visible", timeout=15_000)
        assert mark[lang] in page.get_by_test_id("verdict-0").inner_text()
        page.wait_for_function("(w) => document.querySelector('[data-testid=class-note]').textContent === w",
                               arg=SHARE[lang], timeout=15_000)


def _shots(teacher, students):
    _shot(teacher, "teacher-1280x720-en")
    _shot(students[1][0], "student-1280x720-zh")
    _shot(students[2][0], "student-390x844-zh")
    teacher.get_by_test_id("lang").click()
    _shot(teacher, "teacher-1280x720-zh")
    students[0][0].get_by_test_id("lang").click()
    _shot(students[0][0], "student-1280x720-zh-switched")
    assert "课堂直播" in teacher.get_by_test_id("class-panel").inner_text()
    _says(teacher, "class-result-0", SHARE["zh"])


@pytest.fixture(scope="module")
def lesson(browser, server):
    """A teacher's page with a class going on (the neuron example, classroom mode) and the class's
    link, for the tests of a student who loses the connection: each takes the teacher back to the
    first step and moves on from there."""
    teacher = open_page(browser, server, 1280, 720, "en")
    pick_example(teacher, "neuron")
    teacher.get_by_test_id("present").click()
    teacher.get_by_test_id("class-start").click()
    link = urlparse(teacher.get_by_test_id("class-link").input_value())
    yield teacher, link
    teacher.context.close()


def _from_the_start(teacher) -> None:
    """The teacher at the first step of the neuron example."""
    if teacher.get_by_test_id("examples").input_value() != "neuron":
        pick_example(teacher, "neuron")
    _press(teacher, "Home")


def test_a_student_offline_or_reloading_comes_back_to_the_current_step(lesson, browser, server):
    teacher, link = lesson
    _from_the_start(teacher)
    net = NetCut(urlparse(server).port)  # the student reaches the server through a network we can cut
    student = None
    try:
        student = open_page(browser, f"http://127.0.0.1:{net.port}", 390, 844, "en",
                            path=f"{link.path}?{link.query}")
        _same_step(student, teacher, 30_000)
        net.cut()
        student.wait_for_function("() => document.querySelector('[data-testid=class-follow]').dataset.state"
                                  " === 'class_offline'", timeout=30_000)
        _press(teacher, "ArrowRight", 4)
        pick_example(teacher, "fan-out")  # a new program while the student is away
        _press(teacher, "ArrowRight", 2)
        source = teacher.get_by_test_id("source").input_value()
        assert student.get_by_test_id("source").input_value() != source
        net.restore()
        _same_step(student, teacher, 30_000)
        assert student.get_by_test_id("source").input_value() == source
        assert student.get_by_test_id("class-follow").get_attribute("data-state") == "class_following"
        _press(teacher, "ArrowRight")
        student.reload()
        wait_ready(student)
        _same_step(student, teacher, 30_000)
        assert step_label(student) == step_label(teacher)
    finally:
        net.close()
        if student is not None:
            student.context.close()


def _published(server: str, cid: str, frame: int) -> None:
    """Wait until the class's state on the server is at ``frame`` (the first event of a new stream is
    the class as it is)."""
    seen = None
    for _ in range(100):
        with httpx.stream("GET", f"{server}/api/class/{cid}/events", timeout=10) as resp:
            line = next(x for x in resp.iter_lines() if x.startswith("data: "))
        seen = json.loads(line[6:])["state"]["frame"]
        if seen == frame:
            return
        time.sleep(0.1)
    raise AssertionError(f"the class is at frame {seen}, the teacher at {frame}")


def test_a_student_whose_connection_goes_quiet_connects_again(lesson, browser, server):
    """A stream that carries nothing, not even the server's pings, is a dead connection the browser
    does not notice by itself: the page connects again after a silence and is back at the step."""
    teacher, link = lesson
    _from_the_start(teacher)
    net = NetCut(urlparse(server).port)
    student = None
    try:
        # the student's clock is the test's to move on: no minute of waiting for the silence
        student = open_page(browser, f"http://127.0.0.1:{net.port}", 1280, 720, "zh",
                            path=f"{link.path}?{link.query}", before=lambda p: p.clock.install())
        _same_step(student, teacher, 30_000)
        net.stall()
        _press(teacher, "ArrowRight", 3)
        cid = link.query.split("=", 1)[1]
        frame = teacher.evaluate("async () => (await import('/static/js/state.js')).state.frame")
        _published(server, cid, frame)  # every live stream has it now
        assert step_label(student) != step_label(teacher), "the stalled stream carried nothing"
        student.clock.fast_forward("01:00")
        _same_step(student, teacher, 30_000)
        assert student.get_by_test_id("class-follow").get_attribute("data-state") == "class_following"
    finally:
        net.close()
        if student is not None:
            student.context.close()

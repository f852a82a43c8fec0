"""A live class follows the teacher's run and drawing as well as the step: the program run with the
teacher's inputs, in classroom mode or not; a folded loop's box the teacher opens and the graph
level they choose, drawn alike on a student's page (in Chinese) without a click of its own; a
student who joins late (a phone, in English) finds the box opened; a student who changed the level
on their own is back at the teacher's drawing with "Back to the teacher"."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from browser.support import PageErrors, expect_event, open_page, pick_example, run_source
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = pytest.mark.browser

# A loop of 400 iterations: more than the page draws open at first, so it is one folded box; opened,
# it shows boxes of its iterations, a small drawing on every page of the class (a loop that opens
# onto all its nodes at once makes each page draw hundreds of them, at every open).
LOOP = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(400):
    h = torch.tanh(h * w)
h.backward()
"""

# The first backward step inside a closed part (its node is not drawn: the answer names it by id).
HIDDEN_STEP = """async () => {
  const { state } = await import('/static/js/state.js');
  const frames = state.timeline.frames;
  for (let k = 0; k < frames.length; k++) if (frames[k].kind === 'step' && frames[k].hidden) return k;
  return -1;
}"""

GOTO = "async (k) => { const { emit } = await import('/static/js/state.js'); emit('goto', k); }"

# What the page draws: its graph level (the pressed level button), the parts open in each view, and
# how many opened boxes (units) and closed boxes its drawing holds. Not async: wait_for_function
# would take the promise itself as the truthy answer. (``window.gvState``: see ``_watch``.)
DRAWN = """() => {
  const state = window.gvState;
  if (!state.response) return null;  // a student's page before the class's program is open
  const graph = document.querySelector('[data-testid=graph]');
  const pressed = document.querySelector('[data-testid=fold-toggle] [aria-pressed=true]');
  return {
    level: pressed ? pressed.dataset.mode : null,
    open: state.response.views.map((v) => [...(v.open || [])].sort()),
    units: graph.querySelectorAll('g.unit').length,
    boxes: graph.querySelectorAll('g.node.part.box').length,
  };
}"""

DRAWS_LIKE = f"(want) => JSON.stringify(({DRAWN})()) === JSON.stringify(want)"


def _watch(page) -> None:
    """Give the test's checks the page's own state (state.js) without importing it at each poll."""
    page.evaluate("async () => { window.gvState = (await import('/static/js/state.js')).state; }")


def _drawn(page) -> dict:
    return page.evaluate(DRAWN)


def _draws_like(student, teacher, timeout: float = 30_000) -> dict:
    """Wait until the student's page draws what the teacher's draws; the teacher's drawing."""
    want = _drawn(teacher)
    try:
        student.wait_for_function(DRAWS_LIKE, arg=want, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"the teacher draws {want}, the student {_drawn(student)}") from None
    return want


def test_students_follow_the_opened_boxes_and_the_graph_level(browser, server):
    errors = PageErrors()
    teacher = open_page(browser, server, 1280, 720, "en", errors=errors)
    run_source(teacher, LOOP)  # before classroom mode, which hides Run
    teacher.get_by_test_id("present").click()
    teacher.get_by_test_id("class-start").click()
    link = urlparse(teacher.get_by_test_id("class-link").input_value())
    student = open_page(browser, server, 1280, 720, "zh", errors=errors, path=f"{link.path}?{link.query}")
    try:
        _watch(teacher)
        _watch(student)
        first = _draws_like(student, teacher)
        assert first["boxes"] >= 1 and first["units"] == 0, first

        # the teacher opens the loop's box from the step inside it
        teacher.evaluate(GOTO, teacher.evaluate(HIDDEN_STEP))
        with expect_event(teacher, "relayout"):
            teacher.get_by_test_id("open-part").click()
        opened = _draws_like(student, teacher)
        assert opened["units"] >= 1 and any(opened["open"]), opened
        assert student.get_by_test_id("class-back").is_hidden(), "following, not looking around"
        # a student who joins now, on a phone, finds the box opened and the teacher's step
        late = open_page(browser, server, 390, 844, "en", errors=errors, path=f"{link.path}?{link.query}")
        _watch(late)
        _draws_like(late, teacher)
        late.wait_for_function("(w) => document.querySelector('[data-testid=step-label]').textContent === w",
                               arg=teacher.get_by_test_id("step-label").inner_text(), timeout=30_000)
        late.context.close()

        # the teacher draws every part closed: the student's page draws it so too
        with expect_event(teacher, "relayout"):
            teacher.get_by_test_id("fold-module").click()
        closed = _draws_like(student, teacher)
        assert closed["level"] == "module" and closed["units"] == 0 and closed["boxes"] >= 1, closed

        # and back at the level that reads well, the box opened again
        with expect_event(teacher, "relayout"):
            teacher.get_by_test_id("fold-auto").click()
        teacher.evaluate(GOTO, teacher.evaluate(HIDDEN_STEP))
        with expect_event(teacher, "relayout"):
            teacher.get_by_test_id("open-part").click()
        again = _draws_like(student, teacher)
        assert again["level"] == "auto" and again["units"] >= 1, again
        label = teacher.get_by_test_id("step-label").inner_text()
        assert student.get_by_test_id("step-label").inner_text() == label

        # the student looks at the graph at another level on their own, then goes back to the teacher
        with expect_event(student, "relayout"):
            student.get_by_test_id("fold-module").click()
        student.get_by_test_id("class-back").wait_for(state="visible")
        assert _drawn(student)["units"] == 0
        student.get_by_test_id("class-back").click()
        _draws_like(student, teacher)
        assert student.get_by_test_id("class-back").is_hidden()
    finally:
        student.context.close()
        teacher.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console: {real}"


def _input_is(page, name: str, value: str) -> None:
    page.wait_for_function("([n, v]) => { const el = document.querySelector(`[data-testid=var-${n}]"
                           " input[type=text]`); return !!el && el.value === v; }", arg=[name, value],
                           timeout=30_000)


def _set_input(page, name: str, value: str) -> None:
    box = page.get_by_test_id(f"var-{name}").locator("input[type=text]")
    with expect_event(page, "run-end"):
        box.fill(value)
        box.press("Enter")


def test_students_follow_the_run_of_the_teachers_inputs(browser, server):
    errors = PageErrors()
    teacher = open_page(browser, server, 1280, 720, "en", errors=errors)
    pick_example(teacher, "add-mul")  # (a + b) * c with a = 2, b = -3, c = 10
    _set_input(teacher, "a", "5")
    teacher.get_by_test_id("present").click()
    teacher.get_by_test_id("class-start").click()
    link = urlparse(teacher.get_by_test_id("class-link").input_value())
    student = open_page(browser, server, 390, 844, "zh", errors=errors, path=f"{link.path}?{link.query}")
    try:
        _input_is(student, "a", "5")  # the student's page ran the program with the teacher's inputs
        student.wait_for_function("() => document.documentElement.classList.contains('present')")
        # out of classroom mode the teacher runs it again with another input: the student follows
        teacher.get_by_test_id("present").click()
        student.wait_for_function("() => !document.documentElement.classList.contains('present')")
        _set_input(teacher, "a", "7")
        _input_is(student, "a", "7")
        assert student.get_by_test_id("var-b").locator("input[type=text]").input_value() == "-3"
    finally:
        student.context.close()
        teacher.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console: {real}"

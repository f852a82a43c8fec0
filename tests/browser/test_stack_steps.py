"""Stepping inside a stack of identical layers (a 20-layer nn.Sequential folded into one box): the
step panel says which layer the step is in, not which iteration; and opening the stack (or a long
loop) from there shows the step where it is, not the middle of the tall frame the box became.
Screenshots on a laptop and a phone, in English and Chinese (tests/screenshots/page/)."""

from __future__ import annotations

import re

import pytest

from .support import PAIR_A, SHOTS, config_id, expect_event, run_source
from .test_fold_reading import DEEP, LONG
from .test_folding import AT_REST, GOTO

SCREENS = PAIR_A  # a laptop in English, a phone in Chinese

# A backward step hidden in a closed part, in repetition `i` (from 1) of the loop around it.
HIDDEN_STEP_IN = """async (i) => {
  const { state } = await import('/static/js/state.js');
  const { PartIndex } = await import('/static/js/parts.js');
  const index = new PartIndex(state.response);
  const frames = state.timeline.frames;
  for (let k = 0; k < frames.length; k++) {
    const f = frames[k];
    if (f.kind !== 'step' || !f.hidden) continue;
    const it = index.iteration(f.node);
    if (it && it.i === i) return k;
  }
  return -1;
}"""

# Where the current step is drawn (its node, or the closed box holding it) against the graph's box
# on the screen, in pixels; and the part the view was opened on, as the page holds it now.
CURRENT = """async () => {
  const { state } = await import('/static/js/state.js');
  const { PartIndex } = await import('/static/js/parts.js');
  const f = state.timeline.frames[state.frame];
  const view = state.response.views[f.view];
  const svg = document.querySelector('[data-testid=graph] svg');
  let g = svg.gvElement(`n${f.node}`);
  if (!g) g = svg.gvElement(new PartIndex(state.response).boxOf(f.node, new Set(view.open || [])));
  const host = svg.parentNode.getBoundingClientRect();
  const b = g && g.isConnected ? g.getBoundingClientRect() : null;
  return { id: g && g.id, host: [host.left, host.top, host.right, host.bottom],
           at: b && [b.left, b.top, b.right, b.bottom] };
}"""


@pytest.fixture(params=SCREENS, ids=[config_id(c) for c in SCREENS])
def screen(request, screens):
    yield from screens.use_page(request.param)


def _on_screen(where) -> bool:
    if not where["at"]:
        return False
    left, top, right, bottom = where["at"]
    h_left, h_top, h_right, h_bottom = where["host"]
    return left >= h_left - 1 and right <= h_right + 1 and top >= h_top - 1 and bottom <= h_bottom + 1


def _step_then_open(page, source: str, i: int) -> str:
    """Run `source`, go to a hidden backward step in repetition i of its folded loop, and open the
    box from the step panel; the panel's words about where the step is."""
    run_source(page, source)
    k = page.evaluate(HIDDEN_STEP_IN, i)
    assert k > 0, f"a backward step inside the closed loop, in repetition {i}"
    page.evaluate(GOTO, k)
    where = page.get_by_test_id("folded-where")
    page.get_by_test_id("folded-iteration").wait_for()
    text = where.inner_text()
    with expect_event(page, "relayout"):
        page.get_by_test_id("open-part").click()
    page.wait_for_function(AT_REST, arg=k)  # the player stayed on the step, the view has settled
    return text


def test_a_step_inside_a_stack_says_its_layer_and_opening_the_stack_shows_it(screen):
    page, name, lang = screen
    text = _step_then_open(page, DEEP, 3)
    expected = r"Layer 3 of 20\." if lang == "en" else r"第 3 层，共 20 层。"
    assert re.search(expected, text), text
    assert not re.search(r"Iteration|迭代", text), text  # layers of a model, not a loop of the program
    where = page.evaluate(CURRENT)
    # the stack opens onto its layers: the current step is in layer 3's box, near one end of the
    # tall frame, and the view is on it
    assert where["id"] and _on_screen(where), where
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"stack-opened-at-layer-3-{name}.png"))
    page.get_by_test_id("graph").screenshot(path=str(SHOTS / f"stack-opened-at-layer-3-graph-{name}.png"))


def test_opening_a_long_loop_from_a_step_shows_that_step(screen):
    page, name, lang = screen
    text = _step_then_open(page, LONG, 60)
    expected = r"Iteration 60 of 400\." if lang == "en" else r"第 60 次迭代（共 400 次）。"
    assert re.search(expected, text), text
    where = page.evaluate(CURRENT)
    assert where["id"] and _on_screen(where), where
    page.screenshot(path=str(SHOTS / f"loop-opened-at-iteration-60-{name}.png"))
    page.get_by_test_id("graph").screenshot(path=str(SHOTS / f"loop-opened-at-iteration-60-graph-{name}.png"))

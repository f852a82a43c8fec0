"""What the room reads off the teacher's projected screen: with the class card on top the graph is
short, a view of part of the drawing gets the overview (the minimap), and the overview never
covers the node the step is about."""

from __future__ import annotations

import pytest
from browser.support import blur, open_page, pick_example, step_label

pytestmark = pytest.mark.browser

# Does the overview (when shown) overlap the current node on screen? null: no overview or no node.
COVERS = """() => { const m = document.querySelector('[data-testid=minimap]');
  const g = document.querySelector('[data-testid=graph] svg.gv g.node[data-s=cur]');
  if (!g || m.hidden) return null;
  const a = m.getBoundingClientRect(), b = g.getBoundingClientRect();
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }"""
# The view has stopped gliding, and two frames have passed since (the overview is placed per frame).
SETTLED = """() => { const s = document.querySelector('[data-testid=graph] svg.gv');
  return !!s && !s.style.transition; }"""
TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_overview_never_covers_the_current_node(browser, server, lang):
    page = open_page(browser, server, 1280, 720, lang)
    try:
        pick_example(page, "neuron")
        page.get_by_test_id("present").click()
        page.get_by_test_id("class-start").click()
        page.get_by_test_id("class-link").wait_for()
        blur(page)
        _, total = step_label(page)
        seen = []
        for _ in range(total):
            page.keyboard.press("ArrowRight")
            page.wait_for_function(SETTLED)
            page.evaluate(TWO_FRAMES)
            seen.append((step_label(page)[0], page.evaluate(COVERS)))
        shown = [k for k, covers in seen if covers is not None]
        assert shown, f"the overview never showed on this screen: {seen}"
        assert not [k for k, covers in seen if covers], f"steps where the overview hides the node: {seen}"
    finally:
        page.context.close()

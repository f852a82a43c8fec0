"""What the room reads off the teacher's projected screen: with the class card on top the graph is
short, a view of part of the drawing gets the overview (the minimap), and the overview never
covers the node the step is about; the graph keeps its least height and nothing on the screen
overlaps, and no text is under 16 px (the student's follow bar too), on the teacher's page and a
student's, on a projector and a phone."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from browser.label_sizes import label_sizes, small_text
from browser.support import PAIR_A, blur, open_page, pick_example, settle, step_label

pytestmark = pytest.mark.browser

# Does the overview (when shown) overlap the current node on screen? null: no overview or no node.
COVERS = """() => { const m = document.querySelector('[data-testid=minimap]');
  const g = document.querySelector('[data-testid=graph] svg.gv g.node[data-s=cur]');
  if (!g || m.hidden) return null;
  const a = m.getBoundingClientRect(), b = g.getBoundingClientRect();
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; }"""
TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
# Once the view has stopped gliding and two frames have passed since (the overview is placed per
# frame): the step label's number and whether the overview covers the current node, in one call.
AT_REST = f"""async () => {{
  const gliding = () => {{ const s = document.querySelector('[data-testid=graph] svg.gv');
    return !s || !!s.style.transition; }};
  for (let i = 0; gliding(); i++) {{
    if (i > 1200) throw new Error('the view did not come to rest');
    await new Promise((r) => requestAnimationFrame(r));
  }}
  await ({TWO_FRAMES})();
  const label = document.querySelector('[data-testid=step-label]').textContent;
  return [Number(label.split('/')[0]), ({COVERS})()];
}}"""


def test_the_overview_never_covers_the_current_node(browser, server):
    # in Chinese: the test below reads this screen in English (the overview's place does not depend
    # on the language, the card's height may)
    page = open_page(browser, server, 1280, 720, "zh")
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
            seen.append(tuple(page.evaluate(AT_REST)))
        shown = [k for k, covers in seen if covers is not None]
        assert shown, f"the overview never showed on this screen: {seen}"
        assert not [k for k, covers in seen if covers], f"steps where the overview hides the node: {seen}"
    finally:
        page.context.close()


# The boxes of the graph's column and above it on screen (CSS px; null: not shown), the graph's
# least height as the stylesheet asks it, and whether the page scrolls.
BOXES = """() => {
  const box = (sel) => {
    const e = document.querySelector(sel);
    if (!e || e.hidden || !e.getClientRects().length) return null;
    const r = e.getBoundingClientRect();
    return r.width && r.height ? {left: r.left, top: r.top, right: r.right, bottom: r.bottom} : null;
  };
  const graph = document.querySelector('[data-testid=graph]');
  return {boxes: {graph: box('[data-testid=graph]'), legend: box('.legend'),
                  minimap: box('[data-testid=minimap]'), card: box('.class-card'),
                  follow: box('[data-testid=class-follow]'), steps: box('.p-timeline')},
          least: parseFloat(getComputedStyle(graph).minHeight) || 0};
}"""

# Each sample in the legend (‖2.45‖, [2, 3]) is written on one line.
ONE_LINE = """() => [...document.querySelectorAll('.legend code')].every((c) => {
  const r = document.createRange();
  r.selectNodeContents(c);
  return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size === 1;
})"""


def _meet(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] - 0.5 and b["left"] < a["right"] - 0.5 and a["top"] < b["bottom"] - 0.5 \
        and b["top"] < a["bottom"] - 0.5


def _overlaps(page, phone: bool) -> tuple[list, dict]:
    """Which of the screen's boxes overlap, seen with the graph scrolled to the top of the window
    (where the room reads it); and the boxes. The overview lies over the graph by design, in it."""
    top = page.evaluate("() => document.querySelector('[data-testid=graph]').getBoundingClientRect().top"
                        " + scrollY")
    page.evaluate("(y) => window.scrollTo(0, y)", max(0, top - 8))
    got = page.evaluate(BOXES)
    boxes = {k: v for k, v in got["boxes"].items() if v}
    bad = []
    names = sorted(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if {a, b} == {"graph", "minimap"}:
                continue
            # on a phone the step bar is held at the bottom of the window over the page that scrolls
            # under it (the legend below the graph goes under it): it may not cover the graph
            if phone and {a, b} == {"legend", "steps"}:
                continue
            if _meet(boxes[a], boxes[b]):
                bad.append((a, b))
    if "minimap" in boxes:
        m, g = boxes["minimap"], boxes["graph"]
        if not (m["left"] >= g["left"] - 1 and m["right"] <= g["right"] + 1 and m["top"] >= g["top"] - 1
                and m["bottom"] <= g["bottom"] + 1):
            bad.append(("minimap", "outside the graph"))
    return bad, {**got, "boxes": boxes}


SCREENS = PAIR_A  # the projector in English, a phone in Chinese


@pytest.mark.parametrize("width,height,lang", SCREENS, ids=[f"{w}x{h}-{lang}" for w, h, lang in SCREENS])
def test_with_the_class_on_the_graph_keeps_its_height_and_nothing_overlaps(browser, server, width, height,
                                                                             lang):
    phone = width < 600
    teacher = open_page(browser, server, width, height, lang)
    student = None
    try:
        pick_example(teacher, "neuron")
        teacher.get_by_test_id("present").click()
        teacher.get_by_test_id("class-start").click()
        link = urlparse(teacher.get_by_test_id("class-link").input_value())
        student = open_page(browser, server, width, height, lang, path=f"{link.path}?{link.query}")
        student.get_by_test_id("class-follow").wait_for()
        for who, page in (("teacher", teacher), ("student", student)):
            settle(page)
            page.evaluate(TWO_FRAMES)
            bad, seen = _overlaps(page, phone)
            assert not bad, (who, bad, seen)
            graph = seen["boxes"]["graph"]
            assert graph["bottom"] - graph["top"] >= seen["least"] - 0.5, (who, seen)
            sizes = label_sizes(page)["labels"]
            assert sizes and min(sizes) >= 16 - 0.05, (who, "node labels as large as classroom mode asks")
            assert page.evaluate(ONE_LINE), (who, "the legend's samples ([2, 3]) are not broken")
            page.evaluate("window.scrollTo(0, 0)")  # the card or the follow bar, and what is below
            assert not small_text(page, 16), (who, small_text(page, 16))
    finally:
        teacher.context.close()
        if student is not None:
            student.context.close()

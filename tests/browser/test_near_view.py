"""A large drawing on the page is drawn near the view only: its elements far from what is on screen
are out of the document, and come back when the view reaches them (a pan, Fit, a step to a node
there) with the look of the frame shown; exports hold the whole drawing. Screenshots on a laptop
and a phone, in English and Chinese (tests/screenshots/page/, git-ignored)."""

from __future__ import annotations

import pytest

from .support import _WATCH, SHOTS, config_id, run_source, settle

CHAIN = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(400):
    h = torch.tanh(h * w)
h.backward()
print(w.grad)
"""

SCREENS = [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"), (390, 844, "zh")]

# Node elements of the drawing: all of them, and those in the document now.
COUNTS = """() => {
  const svg = document.querySelector('[data-testid=graph] svg');
  const nodes = [...svg.gvElements()].filter((g) => g.classList.contains('node'));
  return { all: nodes.length, drawn: nodes.filter((g) => g.isConnected).length };
}"""

# The op frames and backward steps whose node is in the drawing but not in the document now.
FAR_FRAMES = """async () => {
  const { state } = await import('/static/js/state.js');
  const svg = document.querySelector('[data-testid=graph] svg');
  const out = [];
  state.timeline.frames.forEach((f, k) => {
    if (f.node === undefined) return;
    const g = svg.gvElement('n' + f.node);
    if (g && !g.isConnected) out.push([k, f.node, f.kind]);
  });
  return out;
}"""

# Every node and edge in the document shows the state the timeline gives it at the frame shown.
WRONG_STATES = """async () => {
  const { state } = await import('/static/js/state.js');
  const tl = state.timeline;
  const k = state.frame;
  const wrong = [];
  for (const g of document.querySelectorAll('[data-testid=graph] :is(g.node, g.edge)[id]')) {
    const m = /^([ne])(\\d+)$/.exec(g.id);
    if (!m) continue;
    const want = m[1] === 'n' ? tl.nodeState(Number(m[2]), k) : tl.edgeState(Number(m[2]), k);
    if (g.getAttribute('data-s') !== want) wrong.push([g.id, g.getAttribute('data-s'), want]);
  }
  return wrong;
}"""

IS_DRAWN = "(id) => document.querySelector('[data-testid=graph] svg').gvElement('n' + id).isConnected"
NODE_IDS = "() => [...document.querySelectorAll('[data-testid=graph] g.node[id]')].map((g) => g.id)"
ALL_IDS = "() => [...document.querySelector('[data-testid=graph] svg').gvElements()].map((g) => g.id)"

GOTO = "async (k) => { const { emit } = await import('/static/js/state.js'); emit('goto', k); }"


# What is drawn near the view does not depend on the language: a laptop in English and a phone in
# Chinese see every screen size and both languages.
HALF = [SCREENS[0], SCREENS[3]]


@pytest.fixture(params=HALF, ids=[config_id(c) for c in HALF])
def screen(request, screens):
    yield from screens.use_page(request.param)


def see_whole(page):
    """Zoom out until the whole drawing is on screen (Fit stops at a readable size: the overview in
    the corner hides once nothing is left off screen)."""
    for _ in range(60):
        if page.get_by_test_id("minimap").is_hidden():
            return
        page.click("#zoom-out")
    raise AssertionError("zooming out never showed the whole drawing")


# The page drew the run again, or said that it could not (in its error panel).
REDRAWN_OR_REFUSED = """() => (window.__gvSeen && window.__gvSeen.relayout !== null)
  || !document.querySelector('[data-testid=error]').hidden"""


def show_every_op(page):
    """The chain at the op level: about 800 op nodes with a ghost of w beside each use."""
    run_source(page, CHAIN)
    page.evaluate(_WATCH, "relayout")
    page.get_by_test_id("fold-op").click()
    page.wait_for_function(REDRAWN_OR_REFUSED, timeout=90_000)
    error = page.get_by_test_id("error")
    assert not error.is_visible(), f"drawn at the op level: {error.inner_text()}"
    page.wait_for_function("() => document.querySelector('main.layout').ariaBusy === 'false'")


def test_far_elements_are_left_out_and_drawn_when_the_view_reaches_them(screen):
    page, name, lang = screen
    show_every_op(page)
    counts = page.evaluate(COUNTS)
    assert counts["all"] > 1000
    # zoomed in at a readable scale: a small share of the drawing is in the document
    assert 0 < counts["drawn"] < counts["all"] / 3, counts
    assert page.evaluate(WRONG_STATES) == []
    page.screenshot(path=str(SHOTS / f"near-view-{name}.png"))
    if name == config_id(SCREENS[0]):  # one screen is enough for the exported file
        export_holds_the_whole_drawing(page, counts)

    # A step to a node far from the view: the view goes there and its node is drawn, in view,
    # with every element around it in the look of that frame.
    far = page.evaluate(FAR_FRAMES)
    steps = [f for f in far if f[2] == "step"]
    assert steps, "every backward step's node is in the document"
    k, node, _ = steps[len(steps) // 2]
    page.evaluate(GOTO, k)
    settle(page)  # the view glides there
    assert page.evaluate(IS_DRAWN, node)
    box = page.locator(f"[data-testid=graph] g#n{node}").bounding_box()
    host = page.get_by_test_id("graph").bounding_box()
    assert box and host["x"] <= box["x"] + box["width"] / 2 <= host["x"] + host["width"]
    assert host["y"] <= box["y"] + box["height"] / 2 <= host["y"] + host["height"]
    assert page.locator(f"[data-testid=graph] g#n{node}").get_attribute("data-s") == "cur"
    assert page.evaluate(WRONG_STATES) == []
    page.screenshot(path=str(SHOTS / f"near-view-far-step-{name}.png"))

    # Dragging the drawing down the chain brings what comes into view into the document (a group
    # of elements holds a long stretch of a chain: drag until one comes in, for at most ten views).
    before = set(page.evaluate(NODE_IDS))
    # (the graph at the top of the window: on a phone the step bar holds the bottom of the screen)
    page.evaluate("(y) => window.scrollBy(0, y)", host["y"])
    host = page.get_by_test_id("graph").bounding_box()
    cx, cy = host["x"] + host["width"] / 2, host["y"] + host["height"] / 2
    for _ in range(12):
        page.mouse.move(cx, cy)
        page.mouse.down()
        for i in range(1, 11):
            page.mouse.move(cx, cy + i * host["height"] * 0.08)
        page.mouse.up()
        after = set(page.evaluate(NODE_IDS))
        assert page.evaluate(WRONG_STATES) == []
        if after != before:
            break
    assert after != before

    # Fit stays readable (the overview in the corner shows the rest); zoomed out to the whole
    # drawing, every element is drawn.
    page.click("#fit")
    assert page.get_by_test_id("minimap").is_visible()
    see_whole(page)
    counts = page.evaluate(COUNTS)
    assert counts["drawn"] == counts["all"], counts
    assert page.evaluate(WRONG_STATES) == []


def export_holds_the_whole_drawing(page, counts: dict) -> None:
    """An export holds the whole drawing, also what is out of the document; the page's drawing is
    still drawn near the view only afterwards."""
    assert counts["drawn"] < counts["all"]
    with page.expect_download() as dl:
        page.get_by_test_id("export-svg").click()
    text = open(dl.value.path(), encoding="utf-8").read()
    ids = page.evaluate(ALL_IDS)
    assert len(ids) >= counts["all"]
    missing = [i for i in ids if f'id="{i}"' not in text]
    assert not missing, missing[:10]
    # the page's drawing is still drawn near the view only, as before the export
    assert page.evaluate(COUNTS) == counts

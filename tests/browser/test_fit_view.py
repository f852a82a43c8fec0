"""A large drawing seen whole (zoomed out past Fit, which stops at a readable size): its text is
left out, each step is drawn on a layer over the drawing (the drawing itself is left as it is, so
the browser need not paint it again) and a ring marks the current node; what is shown is still each
element's state at the frame shown. Zoomed back in, the text and every state are on the drawing
itself; an export holds the whole drawing with its text and the states of the frame shown.
Screenshots in tests/screenshots/page/."""

from __future__ import annotations

import pytest

from .support import SHOTS, blur, config_id, settle
from .test_near_view import ALL_IDS, COUNTS, GOTO, WRONG_STATES, see_whole, show_every_op

SCREENS = [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"), (390, 844, "zh")]

# Every node and edge of the drawing shows (on the layer or on itself) its state at the frame shown.
SHOWN_WRONG = """async () => {
  const { state } = await import('/static/js/state.js');
  const tl = state.timeline;
  const k = state.frame;
  const svg = document.querySelector('[data-testid=graph] svg.gv');
  const wrong = [];
  for (const g of svg.gvElements()) {
    const m = /^([ne])(\\d+)$/.exec(g.id);
    if (!m) continue;
    const want = m[1] === 'n' ? tl.nodeState(Number(m[2]), k) : tl.edgeState(Number(m[2]), k);
    if (svg.gvState(g.id) !== want) wrong.push([g.id, svg.gvState(g.id), want]);
  }
  return wrong;
}"""

# What the layer over the drawing shows: its copies' elements and states, and the ring's centre.
LAYER = """() => {
  const host = document.querySelector('[data-testid=graph]');
  const live = host.querySelector('svg.live');
  if (!live) return null;
  const ring = live.querySelector('.gv-ring');
  return {
    copies: [...live.querySelectorAll('g[data-gid][data-s]:not(.gv-erase)')]
      .map((g) => [g.dataset.gid, g.dataset.s]),
    ring: ring && !ring.hasAttribute('visibility')
      ? [Number(ring.getAttribute('cx')), Number(ring.getAttribute('cy'))] : null,
    transform: live.style.transform === host.querySelector('svg.gv').style.transform,
  };
}"""

# The current frame, its node and the node's centre in the svg's units (graphviz's numbers).
CURRENT = """async () => {
  const { state } = await import('/static/js/state.js');
  const f = state.timeline.frames[state.frame];
  const g = document.querySelector('[data-testid=graph] svg.gv').gvElement('n' + f.node);
  const r = g.querySelector('ellipse, polygon, path').getBBox();
  const root = document.querySelector('[data-testid=graph] svg.gv g.graph')
    .transform.baseVal.consolidate().matrix;
  let x = r.x + r.width / 2 + root.e;
  let y = r.y + r.height / 2 + root.f;
  for (let u = g.parentElement; u && !u.matches('g.graph#graph0'); u = u.parentElement) {
    const t = u.transform && u.transform.baseVal.consolidate();
    if (t) { x += t.matrix.e; y += t.matrix.f; }
  }
  return { frame: state.frame, node: f.node, kind: f.kind, x, y };
}"""

# Changes to the drawing's own elements' states while the block runs (a MutationObserver).
WATCH = """() => {
  const svg = document.querySelector('[data-testid=graph] svg.gv');
  window.__gvChanged = [];
  window.__gvWatch = new MutationObserver((ms) => {
    for (const m of ms) window.__gvChanged.push(m.target.id);
  });
  window.__gvWatch.observe(svg, { subtree: true, attributes: true, attributeFilter: ['data-s'] });
}"""
CHANGED = "() => { window.__gvWatch.disconnect(); return window.__gvChanged; }"

LABEL_SHOWN = """() => {
  const t = document.querySelector('[data-testid=graph] svg.gv g.node[id] > text');
  return getComputedStyle(t).display !== 'none';
}"""
OVERVIEW = "() => document.querySelector('[data-testid=graph] svg.gv').classList.contains('overview')"


@pytest.fixture(params=SCREENS, ids=[config_id(c) for c in SCREENS])
def screen(request, screens):
    yield from screens.use_page(request.param)


def middle_step(page) -> int:
    """A frame of the backward pass in its middle."""
    return page.evaluate("""async () => {
      const { state } = await import('/static/js/state.js');
      const steps = [];
      state.timeline.frames.forEach((f, k) => {
        if (f.kind === 'step' && f.node !== undefined) steps.push(k);
      });
      return steps[Math.floor(steps.length / 2)];
    }""")


# What the layer shows does not depend on the language: a laptop in English and a phone in Chinese
# see every screen size and both languages.
@pytest.mark.parametrize("screen", [SCREENS[0], SCREENS[3]], indirect=True,
                         ids=[config_id(SCREENS[0]), config_id(SCREENS[3])])
def test_stepping_at_fit_shows_each_state_on_a_layer_and_zooming_in_brings_the_text_back(screen):
    page, name, lang = screen
    show_every_op(page)
    assert page.evaluate(LABEL_SHOWN)
    page.evaluate(GOTO, middle_step(page))
    see_whole(page)
    counts = page.evaluate(COUNTS)
    assert counts["drawn"] == counts["all"], counts
    # seen whole: the labels (a fraction of a pixel tall) are left out, a layer lies over the drawing
    assert page.evaluate(OVERVIEW)
    assert not page.evaluate(LABEL_SHOWN)
    assert page.evaluate(LAYER)["transform"]
    assert page.evaluate(SHOWN_WRONG) == []

    # Steps forward and back with the keys: the drawing itself keeps its states, the layer shows
    # the current node, the edges that carried gradients and the nodes done; the ring is on the
    # current node.
    blur(page)
    page.evaluate(WATCH)
    for key in ["ArrowRight"] * 4 + ["ArrowLeft"]:
        page.keyboard.press(key)
        cur = page.evaluate(CURRENT)
        assert cur["kind"] == "step"
        layer = page.evaluate(LAYER)
        shown = dict(layer["copies"])
        assert shown.get(f"n{cur['node']}") == "cur", (key, cur, layer["copies"][:8])
        assert layer["ring"] and abs(layer["ring"][0] - cur["x"]) < 1 and abs(layer["ring"][1] - cur["y"]) < 1
        assert page.evaluate(SHOWN_WRONG) == []
    assert page.evaluate(CHANGED) == [], "a step at Fit wrote a state into the drawing itself"
    states = {s for _, s in layer["copies"]}
    assert {"cur", "done", "send"} <= states, states
    settle(page)
    page.screenshot(path=str(SHOTS / f"fit-view-{name}.png"))
    if name == config_id(SCREENS[0]):  # one screen is enough for the exported file
        export_at_fit_holds_the_whole_drawing_with_its_text(page)

    # Zoomed back in until the labels can be read: no layer, the text and every state on the drawing.
    for _ in range(40):
        if not page.evaluate(OVERVIEW):
            break
        page.click("#zoom-in")
    assert not page.evaluate(OVERVIEW)
    assert page.evaluate(LAYER) is None
    assert page.evaluate(LABEL_SHOWN)
    assert page.evaluate(WRONG_STATES) == []
    assert page.evaluate(SHOWN_WRONG) == []

    # Fit again and a jump far away (many states at once): still every state shown.
    see_whole(page)
    page.evaluate(GOTO, middle_step(page) + 60)
    assert page.evaluate(SHOWN_WRONG) == []
    page.evaluate(GOTO, 3)
    assert page.evaluate(SHOWN_WRONG) == []


def export_at_fit_holds_the_whole_drawing_with_its_text(page) -> None:
    """Seen whole, steps drawn on the layer: an export holds the whole drawing with its text and
    the states of the frame shown, without the layer; the page still shows the drawing seen whole."""
    cur = page.evaluate(CURRENT)
    assert page.evaluate(LAYER)["copies"]
    with page.expect_download() as dl:
        page.get_by_test_id("export-svg").click()
    text = open(dl.value.path(), encoding="utf-8").read()
    missing = [i for i in page.evaluate(ALL_IDS) if f'id="{i}"' not in text]
    assert not missing, missing[:10]
    assert "overview" not in text and "gv-ring" not in text
    assert "TanhBackward0" in text and "glabel" in text  # node labels and the gradients sent
    at = text.index(f'id="n{cur["node"]}"')
    assert 'data-s="cur"' in text[text.rindex("<g", 0, at):at + 80]
    # the page still shows the drawing seen whole, every state as before
    assert page.evaluate(OVERVIEW)
    assert page.evaluate(SHOWN_WRONG) == []

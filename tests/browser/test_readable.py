"""The whole graph, readable, on every screen: the default view shows the whole drawing whenever its
smallest text can be read so (11 px; 16 px in classroom mode), measured as rendered; otherwise the
current step's neighbourhood at that size, following the steps, with an overview (the minimap) to
move the view; Fit never goes below that size. On a phone the step bar stays on screen and the
explanation follows the graph. Export slide writes the graph with the step's explanation.
Screenshots in tests/screenshots/page/."""

from __future__ import annotations

import struct

import pytest

from .label_sizes import format_table, label_sizes, small_text, summary, table
from .support import SHOTS, blur, config_id, expect_run, pick_example, screen_page, settle

pytestmark = pytest.mark.browser

READABLE = 11  # CSS px: the smallest node label of the default view
CLASSROOM = 16
WIDE = [(1280, 720, "en"), (1920, 1080, "zh")]
PHONES = [(390, 844, "en"), (390, 844, "zh")]

# The first frame of backward pass 1 (the whole graph exists there).
FIRST_BACKWARD = """async () => {
  const { state, emit } = await import('/static/js/state.js');
  const k = state.timeline.frames.findIndex((f) => f.kind === 'step' && f.node !== undefined);
  emit('goto', k);
  return k;
}"""

# The current node's box against the graph's box (CSS px).
CURRENT_INSIDE = """() => {
  const host = document.querySelector('[data-testid=graph]').getBoundingClientRect();
  const g = document.querySelector('[data-testid=graph] svg.gv g.node[data-s=cur]');
  if (!g) return null;
  const r = g.getBoundingClientRect();
  return r.left >= host.left - 1 && r.right <= host.right + 1 && r.top >= host.top - 1
    && r.bottom <= host.bottom + 1;
}"""

MINIMAP_SHOWN = "() => !document.querySelector('[data-testid=minimap]').hidden"
VIEW_BOX = "() => document.querySelector('[data-testid=graph] svg.gv').style.transform"


@pytest.fixture(params=WIDE, ids=[config_id(c) for c in WIDE])
def wide(request, screens):
    yield from screens.use_page(request.param)


@pytest.fixture(params=WIDE, ids=[config_id(c) for c in WIDE])
def fresh_wide(request, browser, server):
    """A page of its own: classroom mode's text sizes are checked on a page that showed nothing else
    (on a page shared with the tests before, the training chart's ticks stayed at 10.4 px)."""
    yield from screen_page(request, browser, server)


@pytest.fixture(params=PHONES, ids=[config_id(c) for c in PHONES])
def phone(request, screens):
    yield from screens.use_page(request.param)


def classroom(page, on: bool = True) -> None:
    button = page.get_by_test_id("present")
    if (button.get_attribute("aria-pressed") == "true") != on:
        button.click()


def test_every_example_is_readable_in_its_default_view(browser, server):
    """Every built-in example at 1280x720 and 1920x1080, classroom mode too: the smallest node label
    (and value inside a node) is readable; the whole graph is on screen, or the overview is."""
    rows = table(browser, server)
    print("\n" + format_table(rows))
    bad = []
    for r in rows:
        least = CLASSROOM if r["classroom"] else READABLE
        if r["min"] is not None and r["min"] < least - 0.05:
            bad.append((r["example"], r["screen"], r["classroom"], "label", r["min"]))
        if r["values_min"] is not None and r["values_min"] < least - 0.05:
            bad.append((r["example"], r["screen"], r["classroom"], "values", r["values_min"]))
        if r["inside"] < r["nodes"] and not r["minimap"]:
            bad.append((r["example"], r["screen"], r["classroom"], "cut off without an overview"))
    assert not bad, bad


def test_small_graphs_are_shown_whole_at_the_first_backward_step(wide):
    page, name, lang = wide
    examples = ["linear-regression", "add-mul"]
    if name.startswith("1920"):
        examples += ["neuron", "accumulation"]
    for example in examples:
        pick_example(page, example)
        page.evaluate(FIRST_BACKWARD)
        settle(page)
        m = label_sizes(page)
        assert m["inside"] == m["nodes"], (example, m["inside"], m["nodes"])
        assert summary(m["labels"])[0] >= READABLE - 0.05, (example, summary(m["labels"]))
        assert not page.evaluate(MINIMAP_SHOWN)
        page.screenshot(path=str(SHOTS / f"readable-{example}-{name}.png"))
        # Fit keeps the whole graph
        page.click("#fit")
        assert label_sizes(page)["inside"] == m["nodes"]


def test_a_large_graph_follows_the_step_at_a_readable_size_with_an_overview(wide):
    page, name, lang = wide
    pick_example(page, "deep-sigmoid")
    page.evaluate(FIRST_BACKWARD)
    settle(page)
    m = label_sizes(page)
    assert m["inside"] < m["nodes"], "the example is too large to read whole here"
    assert summary(m["labels"])[0] >= READABLE - 0.05
    assert page.evaluate(MINIMAP_SHOWN)
    assert page.evaluate(CURRENT_INSIDE)
    # stepping: the current node stays in view, at the same size
    blur(page)
    for _ in range(12):
        page.keyboard.press("ArrowRight")
        settle(page)
        assert page.evaluate(CURRENT_INSIDE), "the view follows the step"
    assert summary(label_sizes(page)["labels"])[0] >= READABLE - 0.05
    page.screenshot(path=str(SHOTS / f"readable-overview-{name}.png"))
    # Fit does not shrink the labels below the readable size: the overview stays
    page.click("#fit")
    settle(page)
    assert summary(label_sizes(page)["labels"])[0] >= READABLE - 0.05
    assert page.evaluate(MINIMAP_SHOWN)
    # a click on the overview moves the view there
    before = page.evaluate(VIEW_BOX)
    box = page.get_by_test_id("minimap").locator("canvas").bounding_box()
    page.mouse.click(box["x"] + 4, box["y"] + box["height"] / 2)
    assert page.evaluate(VIEW_BOX) != before
    # zooming out past it still shows the whole drawing (smaller than readable, by choice)
    for _ in range(20):
        if not page.evaluate(MINIMAP_SHOWN):
            break
        page.click("#zoom-out")
    assert not page.evaluate(MINIMAP_SHOWN)
    m = label_sizes(page)
    assert m["inside"] == m["nodes"]


@pytest.mark.parametrize("example", ["linear-regression", "mlp", "broadcast"])
def test_classroom_mode_writes_everything_at_least_16px(fresh_wide, example):
    page, name, lang = fresh_wide
    classroom(page, False)
    pick_example(page, example)
    classroom(page)
    try:
        page.evaluate(FIRST_BACKWARD)
        settle(page)
        blur(page)
        for step in range(4):
            small = small_text(page, CLASSROOM)
            assert not small, (example, step, small[:12])
            page.keyboard.press("ArrowRight")
            settle(page)
        page.screenshot(path=str(SHOTS / f"readable-classroom-{example}-{name}.png"))
    finally:
        classroom(page, False)


def test_the_step_bar_stays_beside_the_graph_on_a_phone(phone):
    page, name, lang = phone
    pick_example(page, "neuron")
    next_button = page.get_by_test_id("step-next")
    vh = page.viewport_size["height"]

    def on_screen(locator) -> bool:
        b = locator.bounding_box()
        return b is not None and b["y"] >= 0 and b["y"] + b["height"] <= vh

    page.evaluate("window.scrollTo(0, 0)")
    assert on_screen(next_button)
    graph = page.get_by_test_id("graph")
    graph.scroll_into_view_if_needed()
    page.evaluate("(y) => window.scrollBy(0, y)", graph.bounding_box()["y"] - 8)
    assert on_screen(next_button), "the step buttons are beside the graph"
    bar = page.locator(".p-timeline").bounding_box()
    g = graph.bounding_box()
    assert g["y"] + g["height"] <= bar["y"] + 1, "the bar does not cover the graph"
    before = page.get_by_test_id("step-label").inner_text()
    next_button.click()
    assert page.get_by_test_id("step-label").inner_text() != before
    # the explanation of the step is one swipe (less than a screen) below the graph
    explain = page.locator(".p-explain").bounding_box()
    assert explain["y"] - (g["y"] + g["height"]) < vh * 0.6, (explain, g)
    page.evaluate("(y) => window.scrollBy(0, y)", explain["y"] - 60)
    assert on_screen(next_button), "and while the explanation is read"
    page.screenshot(path=str(SHOTS / f"readable-phone-explain-{name}.png"))


PNG_SIZE = struct.Struct(">II")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return PNG_SIZE.unpack(data[16:24])


def test_export_slide_writes_the_graph_with_the_steps_explanation(wide):
    page, name, lang = wide
    pick_example(page, "add-mul")
    page.evaluate(FIRST_BACKWARD)
    blur(page)
    page.keyboard.press("ArrowRight")
    first_line = page.locator("#explain h3").inner_text().strip()
    got = []
    page.on("download", lambda d: got.append(d))
    page.get_by_test_id("export-slide").click()
    for _ in range(50):
        if len(got) >= 2:
            break
        page.wait_for_timeout(100)
    names = sorted(d.suggested_filename for d in got)
    assert [n.rsplit(".", 1)[1] for n in names] == ["png", "svg"], names
    files = {d.suggested_filename.rsplit(".", 1)[1]: open(d.path(), "rb").read() for d in got}
    assert png_size(files["png"]) == (1920, 1080)
    svg = files["svg"].decode("utf-8")
    assert first_line and first_line.split(":")[0].split("：")[0] in svg, first_line
    assert 'class="slide-text"' in svg and "AddBackward0" in svg
    step = "Step" if lang == "en" else "步"
    assert step in svg
    open(SHOTS / f"slide-{name}.png", "wb").write(files["png"])


def test_a_run_keeps_the_view_rules(wide):
    """Running the same example again starts afresh (the whole graph again, not the last zoom)."""
    page, name, lang = wide
    pick_example(page, "add-mul")
    page.click("#zoom-in")
    page.click("#zoom-in")
    with expect_run(page):
        page.get_by_test_id("run").click()
    settle(page)
    m = label_sizes(page)
    assert m["inside"] == m["nodes"] and not page.evaluate(MINIMAP_SHOWN)

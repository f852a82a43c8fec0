"""Classroom mode: the graph and the explanation side by side at a projector's scale, the text size, data
and grad inside the nodes, clicker keys, "predict, then reveal" with a score, and a palette whose text
keeps WCAG AA contrast, on every screen in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from .support import HALF_A, HALF_B, SHOTS, blur, expect_run, pass_steps, pick_example, step_label

pytestmark = pytest.mark.browser

TEXT = {
    "en": {"data": "data", "grad": "grad", "right": "right", "wrong": "wrong",
           "score": "Backward pass 1: {r} of {a} right"},
    "zh": {"data": "值", "grad": "梯度", "right": "正确", "wrong": "错误",
           "score": "第 1 次反向传播：{a} 题中答对 {r} 题"},
}
# Every data-testid the page had before classroom mode: none may go missing.
TESTIDS = ["examples", "run", "share", "lang", "share-link", "source", "error", "console", "graph",
           "export-svg", "export-png", "step-prev", "play", "step-next", "step-label", "right-tabs",
           "tab-step", "tab-training", "mlp-panel", "mlp-builder", "build", "mlp-status", "training",
           "fold-toggle"]


def present(page, on: bool = True) -> None:
    """Classroom mode on or off (with its button)."""
    button = page.get_by_test_id("present")
    if (button.get_attribute("aria-pressed") == "true") != on:
        button.click()
    assert button.get_attribute("aria-pressed") == str(on).lower()


def start(page, example: str) -> None:
    """Show an example in classroom mode (switched on after it ran: the Run button is hidden there)."""
    present(page, False)
    pick_example(page, example)
    present(page)


def to_pass(page, n: int = 1, step: int = 1) -> None:
    """Stand on step `step` of backward pass n (with the pass chooser, then →)."""
    first, _ = pass_steps(page, n)
    page.locator("#chapter").select_option(str(first - 1))
    blur(page)
    for _ in range(step - 1):
        page.keyboard.press("ArrowRight")


def labels(graph) -> list[str]:
    """The gradient labels written on the graph's edges."""
    return graph.locator("text.glabel").evaluate_all("(ts) => ts.map((t) => t.textContent).filter(Boolean)")


def set_pressed(page, testid: str, on: bool) -> None:
    button = page.get_by_test_id(testid)
    if (button.get_attribute("aria-pressed") == "true") != on:
        button.click()


# Node label height on screen (CSS px): the font size the drawing writes them in, times its zoom.
LABEL_PX = """() => {
  const svg = document.querySelector('[data-testid=graph] svg');
  const scale = new DOMMatrix(getComputedStyle(svg).transform).a;
  const text = svg.querySelector('g.node > text');
  return parseFloat(text.getAttribute('font-size')) * scale;
}"""


def test_graph_and_explanation_side_by_side_and_nothing_else(shown):
    page = shown.page
    start(page, "neuron")
    for hidden in ("source", "console", "mlp-panel"):
        assert not page.get_by_test_id(hidden).is_visible(), hidden
    assert not page.locator("#vars").is_visible() and not page.locator("#details").is_visible()
    graph = page.get_by_test_id("graph").bounding_box()
    explain = page.locator("#explain").bounding_box()
    assert graph and explain
    if shown.phone:
        assert explain["y"] >= graph["y"] + graph["height"] - 1, "stacked below on a phone"
    else:
        assert explain["x"] >= graph["x"] + graph["width"] - 1, "beside the graph"
        assert explain["y"] < shown.height and graph["y"] + graph["height"] <= shown.height, "both on screen"
    assert all(page.get_by_test_id(t).count() == 1 for t in TESTIDS), "every data-testid is still there"
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= shown.width, f"the page is {wide}px wide on a {shown.width}px screen: it scrolls sideways"
    SHOTS.mkdir(parents=True, exist_ok=True)
    blur(page)
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.screenshot(path=str(SHOTS / f"classroom-{shown.width}-{shown.lang}.png"), full_page=shown.phone)
    page.keyboard.press("p")  # the key switches it off again
    assert page.get_by_test_id("present").get_attribute("aria-pressed") == "false"
    assert page.get_by_test_id("source").is_visible()
    page.screenshot(path=str(SHOTS / f"normal-{shown.width}-{shown.lang}.png"), full_page=shown.phone)
    page.keyboard.press("P")
    assert page.get_by_test_id("present").get_attribute("aria-pressed") == "true"
    present(page, False)


@pytest.mark.screens(HALF_A)
@pytest.mark.parametrize("example", ["add-mul", "neuron", "mlp", "vanishing"])
def test_labels_are_at_least_16px(shown, example):
    page = shown.page
    start(page, example)
    blur(page)
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(LABEL_PX) >= 16 - 0.01
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#explain p')).fontSize)")
    assert size >= 16
    present(page, False)


@pytest.mark.screens(HALF_B)
def test_text_size_buttons_and_keys(shown):
    page = shown.page
    start(page, "neuron")
    explain = "parseFloat(getComputedStyle(document.querySelector('#explain p')).fontSize)"
    base, label = page.evaluate(explain), page.evaluate(LABEL_PX)
    page.get_by_test_id("present-larger").click()
    assert page.evaluate(explain) > base and page.evaluate(LABEL_PX) >= label
    blur(page)
    page.keyboard.press("-")
    page.keyboard.press("-")
    assert page.evaluate(explain) < base
    page.keyboard.press("+")
    assert page.evaluate(explain) == base
    for _ in range(8):
        page.keyboard.press("+")
    assert page.get_by_test_id("present-larger").is_disabled(), "the largest size"
    for _ in range(8):
        page.keyboard.press("-")
    assert page.get_by_test_id("present-smaller").is_disabled(), "the smallest size"
    page.keyboard.press("+")
    assert page.evaluate(explain) == base
    present(page, False)


VALUES = """() => [...document.querySelectorAll('[data-testid=graph] g.node')]
  .map((g) => [g, document.querySelector(
    `[data-testid=graph] text.nval[data-node="${g.dataset.gid.slice(1)}"]`)])
  .filter(([g, line]) => g.dataset.s !== 'hidden' && line)
  .map(([g, line]) => {
    const shape = g.querySelector(':scope > :is(path, polygon, ellipse)');
    const a = line.getBoundingClientRect(), b = shape.getBoundingClientRect();
    return {name: g.querySelector('text').textContent, text: line.textContent,
            inside: a.left >= b.left - 1 && a.right <= b.right + 1
              && a.top >= b.top - 1 && a.bottom <= b.bottom + 1};
  })"""


@pytest.mark.screens(HALF_A)
def test_values_and_gradients_inside_the_nodes(shown):
    page, text = shown.page, TEXT[shown.lang]
    start(page, "add-mul")  # (a + b) * c with a = 2, b = -3, c = 10
    set_pressed(page, "present-values", True)
    blur(page)
    page.keyboard.press("End")
    shown_values = {v["name"]: v for v in page.evaluate(VALUES)}
    assert set(shown_values) >= {"a", "b", "c", "AddBackward0", "MulBackward0"}, shown_values
    assert shown_values["c"]["text"] == f"{text['data']} 10 │ {text['grad']} -1"
    assert shown_values["a"]["text"] == f"{text['data']} 2 │ {text['grad']} 10"
    assert shown_values["AddBackward0"]["text"] == f"{text['data']} -1 │ {text['grad']} 10"
    assert all(v["inside"] for v in shown_values.values()), shown_values
    page.keyboard.press("Home")
    first = {v["name"]: v["text"] for v in page.evaluate(VALUES)}
    assert first["a"].endswith("—"), "no .grad before backward reaches it"
    set_pressed(page, "present-values", False)
    assert page.locator("[data-testid=graph] text.nval").count() == 0
    set_pressed(page, "present-values", True)
    nvals = page.locator("[data-testid=graph] text.nval").count()
    assert nvals == 3, "a, b and a + b exist at the first step"
    present(page, False)
    assert page.locator("[data-testid=graph] text.nval").count() == 0, "only in classroom mode"


@pytest.mark.screens(HALF_A)
def test_clicker_keys(shown):
    page = shown.page
    start(page, "neuron")
    blur(page)
    page.keyboard.press("Home")
    _, n = step_label(page)
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")
    assert step_label(page)[0] == 3
    page.keyboard.press("PageUp")
    assert step_label(page)[0] == 2
    page.keyboard.press("ArrowRight")
    assert step_label(page)[0] == 3
    page.keyboard.press("ArrowLeft")
    assert step_label(page)[0] == 2
    page.keyboard.press("End")
    assert step_label(page) == (n, n)
    page.keyboard.press("Home")
    assert step_label(page)[0] == 1
    present(page, False)


@pytest.mark.screens(HALF_B)
def test_predict_then_reveal(shown):
    page, text = shown.page, TEXT[shown.lang]
    start(page, "add-mul")  # the mul sends c = 10 to (a + b) and a + b = -1 to c
    set_pressed(page, "predict", True)
    panel = page.get_by_test_id("predict-panel")
    assert panel.is_visible()
    to_pass(page, 1)  # the first backward step: MulBackward0
    graph = page.get_by_test_id("graph")
    assert graph.locator("text.glabel.concealed").count() == 2, "both gradients it sends are hidden"
    assert "?" in page.locator("#explain").inner_text()
    assert labels(graph) == ["?", "?"]
    page.get_by_test_id("guess-0").fill("10")
    page.get_by_test_id("guess-1").fill("5")
    page.get_by_test_id("reveal").click()
    assert page.get_by_test_id("verdict-0").inner_text().strip() == text["right"]
    assert page.get_by_test_id("verdict-1").inner_text().strip() == text["wrong"]
    assert page.get_by_test_id("predict-score").inner_text() == text["score"].format(r=1, a=2)
    assert graph.locator("text.glabel.concealed").count() == 0
    assert sorted(labels(graph)) == ["-1", "10"]
    # the next step asks again (c's AccumulateGrad writes c.grad = -1); Enter reveals
    blur(page)
    page.keyboard.press("PageDown")
    assert page.get_by_test_id("guess-0").is_visible() and page.get_by_test_id("guess-1").count() == 0
    page.get_by_test_id("guess-0").fill("−1")
    page.get_by_test_id("guess-0").press("Enter")
    assert page.get_by_test_id("predict-score").inner_text() == text["score"].format(r=2, a=3)
    blur(page)
    page.keyboard.press("PageDown")  # AddBackward0 sends 10 to a and to b
    page.get_by_test_id("guess-0").fill("10")
    page.get_by_test_id("guess-1").fill("1e1")
    page.get_by_test_id("guess-1").press("Enter")
    assert page.get_by_test_id("predict-score").inner_text() == text["score"].format(r=4, a=5)
    blur(page)
    page.keyboard.press("PageDown")  # a's .grad is asked
    label = step_label(page)
    page.keyboard.press("PageDown")  # a clicker's "next" with nothing typed reveals (not right) and stays
    assert step_label(page) == label
    assert page.get_by_test_id("predict-score").inner_text() == text["score"].format(r=4, a=6)
    assert "—" not in page.get_by_test_id("predict-panel").inner_text()
    page.keyboard.press("ArrowLeft")  # back on a step already revealed: its answers are shown
    assert page.get_by_test_id("verdict-1").inner_text().strip() == text["right"]
    set_pressed(page, "predict", False)
    assert not panel.is_visible()
    present(page, False)


# ---- colour and contrast --------------------------------------------------------------------------
CONTRAST = (Path(__file__).parent / "contrast.js").read_text()


def contrast_failures(page):
    found = page.evaluate(CONTRAST)
    return found, [f for f in found if f["ratio"] < f["need"]]


@pytest.mark.screens(HALF_A)  # the palette is the same on every screen: each size, both languages
def test_text_contrast_is_wcag_aa(shown, record_property):
    page = shown.page
    present(page, False)
    pick_example(page, "neuron")
    lowest = {}
    for mode in (False, True):
        present(page, mode)
        if mode:
            set_pressed(page, "present-values", True)
            set_pressed(page, "predict", True)
        to_pass(page, 1, 2)  # a step with gradients sent
        found, bad = contrast_failures(page)
        assert len(found) > 20
        assert not bad, bad
        lowest["classroom" if mode else "normal"] = round(min(f["ratio"] for f in found), 2)
        graph = [f["ratio"] for f in found if f["text"].startswith("graph: ")]
        assert graph, "gradient labels were checked"
        lowest[("classroom" if mode else "normal") + " graph"] = round(min(graph), 2)
    set_pressed(page, "predict", False)
    present(page, False)
    record_property("lowest contrast", lowest)
    print(f"lowest contrast {shown.width}x{shown.height}-{shown.lang}: {lowest}")


@pytest.mark.screens(HALF_B)
def test_state_colours_are_told_apart(shown):
    # current step, gradient computed, gradient flowing and a new forward op: distinct hues with
    # colour-vision deficiencies too (Okabe-Ito), and each differs from the node outlines they sit on
    page = shown.page
    present(page, False)
    pick_example(page, "neuron")
    to_pass(page, 1, 2)
    colours = page.evaluate("""() => {
      const stroke = (sel) => {
        const e = document.querySelector(sel);
        return e && getComputedStyle(e).stroke;
      };
      return {cur: stroke('[data-testid=graph] g.node[data-s=cur] > :is(path, polygon, ellipse)'),
              done: stroke('[data-testid=graph] g.node[data-s=done] > :is(path, polygon, ellipse)'),
              send: stroke('[data-testid=graph] g.edge[data-s=send] > path')};
    }""")
    okabe_ito = {"cur": "rgb(213, 94, 0)", "done": "rgb(0, 158, 115)", "send": "rgb(0, 114, 178)"}
    assert colours == okabe_ito, colours


@pytest.mark.screens(HALF_A)
def test_a_run_in_classroom_mode_keeps_it(shown):
    page = shown.page
    start(page, "fan-out")
    with expect_run(page):
        page.get_by_test_id("examples").select_option("detach")
    assert page.get_by_test_id("present").get_attribute("aria-pressed") == "true"
    assert page.locator("#explain").is_visible()
    present(page, False)


# ---- the charts' text ------------------------------------------------------------------------------
# A projector and a phone, in both languages.
CHART_SCREENS = [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"), (390, 844, "zh")]
# Every text of the charts that is drawn (a hidden panel's are not): its size on screen in CSS px (its
# computed font size times the screen scale of its chart), its height as laid out, what it says, its
# chart, and whether it lies within its chart's box (not cut off).
CHART_TEXT = """() => [...document.querySelectorAll('.chart-box svg.chart text')]
  .filter((t) => t.getBoundingClientRect().width > 0)
  .map((t) => {
    const m = t.getScreenCTM(), r = t.getBoundingClientRect();
    const box = t.closest('.chart-box').getBoundingClientRect();
    return {px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b), height: r.height,
            text: t.textContent, chart: t.closest('[data-testid]').dataset.testid,
            inside: r.left >= box.left - 1 && r.right <= box.right + 1};
  })"""
TWO_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def chart_text(page, chart: str) -> list[dict]:
    """The drawn text of the charts once the page has drawn what changed (a chart is drawn again at
    the frame after its box changed size); fails when `chart` shows none."""
    page.evaluate(TWO_FRAMES)
    found = page.evaluate(CHART_TEXT)
    assert any(f["chart"] == chart for f in found), (chart, found)
    return found


@pytest.mark.screens(CHART_SCREENS)
def test_the_charts_text_is_16px_in_classroom_mode_whatever_came_before(shown):
    page = shown.page
    present(page, False)
    pick_example(page, "linear-regression")  # its training charts, drawn at the normal size
    bad = [f for f in chart_text(page, "loss-curve") if f["px"] < 12 - 0.01 or not f["inside"]]
    assert not bad, bad
    pick_example(page, "deep-sigmoid")  # opens the gradient heat, which the next examples keep open
    present(page)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= shown.width, f"the page is {wide}px wide on a {shown.width}px screen (the check by hand)"
    pick_example(page, "mlp")  # the heat of the MLP's parameters: a bar chart in the course views
    bad = [f for f in chart_text(page, "grad-heat-params") if f["px"] < 16 - 0.01 or not f["inside"]]
    assert not bad, bad
    page.get_by_test_id("present-larger").click()
    larger = chart_text(page, "grad-heat-params")
    assert min(f["px"] for f in larger) > 16 + 1, "the text size buttons size the charts too"
    page.get_by_test_id("present-smaller").click()
    pick_example(page, "memory-backward")  # the saved-memory chart
    page.get_by_test_id("memory-chart").locator("svg").wait_for()
    bad = [f for f in chart_text(page, "memory-chart") if f["px"] < 16 - 0.01 or not f["inside"]]
    assert not bad, bad
    page.get_by_test_id("lens-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"classroom-chart-{shown.width}-{shown.lang}.png"))
    present(page, False)  # back at the normal size: still readable, within the box
    bad = [f for f in chart_text(page, "memory-chart") if f["px"] < 11 - 0.01 or not f["inside"]]
    assert not bad, bad

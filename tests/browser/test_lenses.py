"""The course views on the page: each opened by its example, on a laptop and a phone, in English and
Chinese (support.PAIR_A and PAIR_B): forward vs reverse mode, the nodes a create_graph backward made, two
forwards compared, gradient heat on the edges and per parameter, the saved-memory chart."""

from __future__ import annotations

import re

import pytest

from .support import PAIR_A, PAIR_B, SHOTS, blur, pick_example, step_label

pytestmark = pytest.mark.browser

LENSES = "import('/static/js/state.js').then(({ state }) => state.response.lenses)"
# The run's answer holds the heat; the other views' data comes when one is opened (static/js/extras.js):
# meanwhile the view says it is working it out.
EXTRAS = "() => !document.querySelector('[data-testid=lens-pending]')"


def pick_view(page, example_id: str) -> None:
    """Choose an example that opens a course view other than the heat, and wait for that view's data."""
    pick_example(page, example_id)
    page.wait_for_function(EXTRAS)


def _shot(shown, name: str) -> None:
    """A screenshot of the window with the course views panel in it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = shown.page
    page.get_by_test_id("lens-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"lens-{name}-{shown.width}-{shown.lang}.png"))


def page_num(x: float) -> str:
    """A number as the page writes it (static/js/format.js num): 4 significant digits below 1, 4
    decimals from 1, exponent form when tiny or huge, trailing zeros dropped."""
    if x == 0:
        return "0"
    a = abs(x)
    if a < 1e-4 or a >= 1e6:
        mantissa, exp = f"{x:.3e}".split("e")
        return re.sub(r"\.?0+$", "", mantissa) + f"e{int(exp):+d}"
    if a < 1:
        text = repr(float(f"{x:.4g}"))  # the shortest text of the rounded number, as JavaScript's String
        return text.removesuffix(".0")
    text = re.sub(r"\.?0+$", "", f"{x:.4f}")
    return "0" if text == "-0" else text


def _pressed(page, testid: str) -> bool:
    return page.get_by_test_id(testid).get_attribute("aria-pressed") == "true"


@pytest.mark.screens(PAIR_A)
def test_forward_mode_beside_reverse_mode(shown):
    page = shown.page
    pick_view(page, "forward-reverse")
    assert _pressed(page, "lens-modes")
    rev, fwd = page.get_by_test_id("mode-reverse"), page.get_by_test_id("mode-forward")
    assert _pressed(page, "mode-reverse") and not _pressed(page, "mode-forward")
    assert (rev.get_attribute("data-passes"), rev.get_attribute("data-rules")) == ("1", "4")
    assert (fwd.get_attribute("data-passes"), fwd.get_attribute("data-rules")) == ("4", "12")
    words = ("passes: 4", "rule applications: 12") if shown.lang == "en" else ("遍数：4", "规则应用：12 次")
    assert all(w in fwd.inner_text() for w in words)
    fwd.click()
    assert _pressed(page, "mode-forward")
    label = page.get_by_test_id("mode-pass-label")
    assert re.search(r"Pass 1 of 4: tangent 1 on x\[0\]|第 1 遍（共 4 遍）：x\[0\] 上的切向量为 1",
                     label.inner_text())
    steps = page.get_by_test_id("mode-steps").locator("li")
    first = steps.nth(0).inner_text()
    assert steps.count() == 3 and "MulBackward0" in first and "ȧ·b" in first
    assert "[1, 0]" in steps.nth(0).inner_text() and "[0.5, 0]" in steps.nth(0).inner_text()
    # the tangent starts at x and reaches the three ops (not w): marked on the drawing
    marked = page.locator("[data-testid=graph] g.node[data-lens~=tangent]")
    assert marked.count() == 4 and not any(re.match(r"w\b", marked.nth(i).text_content()) for i in range(4))
    lenses = page.evaluate(LENSES)
    want = lenses["modes"][0]["forward"]["passes"]
    for k in range(4):
        result = page.get_by_test_id("mode-result").inner_text()
        value = re.escape(page_num(want[k]["output_tangent"]))
        assert re.search(r"= " + value + r"(?![\d.e])", result), result
        if k < 3:
            page.get_by_test_id("mode-next").click()
    assert page.get_by_test_id("mode-next").is_disabled()
    rows = page.get_by_test_id("mode-grads").locator("tbody tr")
    assert rows.count() == 2
    for i in range(2):
        cells = rows.nth(i).locator("td")
        assert cells.nth(1).inner_text() == cells.nth(2).inner_text()  # the same gradients either way
    _shot(shown, "modes")
    rev.click()
    assert page.get_by_test_id("mode-reverse-body").is_visible()
    page.get_by_test_id("mode-play-reverse").click()
    assert re.search(r"Backward pass|反向传播", page.locator("#explain").inner_text())


@pytest.mark.screens(PAIR_B)
def test_the_nodes_a_create_graph_backward_made(shown):
    page = shown.page
    pick_view(page, "second-derivative")
    assert _pressed(page, "lens-orders")
    section = page.get_by_test_id("higher-order-pass")
    assert section.count() == 1 and section.get_attribute("data-nodes") == "2"
    text = section.inner_text()
    assert re.search(r"Backward pass 1 \(autograd\.grad, line 3\) made 2 nodes"
                     r"|第 1 次反向传播（autograd\.grad，第 3 行）创建了 2 个节点", text)
    assert "CosBackward0" in text and "MulBackward0" in text
    graph = page.get_by_test_id("graph")
    assert graph.locator("g.node[data-lens~=made]").count() == 2
    assert graph.locator("g.edge[data-lens~=reads]").count() == 2
    badges = graph.locator("text.lens-badge")
    assert badges.count() == 2
    assert badges.first.text_content() == "∇1"
    page.get_by_test_id("higher-order-mark").uncheck()
    assert graph.locator("g.node[data-lens~=made]").count() == 0
    page.get_by_test_id("higher-order-mark").check()
    page.get_by_test_id("higher-order-walk").click()  # the second backward's first step: dy's node
    cur = graph.locator('g.node[data-s="cur"]')
    assert cur.count() == 1 and cur.get_attribute("data-lens") == "made"
    i, _ = step_label(page)
    page.keyboard.press("ArrowRight")
    assert step_label(page)[0] == i + 1
    _shot(shown, "orders")


@pytest.mark.screens(PAIR_A)
def test_two_forwards_same_leaves_new_nodes_structure_differs(shown):
    page = shown.page
    pick_view(page, "new-graph")
    assert _pressed(page, "lens-compare")
    box = page.get_by_test_id("compare-forwards")
    assert box.get_attribute("data-same-structure") == "false"
    leaves = page.get_by_test_id("compare-leaves").inner_text()
    assert re.search(r"w — same object #\d+|w — 同一个对象 #\d+", leaves)
    assert re.search(r"x — new object|x — 新对象", leaves)
    ops = page.get_by_test_id("compare-ops").inner_text()
    assert re.search(r"Op nodes: 7 in forward 1, 9 in forward 2|第 1 次前向 7 个，第 2 次前向 9 个", ops)
    static = page.get_by_test_id("compare-static")
    assert static.get_attribute("data-agree") == "false"
    assert "9" in static.inner_text() and "6" in static.inner_text()
    # the second forward is drawn: its ops only it ran are marked
    assert page.locator("[data-testid=graph] g.node[data-lens~=only]").count() == 3
    page.get_by_test_id("compare-show-first").click()
    assert page.locator("[data-testid=graph] g.node[data-lens~=only]").count() == 1  # PowBackward0
    _shot(shown, "compare")


# How wide each coloured edge is on the screen, in pixels.
HEAT_WIDTHS = """() => [...document.querySelectorAll('[data-testid=graph] g.edge[data-heat] > path')]
  .map((p) => {
  const cs = getComputedStyle(p);
  const scale = cs.vectorEffect === 'non-scaling-stroke' ? 1 : p.getScreenCTM().a;
  return parseFloat(cs.strokeWidth) * scale * Number(cs.strokeOpacity);
})"""


def _bars(page) -> list[tuple[float, float]]:
    """(norm, bar width) of each parameter the heat chart draws a bar for."""
    heat = page.evaluate(LENSES)["heat"][0]["params"]
    norms = {p["node"]: float(p["norm"]) for p in heat if p["log10"] is not None}
    bars = page.evaluate("""() => [...document.querySelectorAll('[data-testid=grad-heat-params] rect')]
      .map((r) => [Number(r.dataset.node), Number(r.getAttribute('width'))])""")
    return [(norms[n], w) for n, w in bars]


@pytest.mark.screens(PAIR_B)
def test_gradient_heat_shows_vanishing_and_its_cure(shown):
    page = shown.page
    pick_example(page, "deep-sigmoid")
    assert _pressed(page, "lens-heat")
    graph = page.get_by_test_id("graph")
    # opening the view colours the edges, wide enough to see at the zoom the drawing opens at
    assert page.get_by_test_id("grad-heat-switch").is_checked()
    assert graph.locator("g.edge[data-heat]").count() > 10
    assert min(page.evaluate(HEAT_WIDTHS)) >= 4
    # the legend reads from small to large, left to right
    legend = page.get_by_test_id("grad-heat-legend")
    assert re.fullmatch(r"1e-\d+", legend.locator("[data-end=small]").inner_text())
    assert re.fullmatch(r"1e\+\d+", legend.locator("[data-end=large]").inner_text())
    words = legend.locator(".heat-words span")
    assert re.search(r"vanishing|消失", words.first.inner_text())
    assert re.search(r"exploding|爆炸", words.last.inner_text())
    bars = page.get_by_test_id("grad-heat-params").locator("rect")
    assert bars.count() == 12  # 6 layers: a weight and a bias each
    rows = _bars(page)
    # a bar's length grows with its gradient: the smallest (at the input) is the shortest
    assert [w for _, w in sorted(rows)] == sorted(w for _, w in rows)
    assert rows[0][1] < rows[-2][1] and min(w for _, w in rows) > 0
    ratio = page.get_by_test_id("grad-heat-ratio").inner_text()
    assert re.search(r"e-[4-9]", ratio)
    _shot(shown, "heat-sigmoid")
    page.get_by_test_id("grad-heat-switch").uncheck()
    assert graph.locator("g.edge[data-heat]").count() == 0
    pick_example(page, "relu-he")
    assert _pressed(page, "lens-heat")
    assert graph.locator("g.edge[data-heat]").count() > 10
    ratio = page.get_by_test_id("grad-heat-ratio").inner_text()
    assert not re.search(r"e-\d", ratio)
    _shot(shown, "heat-relu")
    page.get_by_test_id("grad-heat-switch").uncheck()
    assert graph.locator("g.edge[data-heat]").count() == 0
    page.get_by_test_id("lens-memory").click()
    page.get_by_test_id("lens-heat").click()  # opened again: coloured again
    assert graph.locator("g.edge[data-heat]").count() > 10


@pytest.mark.screens(PAIR_A)
def test_saved_memory_chart(shown):
    page = shown.page
    pick_view(page, "memory-losses")
    assert _pressed(page, "lens-memory")
    chart = page.get_by_test_id("memory-chart")
    per = 2 * 32 * 8 * 4
    assert chart.get_attribute("data-peak") == str(6 * per)
    assert chart.get_attribute("data-end") == str(5 * per)
    now = page.get_by_test_id("memory-now")
    assert now.get_attribute("data-bytes") == str(5 * per)  # the example opens at the last frame
    _shot(shown, "memory")
    page.locator("#step-first").click()
    assert now.get_attribute("data-bytes") == "0"
    pick_view(page, "memory-backward")
    assert page.get_by_test_id("memory-chart").get_attribute("data-peak") == str(3 * 16 * 4)
    _shot(shown, "memory-backward")


@pytest.mark.screens(PAIR_B)
def test_a_view_without_data_says_which_example_has_it(shown):
    page = shown.page
    pick_view(page, "forward-reverse")
    page.get_by_test_id("lens-orders").click()
    note = page.get_by_test_id("lens-none").inner_text()
    assert "create_graph=True" in note and re.search(r"Second derivative of sin x|sin x 的二阶导数", note)
    page.get_by_test_id("lens-orders").click()  # pressed again: closed
    assert page.get_by_test_id("lens-body").is_hidden()


@pytest.mark.screens([(1280, 720, "en")])
def test_a_user_who_stepped_is_not_moved_when_the_views_data_arrives(shown):
    # An example's view moves the player to where it shows best once its data arrives; a user who
    # stepped meanwhile (and came back to where the run stood) stays where they are.
    page = shown.page
    held = []
    page.route("**/api/run/extras", lambda route: held.append(route))
    try:
        with page.expect_request("**/api/run/extras"):
            pick_example(page, "forward-reverse")
        start = step_label(page)
        blur(page)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        assert step_label(page) == start
    finally:
        for route in held:
            route.continue_()
        page.unroute("**/api/run/extras")
    page.wait_for_function(EXTRAS)
    assert _pressed(page, "lens-modes") and page.get_by_test_id("mode-forward").is_visible()
    assert step_label(page) == start
    # without a step of the user's, the view moves the player there as before
    pick_view(page, "forward-reverse")
    _, n = step_label(page)
    assert step_label(page) == (n, n)

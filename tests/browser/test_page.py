"""The page in a real browser against the real server: examples, stepping, gradients, errors,
language, share links, export, phone width, keyboard. Tests see the page as a user does (what is
on screen, the accessible state) or through its event bus (static/js/state.js); the frame-by-frame
logic of every example is checked without a browser (tests/js/examples_walk.test.mjs)."""

from __future__ import annotations

import json
import math
import re

import httpx
import numpy as np
import pytest

from .support import (
    SHOTS,
    chapters,
    config_id,
    expect_run,
    new_page,
    pass_steps,
    pick_example,
    run_source,
    step_label,
    wait_ready,
)

pytestmark = pytest.mark.browser

NEURON = """x = torch.tensor([2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)
b = torch.tensor([1.0], requires_grad=True)
z = x * w + b
a = torch.sigmoid(z)
loss = (a - 1.0) ** 2
loss.backward()
print(w.grad)
"""

TWICE = """x = torch.tensor([2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
y.backward()
"""


def api_run(server, source, variables=None):
    body = {"source": source}
    if variables:
        body["variables"] = variables
    return httpx.post(f"{server}/api/run", json=body, timeout=120).json()


_EXPECTED: dict = {}


def example_answer(server, ex):
    """The API's answer for an example, asked once per server (every screen compares with it)."""
    key = (server, ex["id"])
    if key not in _EXPECTED:
        _EXPECTED[key] = api_run(server, ex["source"], ex.get("variables"))
    return _EXPECTED[key]


def shown_grad(page, name):
    """The .grad the var-NAME row shows (its data-grad: the exact numbers, JSON)."""
    raw = page.get_by_test_id(f"var-{name}").locator(".v-grad").get_attribute("data-grad")
    return json.loads(raw)


def close(a, b, tol=1e-5):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=tol, atol=tol)


def first_pass_middle(page):
    """The step in the middle of the first backward pass (1-based), or the last step."""
    try:
        first, last = pass_steps(page, 1)
    except AssertionError:
        return step_label(page)[1]
    return (first + last) // 2


def go_to(page, i):
    """Stand at step i (1-based) with Home and ArrowRight."""
    page.keyboard.press("Home")
    for _ in range(i - 1):
        page.keyboard.press("ArrowRight")
    assert step_label(page)[0] == i


def blur(page):
    page.evaluate("document.activeElement && document.activeElement.blur()")


@pytest.fixture
def page(screens):
    """The page at 1280x720 in English, shared by this module's tests (support.Screens): each test
    runs its own program first; console errors fail the test that caused them."""
    for shown in screens.use((1280, 720, "en")):
        yield shown.page


@pytest.fixture
def screen(request, screens):
    yield from screens.use(request.param)


# What is checked of the examples does not depend on the language or on the screen but through the
# words and the room the page has: a laptop in English and a phone in Chinese see both languages and
# both sizes. Each kind of program goes through the page on both: an expression with its inputs, a
# training loop drawn folded, an MLP (its parameters' .grad), a run that stops with an error, and a
# few of the other kinds on one screen each. Every example is run by the API and checked against its
# drawing without a browser (tests/server/test_routes.py), and every frame of each is walked by the
# pure Timeline and Player (tests/js/examples_walk.test.mjs).
EVERY_KIND = ["add-mul", "linear-regression", "mlp", "backward-twice"]
SAMPLES = {
    (1280, 720, "en"): EVERY_KIND + ["forward-reverse", "custom-function", "deep-sigmoid"],
    (390, 844, "zh"): EVERY_KIND + ["accumulation", "hook", "second-derivative", "memory-losses"],
}


@pytest.mark.parametrize("screen", list(SAMPLES), indirect=True, ids=[config_id(c) for c in SAMPLES])
def test_each_kind_of_example_runs_and_steps(screen, server, examples):
    # Each example once through the page: drawn, stepped one frame each way with the keys and the
    # buttons, its .grads at the end equal to the API's, explained in the page's language, no
    # sideways scrolling on a phone; a screenshot in the middle of its first backward pass.
    SHOTS.mkdir(parents=True, exist_ok=True)
    by_id = {ex["id"]: ex for ex in examples}
    page, width, lang = screen.page, screen.width, screen.lang
    for ex in (by_id[i] for i in SAMPLES[(screen.width, screen.height, screen.lang)]):
        pick_example(page, ex["id"])
        expected = example_answer(server, ex)
        if expected.get("error") is None:
            assert page.get_by_test_id("error").is_hidden(), ex["id"]
        else:
            assert expected["error"]["type"] in page.get_by_test_id("error").inner_text(), ex["id"]
        i, n = step_label(page)
        assert 1 <= i <= n, (ex["id"], i, n)
        assert page.get_by_test_id("graph").locator("svg").count() == 1, ex["id"]
        blur(page)
        page.keyboard.press("Home")
        assert step_label(page) == (1, n)
        if n > 1:
            page.keyboard.press("ArrowRight")
            assert step_label(page) == (2, n), ex["id"]
            page.get_by_test_id("step-prev").click()
            assert step_label(page) == (1, n), ex["id"]
            page.get_by_test_id("step-next").click()
            assert step_label(page) == (2, n), ex["id"]
        page.keyboard.press("End")
        assert step_label(page) == (n, n)
        page.keyboard.press("ArrowRight")
        assert step_label(page) == (n, n), "stays at the last step"
        # at the last step each named leaf's .grad equals the API's
        checked = 0
        for name, v in expected["variables"].items():
            if not v["is_leaf"] or v["grad"] is None:
                continue
            assert close(shown_grad(page, name), v["grad"]), (ex["id"], name)
            checked += 1
        # named leaves that are not top-level names (nn.Module parameters): the last .grad written
        # to any node of that name (a training loop makes one node per iteration)
        names = {n["id"]: n.get("var") for n in expected["graph"]["nodes"] if n["kind"] == "leaf"}
        written = {}
        for bp in expected["backward"]:
            for st in bp["steps"]:
                name = names.get(st["node"])
                if st["grad_after"] is not None and name and name not in expected["variables"]:
                    written[name] = st["grad_after"]["data"]
        for name, grad in written.items():
            assert close(shown_grad(page, name), grad), (ex["id"], name)
            checked += 1
        if expected["backward"]:
            assert checked >= 1, ex["id"]
        middle(page)
        if lang == "zh":
            assert re.search(r"[\u4e00-\u9fff]", page.locator("#explain").inner_text()), ex["id"]
        wide = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide[0] <= wide[1], (ex["id"], wide)
        page.screenshot(path=str(SHOTS / f"{ex['id']}-{width}-{lang}.png"), full_page=width < 600)


def middle(page):
    """Stand in the middle of the first backward pass (the pass chooser, then →), or at the end."""
    try:
        first, last = pass_steps(page, 1)
    except AssertionError:
        page.keyboard.press("End")
        return
    page.locator("#chapter").select_option(str(first - 1))
    blur(page)
    for _ in range((last - first) // 2):
        page.keyboard.press("ArrowRight")
    assert step_label(page)[0] == first + (last - first) // 2


def test_logistic_neuron_grads_equal_pytorchs(page):
    import torch

    x = torch.tensor([2.0], requires_grad=True)
    w = torch.tensor([3.0], requires_grad=True)
    b = torch.tensor([1.0], requires_grad=True)
    loss = (torch.sigmoid(x * w + b) - 1.0) ** 2
    loss.backward()
    run_source(page, NEURON)
    assert page.get_by_test_id("error").is_hidden()
    assert "tensor([" in page.get_by_test_id("console").inner_text()
    blur(page)
    page.keyboard.press("End")
    for name, t in (("w", w), ("b", b), ("x", x)):
        assert close(shown_grad(page, name), t.grad.tolist(), 1e-6), name
        assert page.get_by_test_id(f"var-{name}").locator(".v-grad").inner_text() != "None"


def test_a_grad_42_appears_only_at_the_step_that_writes_it(page):
    run_source(page, "(a * b + 1) ** 2")
    row_a = page.get_by_test_id("var-a")
    row_b = page.get_by_test_id("var-b")
    # set a = 2, b = 3 in the expression table: each change re-runs
    for row, value in ((row_a, "2.0"), (row_b, "3.0")):
        with expect_run(page):
            row.locator("input[type=text]").fill(value)
            row.locator("input[type=text]").press("Enter")
    blur(page)
    i, n = step_label(page)
    assert i == 1
    seen = None
    for k in range(1, n + 1):
        if k > 1:
            page.keyboard.press("ArrowRight")
        grad = shown_grad(page, "a")
        if grad is None:
            assert seen is None, "a.grad vanished after it was written"
            assert "42" not in row_a.locator(".v-grad").inner_text()
            continue
        if seen is None:
            seen = k
            explained = page.locator("#explain").inner_text()
            assert "AccumulateGrad: leaf a receives" in explained, "written at a's AccumulateGrad step"
            assert "42" in explained
        assert math.isclose(float(np.asarray(grad).reshape(-1)[0]), 42.0, rel_tol=1e-6)
        assert "42" in row_a.locator(".v-grad").inner_text()
    assert seen is not None and 1 < seen <= n


def test_graph_shows_backward_states_and_freed_graph(page):
    run_source(page, NEURON)
    blur(page)
    page.keyboard.press("Home")
    graph = page.get_by_test_id("graph")
    assert graph.locator("g.node[data-s=hidden]").count() > 0, "forward ops appear one by one"
    go_to(page, pass_steps(page, 1)[0] + 1)
    assert graph.locator("g.node[data-s=cur]").count() == 1
    assert graph.locator("g.node[data-s=done]").count() >= 1
    assert graph.locator("g.edge[data-s=send], g.edge[data-s=carried]").count() >= 1
    assert graph.locator("text.glabel").count() >= 1, "edges that carried a gradient show it"
    page.keyboard.press("End")
    assert graph.locator("g.node[data-s=freed]").count() >= 3, "the pass freed the graph"
    assert "retain_graph" in page.locator("#explain").inner_text()


def test_syntax_error_panel(page):
    run_source(page, "x = torch.tensor([1.0])\ny = (x +\n")
    err = page.get_by_test_id("error")
    assert err.is_visible()
    text = err.inner_text()
    assert "SyntaxError" in text
    assert re.search(r"line \d+, column \d+", text), text
    assert page.locator("#gutter .err").count() == 1


def test_a_run_that_fails_while_a_course_view_is_open(page):
    run_source(page, NEURON)
    heat = page.get_by_test_id("lens-heat")
    if heat.get_attribute("aria-pressed") != "true":  # (an example shown before may have opened it)
        heat.click()
    assert page.get_by_test_id("lens-panel").get_attribute("data-lens") == "heat"
    try:
        run_source(page, "x = torch.tensor([1.0])\ny = (x +\n")  # no page error (the fixture checks)
        assert "SyntaxError" in page.get_by_test_id("error").inner_text()
    finally:
        if heat.get_attribute("aria-pressed") == "true":
            heat.click()


def test_second_backward_error_keeps_first_pass(page):
    run_source(page, TWICE)
    err = page.get_by_test_id("error")
    assert err.is_visible()
    text = err.inner_text()
    assert "RuntimeError" in text and "line 4" in text, text
    assert "backward through the graph a second time" in text
    assert page.locator("#gutter .err").inner_text() == "4"
    blur(page)
    page.keyboard.press("End")
    i, n = step_label(page)
    assert n > 3
    first, last = pass_steps(page, 1)  # the first pass is there to step through
    assert 1 < first < last < n
    assert close(shown_grad(page, "x"), [4.0])


def test_language_toggle_and_memory(browser, server, errors):
    page = new_page(browser, server, errors=errors)
    wait_ready(page)
    run_btn = page.get_by_test_id("run")
    assert run_btn.inner_text() == "Run"
    page.get_by_test_id("lang").click()
    assert run_btn.inner_text() == "运行"
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    options = page.get_by_test_id("examples").locator("option").all_inner_texts()
    assert any(re.search(r"[\u4e00-\u9fff]", o) for o in options)
    page.reload()
    wait_ready(page)
    assert page.get_by_test_id("run").inner_text() == "运行", "the choice is remembered"
    page.get_by_test_id("lang").click()
    assert page.get_by_test_id("run").inner_text() == "Run"
    page.context.close()
    zh = new_page(browser, server, locale="zh-CN", errors=errors)
    wait_ready(zh)
    assert zh.get_by_test_id("run").inner_text() == "运行", "first visit follows the browser"
    zh.context.close()
    assert not [e for e in errors.items if "status of 4" not in e]


def test_share_link_restores_program_and_step(page, browser, server, errors):
    run_source(page, NEURON)
    blur(page)
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    label = step_label(page)
    assert label[0] == 7
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-link").input_value()
    assert "#s=" in link
    other = new_page(browser, server, path=link[len(server):], errors=errors)
    wait_ready(other)
    assert step_label(other) == label
    assert other.get_by_test_id("source").input_value() == NEURON
    other.context.close()
    assert not [e for e in errors.items if "status of 4" not in e]


def test_export_svg_and_png(page, tmp_path):
    run_source(page, NEURON)
    with page.expect_download() as dl:
        page.get_by_test_id("export-svg").click()
    svg = tmp_path / "g.svg"
    dl.value.save_as(svg)
    text = svg.read_text()
    assert len(text) > 500 and "<svg" in text and 'id="n' in text
    with page.expect_download() as dl:
        page.get_by_test_id("export-png").click()
    png = tmp_path / "g.png"
    dl.value.save_as(png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_the_drawings_legend_follows_the_language_into_an_export(page, tmp_path):
    from app.drawing.dot_text import LEGEND

    run_source(page, NEURON)
    legend = 'svg.gv > g > text[font-size="9.00"]'
    assert page.locator(legend).all_text_contents() == [en for _, en, _ in LEGEND]
    page.get_by_test_id("lang").click()
    assert page.locator(legend).all_text_contents() == [zh for _, _, zh in LEGEND]
    with page.expect_download() as dl:
        page.get_by_test_id("export-svg").click()
    dl.value.save_as(tmp_path / "g.svg")
    assert all(f">{zh}</text>" in (tmp_path / "g.svg").read_text() for _, _, zh in LEGEND)
    run_source(page, NEURON.replace("3.0", "4.0"))  # a new drawing is written in the language shown
    assert page.locator(legend).all_text_contents() == [zh for _, _, zh in LEGEND]
    page.get_by_test_id("lang").click()
    assert page.locator(legend).all_text_contents() == [en for _, en, _ in LEGEND]


def test_keyboard_only(page):
    src = page.get_by_test_id("source")
    src.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("x = torch.tensor([1.0], requires_grad=True)\nif True:\n")
    page.keyboard.press("Tab")
    page.keyboard.type("y = (x * 3).sum()\ny.backward()")
    assert "\n    y = (x * 3).sum()" in src.input_value(), "Tab indents"
    with expect_run(page):
        page.keyboard.press("Control+Enter")
    assert page.get_by_test_id("error").is_hidden()
    # Escape, then Tab leaves the editor and reaches the buttons
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") != "source"
    blur(page)
    page.keyboard.press("End")
    _, n = step_label(page)
    assert step_label(page) == (n, n)
    page.keyboard.press("ArrowLeft")
    assert step_label(page) == (n - 1, n)
    page.keyboard.press(" ")
    assert page.get_by_test_id("play").get_attribute("aria-pressed") == "true"
    page.keyboard.press(" ")
    assert page.get_by_test_id("play").get_attribute("aria-pressed") == "false"
    page.get_by_test_id("run").focus()
    with expect_run(page):
        page.keyboard.press("Enter")


def test_play_runs_through_to_the_end(page):
    run_source(page, "x = torch.tensor([1.0], requires_grad=True)\ny = (x * 3).sum()\ny.backward()")
    page.locator("#speed").select_option("8")
    page.get_by_test_id("play").click()
    page.wait_for_function("() => document.querySelector('[data-testid=play]').ariaPressed === 'false'",
                           timeout=20_000)
    i, n = step_label(page)
    assert i == n


# Where the drawing is on screen: its transform (pan and zoom) as the browser applies it.
VIEW = """() => {
  const svg = document.querySelector('[data-testid=graph] svg');
  const m = new DOMMatrix(getComputedStyle(svg).transform);
  return {scale: m.a, x: m.e, y: m.f};
}"""

ALL_IN_VIEW = """() => {
  const host = document.querySelector('[data-testid=graph]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=graph] g.node')].every((g) => {
    const r = g.getBoundingClientRect();
    return r.left >= host.left - 1 && r.right <= host.right + 1
      && r.top >= host.top - 1 && r.bottom <= host.bottom + 1;
  });
}"""


def test_pan_zoom_fit_and_details(page):
    run_source(page, NEURON)
    graph = page.get_by_test_id("graph")
    home = page.evaluate(VIEW)
    box = graph.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -400)
    zoomed = page.evaluate(VIEW)
    assert zoomed["scale"] > home["scale"] * 1.2, "wheel up zooms in"
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 60, box["y"] + box["height"] / 2 + 20, steps=5)
    page.mouse.up()
    dragged = page.evaluate(VIEW)
    assert (dragged["x"], dragged["y"]) != (zoomed["x"], zoomed["y"]), "drag pans"
    assert not page.evaluate(ALL_IN_VIEW)
    page.locator("#fit").click()
    # Fit shows the whole graph while its labels stay readable so (11 px), else a readable part of
    # it beside the overview of the whole
    assert page.evaluate(ALL_IN_VIEW) or page.get_by_test_id("minimap").is_visible()
    assert page.evaluate(VIEW)["scale"] <= home["scale"] + 1e-6
    blur(page)
    page.keyboard.press("End")
    node = graph.locator("g.node").filter(has_text="SigmoidBackward0").first
    node.click()
    details = page.locator("#details").inner_text()
    assert "SigmoidBackward0" in details and "σ" in details
    graph.locator("g.edge").first.dispatch_event("click")
    assert "→" in page.locator("#details").inner_text()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_stops_the_pulse(page, motion):
    page.emulate_media(reduced_motion=motion)
    try:
        pulse_follows_the_motion_setting(page, motion)
    finally:
        page.emulate_media(reduced_motion="no-preference")


def pulse_follows_the_motion_setting(page, motion):
    run_source(page, NEURON)
    blur(page)
    go_to(page, pass_steps(page, 1)[0])
    node = "document.querySelector('[data-testid=graph] g.node[data-s=cur]')"
    name = page.evaluate(f"getComputedStyle({node}).animationName")
    assert name == ("none" if motion == "reduce" else "gv-pulse")
    # the pulse ends by itself (a page left idle does no work) and changes in steps, not every frame
    timing = page.evaluate(f"""(() => {{ const a = {node}.getAnimations()[0];
      return a ? [a.effect.getComputedTiming().iterations, getComputedStyle({node}).animationTimingFunction]
        : null; }})()""")
    if motion == "reduce":
        assert timing is None
    else:
        iterations, easing = timing
        assert 0 < iterations < 100 and easing.startswith("steps("), timing


def test_pinch_zooms(page):
    run_source(page, NEURON)
    before = page.evaluate(VIEW)["scale"]
    page.evaluate("""() => {
      const host = document.querySelector('[data-testid=graph]');
      const r = host.getBoundingClientRect();
      const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
      const ev = (type, id, x) => host.dispatchEvent(new PointerEvent(type, {
        pointerId: id, clientX: x, clientY: cy, bubbles: true, button: 0, pointerType: 'touch' }));
      ev('pointerdown', 11, cx - 20); ev('pointerdown', 12, cx + 20);
      for (let d = 20; d <= 80; d += 10) { ev('pointermove', 11, cx - d); ev('pointermove', 12, cx + d); }
      ev('pointerup', 11, cx - 80); ev('pointerup', 12, cx + 80);
    }""")
    after = page.evaluate(VIEW)["scale"]
    assert after > before / 0.6, "spreading two fingers zooms in"


def test_passes_can_be_chosen_and_grad_grows(page):
    source = ("x = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n"
              "y.backward(retain_graph=True)\ny.backward()\n")
    run_source(page, source)
    assert page.get_by_test_id("error").is_hidden()
    chooser = page.locator("#chapter")
    assert chooser.is_visible()
    options = chooser.locator("option").all_inner_texts()
    assert len(options) == 3, options  # forward, pass 1, pass 2
    chooser.select_option(index=2)
    assert step_label(page)[0] == pass_steps(page, 2)[0] == chapters(page)[2][1]
    assert close(shown_grad(page, "x"), 12.0), "pass 1 wrote 12"
    blur(page)
    page.keyboard.press("End")
    assert close(shown_grad(page, "x"), 24.0), "pass 2 accumulated: 12 + 12"
    assert "x.grad = 24" in page.locator("#explain").inner_text()
    page.keyboard.press("ArrowLeft")
    assert "12 + 12 = 24" in page.locator("#explain").inner_text(), "before + contribution = after"
    chooser.select_option(index=1)
    assert shown_grad(page, "x") is None, "at the start of pass 1 nothing is written yet"


def test_expression_without_values_gets_starting_values(page):
    run_source(page, "(p + q) * r")
    assert page.get_by_test_id("error").is_hidden()
    for name in ("p", "q", "r"):
        assert page.get_by_test_id(f"var-{name}").locator("input[type=text]").input_value() != ""
    blur(page)
    page.keyboard.press("End")
    assert shown_grad(page, "p") is not None, "the expression ran backward from its result"
    # untick requires_grad of r: it re-runs and r gets no .grad
    with expect_run(page):
        page.get_by_test_id("var-r").locator("input[type=checkbox]").uncheck()
    blur(page)
    page.keyboard.press("End")
    assert shown_grad(page, "r") is None
    assert shown_grad(page, "p") is not None


LABEL_OVERLAPS = """() => {
  const host = document.querySelector('[data-testid=graph]');
  const names = [...host.querySelectorAll('g.node:not([data-s=hidden]) text')]
    .map((t) => t.getBoundingClientRect());
  const hits = [];
  for (const lab of host.querySelectorAll('text.glabel')) {
    if (!lab.textContent) continue;
    const r = lab.getBoundingClientRect();
    for (const n of names) {
      const meet = r.left < n.right && r.right > n.left && r.top < n.bottom && r.bottom > n.top;
      if (meet) hits.push(lab.textContent);
    }
  }
  return hits;
}"""


@pytest.mark.parametrize("example", ["vanishing", "accumulation", "neuron", "mlp"])
def test_gradient_labels_do_not_cover_node_names(page, example):
    pick_example(page, example)
    blur(page)
    page.keyboard.press("End")
    go_to(page, first_pass_middle(page))
    assert page.locator("[data-testid=graph] text.glabel").count() >= 1
    hits = page.evaluate(LABEL_OVERLAPS)
    assert hits == [], hits


def test_desktop_page_fits_the_window(page):
    # 1280x720: the three columns fill the window; only panels scroll, never the page
    size = page.evaluate("[document.documentElement.scrollHeight, window.innerHeight]")
    assert size[0] <= size[1], size

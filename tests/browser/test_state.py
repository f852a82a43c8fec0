"""The page never says something about its state that is not so. Each test reproduces a way the page
misled its users (each failed on the page before it was fixed), on every screen in both languages."""

from __future__ import annotations

import re

import httpx
import pytest

from .support import (
    HALF_A,
    HALF_B,
    SHOTS,
    blur,
    chapters,
    expect_event,
    expect_run,
    in_viewport,
    open_page,
    pick_example,
    run_source,
    step_label,
)

pytestmark = pytest.mark.browser

TEXT = {
    "en": {"not_yet": "not created yet", "mine": "My program (draft)", "forward": "Forward pass {n}",
           "backward": "Backward pass {n}", "training": "Training"},
    "zh": {"not_yet": "尚未创建", "mine": "我的程序（草稿）", "forward": "第 {n} 次前向传播",
           "backward": "第 {n} 次反向传播", "training": "训练"},
}
MY_PROGRAM = "w = torch.tensor(5.0, requires_grad=True)\n(w * w).backward()  # my own work\n"


def rows(page) -> list[str]:
    return page.locator("#vars tr[data-testid]").evaluate_all("(rs) => rs.map((r) => r.dataset.testid)")


def count_events(page, name: str) -> None:
    """From now on, count the page's `name` events (read with seen(page, name))."""
    page.evaluate("""(name) => import('/static/js/state.js').then(({ on }) => {
      window.__gvCount = window.__gvCount || {};
      if (window.__gvCount[name] === undefined) on(name, () => { window.__gvCount[name] += 1; });
      window.__gvCount[name] = 0;
    })""", name)


def seen(page, name: str) -> int:
    return page.evaluate("(name) => window.__gvCount[name]", name)


# ---- values of an earlier run leaked into a new program -------------------------------------------
@pytest.mark.screens(HALF_A)
def test_a_program_starts_without_the_last_expressions_inputs(shown):
    page = shown.page
    pick_example(page, "add-mul")  # (a + b) * c with a = 2, b = -3, c = 10
    run_source(page, "y = c * 2\nprint(y)")
    error = page.get_by_test_id("error")
    assert error.is_visible() and "NameError" in error.inner_text() and "'c'" in error.inner_text()
    assert "tensor(20" not in page.get_by_test_id("console").inner_text()
    run_source(page, "x = torch.tensor(1.0)\nprint(x)")
    assert rows(page) == ["var-x"], "the table shows the tensors of this program only"
    # an expression's free names get starting values; values the user set stay with the names
    run_source(page, "(a + b) * c")
    assert rows(page) == ["var-a", "var-b", "var-c"]
    a = page.get_by_test_id("var-a").locator("input[type=text]")
    with expect_run(page):
        a.fill("5")
        a.press("Enter")
    run_source(page, "(a + b) * c * 2")
    assert page.get_by_test_id("var-a").locator("input[type=text]").input_value() == "5"


# ---- "not created yet" for tensors that exist -----------------------------------------------------
@pytest.mark.screens(HALF_B)
def test_named_tensors_exist_once_created(shown):
    page, text = shown.page, TEXT[shown.lang]
    pick_example(page, "accumulation")
    pass2 = next(first for label, first in chapters(page) if label.startswith(text["backward"].format(n=2)))
    page.locator("#chapter").select_option(str(pass2 - 1))
    for name in ("x", "y", "loss"):
        assert text["not_yet"] not in page.get_by_test_id(f"var-{name}").inner_text(), name
    assert "[2, 1]" in page.get_by_test_id("var-x").locator(".v-value").inner_text(), "the second batch's x"
    pick_example(page, "linear-regression")
    blur(page)
    page.keyboard.press("Home")  # zero_grad, before the first forward op: x and y were made on lines 2-3
    assert step_label(page)[0] == 1
    for name in ("x", "y"):
        assert text["not_yet"] not in page.get_by_test_id(f"var-{name}").inner_text(), name
    assert text["not_yet"] in page.get_by_test_id("var-loss").inner_text(), "loss is computed later"


# ---- iteration chips off by one -------------------------------------------------------------------
@pytest.mark.screens(HALF_A)
def test_iteration_chips_choose_their_own_iteration(shown):
    page, text = shown.page, TEXT[shown.lang]
    pick_example(page, "linear-regression")  # 100 iterations; 1-3 and 98-100 keep their graphs
    if shown.wide:
        page.get_by_test_id("tab-training").click()
    for n in (2, 99, 100, 1):
        page.get_by_test_id(f"iter-{n}").click()
        assert page.get_by_test_id("iteration-label").inner_text().startswith(f"{n} / 100"), n
        assert page.get_by_test_id(f"iter-{n}").get_attribute("class") == "chip on"
        chosen = page.locator("#chapter option:checked").inner_text()
        assert chosen == text["forward"].format(n=n), (n, chosen)
    page.get_by_test_id("iter-99").click()
    blur(page)
    for _ in range(12):  # on to the first backward step of that iteration
        if page.locator("#chapter option:checked").inner_text() != text["forward"].format(n=99):
            break
        page.keyboard.press("ArrowRight")
    assert page.locator("#chapter option:checked").inner_text().startswith(text["backward"].format(n=99))
    assert page.get_by_test_id("iteration-label").inner_text().startswith("99 / 100")


# ---- a training example opened on an empty graph --------------------------------------------------
def test_a_training_example_opens_on_its_forward_graph(shown):
    page = shown.page
    pick_example(page, "linear-regression")
    graph = page.get_by_test_id("graph")
    drawn = graph.locator("g.node:not([data-s=hidden])").count()
    assert drawn >= 5, "the first iteration's whole forward graph"
    assert page.get_by_test_id("training").is_visible()
    if shown.wide:
        assert page.get_by_test_id("tab-training").get_attribute("aria-pressed") == "true"


# ---- work lost without warning --------------------------------------------------------------------
@pytest.mark.screens(HALF_B)
def test_own_program_is_kept_as_a_draft(shown, server):
    page, text = shown.page, TEXT[shown.lang]
    pick_example(page, "add-mul")
    page.get_by_test_id("source").fill(MY_PROGRAM)
    chooser = page.get_by_test_id("examples")
    chosen = chooser.locator("option:checked").inner_text()
    assert chosen == text["mine"], "the chooser names the user's program"
    # browsing the closed list with the keyboard opens only the example it stops on
    count_events(page, "run-start")
    with expect_run(page):
        chooser.focus()
        for _ in range(3):
            page.keyboard.press("ArrowDown")
    page.wait_for_timeout(900)  # longer than the page waits for the keys to rest
    assert seen(page, "run-start") == 1
    assert page.get_by_test_id("source").input_value() != MY_PROGRAM
    # the draft is one choice away, and survives a reload
    with expect_run(page):
        chooser.select_option("own")
    assert page.get_by_test_id("source").input_value() == MY_PROGRAM
    # the draft is written to storage a moment after typing
    page.wait_for_function("(text) => localStorage.getItem('gradviz.draft') === text", arg=MY_PROGRAM)
    page.reload()
    page.wait_for_function("() => document.querySelector('main.layout').ariaBusy === 'false'")
    assert page.get_by_test_id("source").input_value() == MY_PROGRAM
    assert chooser.locator("option:checked").inner_text() == text["mine"]
    page.evaluate("localStorage.removeItem('gradviz.draft')")


# ---- icons are pictures, not font glyphs ----------------------------------------------------------
GLYPHS = "▶⏸«»‹›−▸▾⏵⏹"


def test_icons_are_inline_svg(shown):
    page = shown.page
    run_source(page, "x = torch.tensor(1.0, requires_grad=True)\ny = x\nfor i in range(6):\n    y = y * 2\n"
                     "y.backward()\n")
    buttons = page.locator("button").evaluate_all("(bs) => bs.map((b) => b.textContent)")
    assert not [b for b in buttons if any(g in b for g in GLYPHS)], buttons
    play = page.get_by_test_id("play")
    assert play.locator("svg[data-icon=play]").count() == 1
    page.locator("#speed").select_option("0.25")
    blur(page)
    page.keyboard.press("Home")
    play.click()
    assert play.get_attribute("aria-pressed") == "true" and play.locator("svg[data-icon=pause]").count() == 1
    assert play.get_attribute("aria-label")  # named for screen readers, not by a glyph
    play.click()
    assert play.locator("svg[data-icon=play]").count() == 1
    page.locator("#speed").select_option("1")


# ---- "10scalar" and a norm nobody explained -------------------------------------------------------
COLLISIONS = """() => {
  const host = document.querySelector('[data-testid=graph]');
  const visible = (t) => t.textContent && getComputedStyle(t).display !== 'none'
    && t.getBoundingClientRect().width > 0;
  const labels = [...host.querySelectorAll('text.glabel')].filter(visible)
    .map((t) => t.getBoundingClientRect());
  const shapes = [...host.querySelectorAll('g.edge > text')].filter(visible);
  const meet = (l, r) => l.left < r.right && l.right > r.left && l.top < r.bottom && l.bottom > r.top;
  const hits = shapes.filter((s) => labels.some((l) => meet(l, s.getBoundingClientRect())));
  return {hits: hits.map((s) => s.textContent),
          scalars: shapes.filter((s) => s.textContent === 'scalar').length};
}"""


@pytest.mark.screens(HALF_A)
def test_edge_labels_do_not_collide_and_norms_are_explained(shown):
    page = shown.page
    for example in ("add-mul", "neuron", "broadcast"):
        pick_example(page, example)
        blur(page)
        page.keyboard.press("End")
        for _ in range(3):
            page.keyboard.press("ArrowLeft")
        found = page.evaluate(COLLISIONS)
        assert found == {"hits": [], "scalars": 0}, (example, found)
    legend = page.get_by_test_id("legend-norm")
    assert legend.is_visible() and "‖" in legend.inner_text()
    assert page.get_by_test_id("legend-shape").is_visible()


# ---- the sandbox notice ---------------------------------------------------------------------------
SANDBOX_TEXT = {"en": "Sandbox: the OS layer is off on this server (language-only mode)",
                "zh": "沙箱：此服务器未启用操作系统隔离层（仅语言层模式）"}


def health_answer(mode: str, os_layer: bool) -> dict:
    layers = {"language": True, "process": True, "os": os_layer}
    return {"status": "ok", "sandbox": {"mode": mode, "layers": layers}}


@pytest.mark.parametrize("health, shown_notice, lang", [
    (health_answer("language-only", False), True, "en"),
    (health_answer("language-only", False), True, "zh"),
    (health_answer("full", True), False, "zh"),
    ({"status": "ok"}, False, "en"),  # a server that does not say: nothing is claimed
], ids=["os-off-en", "os-off-zh", "full-zh", "unknown-en"])
def test_sandbox_notice(browser, server, errors, health, shown_notice, lang):
    def answer(page):
        page.route("**/api/health", lambda route: route.fulfill(json=health))

    page = open_page(browser, server, lang=lang, errors=errors, before=answer)
    notice = page.get_by_test_id("sandbox-notice")
    page.wait_for_timeout(200)
    assert notice.is_visible() == shown_notice
    if shown_notice:
        assert notice.inner_text().strip() == SANDBOX_TEXT[lang]
        assert notice.get_attribute("role") == "status"
        page.get_by_test_id("lang").click()
        assert notice.inner_text().strip() == SANDBOX_TEXT["zh" if lang == "en" else "en"]
    page.context.close()


# ---- a built MLP: limits, failures, phone, share --------------------------------------------------
def open_builder(page):
    panel = page.get_by_test_id("mlp-panel")
    if panel.get_attribute("open") is None:
        panel.locator("summary").click()


@pytest.mark.screens([(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en")])
def test_mlp_form_takes_its_limits_from_the_server(shown, server):
    page, lang = shown.page, shown.lang
    limits = httpx.get(f"{server}/api/limits", timeout=30).json()
    most = limits["mlp"]["max_steps"][2][0]  # the form's network: two hidden layers, one batch per step
    asked = []

    def note(request):
        asked.append(request.url)

    page.on("request", note)
    try:
        open_builder(page)
        steps = page.get_by_test_id("mlp-steps")
        assert steps.get_attribute("max") == str(most)
        assert str(most) in page.locator("[data-field=steps] .mlp-hint").inner_text()
        points = limits["mlp"]["fields"]["n_points"]["max"]
        assert float(page.get_by_test_id("mlp-n_points").get_attribute("max")) == points
        steps.fill(str(most + 1))
        page.get_by_test_id("build").click()
        status = page.get_by_test_id("mlp-status")
        assert status.get_attribute("data-kind") == "error"
        message = status.inner_text()
    finally:
        page.remove_listener("request", note)
    assert str(most) in message and "limit:" not in message
    assert ("5 s" if lang == "en" else "5 秒") in message, message  # the binding limit, in words
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", message)
    assert in_viewport(page, status), "the message is in view"
    assert not [u for u in asked if u.endswith("/api/mlp/program")], "refused before anything was sent"


@pytest.mark.screens([(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "zh")])
def test_a_failed_build_says_why_in_view(shown):
    page, lang = shown.page, shown.lang
    failure = {"error": {"type": "TimeoutError", "message": "the run took longer than 7 s and was stopped "
                                                             "(limit: timeout_s)", "line": None, "col": None}}
    page.route("**/api/run", lambda route: route.fulfill(status=400, json=failure))
    try:
        open_builder(page)
        page.get_by_test_id("mlp-steps").fill("50")
        with expect_run(page):
            page.get_by_test_id("build").click()
    finally:
        page.unroute("**/api/run")
    box = page.get_by_test_id("train-failure")
    assert box.is_visible() and in_viewport(page, box), box.bounding_box()
    text = box.inner_text()
    assert "(limit: timeout_s)" not in text
    assert ("the time limit of 5 s" if lang == "en" else "时间限制 5 秒") in text, text
    if lang == "zh":
        assert "训练已中止" in text
    assert page.get_by_test_id("mlp-status").get_attribute("data-kind") == "error"


@pytest.mark.screens([(390, 844, "en"), (390, 844, "zh")])
def test_a_phone_shows_what_build_made(shown):
    page, lang = shown.page, shown.lang
    page.evaluate("() => window.scrollTo(0, 0)")  # (where a test before on this page left it)
    open_builder(page)
    page.get_by_test_id("mlp-steps").fill("30")
    with expect_run(page, timeout=120_000):
        page.get_by_test_id("build").click()
    training = page.get_by_test_id("training")
    page.wait_for_timeout(300)
    top = training.bounding_box()["y"]
    assert 0 <= top < 844 / 2, f"the training view starts {top:.0f} px down the screen"
    # the graph is drawn top to bottom on a phone: more of it fits
    graph = page.get_by_test_id("graph")
    graph.scroll_into_view_if_needed()
    fit = page.evaluate("""() => {
      const h = document.querySelector('[data-testid=graph]').getBoundingClientRect();
      return [...document.querySelectorAll('[data-testid=graph] g.node:not([data-s=hidden])')].filter((g) => {
        const r = g.getBoundingClientRect();
        return r.left >= h.left && r.right <= h.right && r.top >= h.top && r.bottom <= h.bottom;
      }).length;
    }""")
    assert fit >= 6, f"only {fit} nodes in view"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"phone-build-{lang}.png"))


@pytest.mark.screens([(1920, 1080, "en"), (390, 844, "zh")])
def test_share_link_of_a_built_mlp_restores_boundary_and_accuracy(shown, browser, server, errors):
    page = shown.page
    open_builder(page)
    page.get_by_test_id("mlp-steps").fill("30")
    with expect_run(page, timeout=120_000):
        page.get_by_test_id("build").click()
    boundary = "() => document.querySelector('[data-testid=boundary]').dataset.step !== undefined"
    page.wait_for_function(boundary, timeout=60_000)
    summary = page.get_by_test_id("train-summary").inner_text()
    assert re.search(r"accuracy|准确率", summary)
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-link").input_value()
    # the link opened in a page of its own, as whoever it was sent to opens it
    other = open_page(browser, server, shown.width, shown.height, shown.lang, errors=errors,
                      path=link[len(server):])
    other.wait_for_function(boundary, timeout=60_000)
    other.wait_for_function("(s) => document.querySelector('[data-testid=train-summary]').textContent === s",
                            arg=summary, timeout=30_000)
    other.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console of the shared link: {real}"


@pytest.mark.screens([(1280, 720, "en")])
def test_level_change_draws_again_without_running(shown):
    page = shown.page
    pick_example(page, "mlp")
    count_events(page, "run-start")
    label = step_label(page)
    with expect_event(page, "relayout"):
        page.get_by_test_id("fold-module").click()
    assert page.locator("[data-testid=graph] svg g.node.part.box").count() >= 2  # fc1 and fc2
    assert seen(page, "run-start") == 0 and step_label(page) == label
    with expect_event(page, "relayout"):  # (later runs on this page would be drawn at Modules)
        page.get_by_test_id("fold-auto").click()

"""The one-file page in Chromium, opened from file:// with no server: each kind of example plays its
whole step-through in both languages, nothing is fetched, and the served page's "Save as HTML" button
writes a file that plays the same run."""

from __future__ import annotations

import pytest
from browser.support import SHOTS, new_page, press_times, run_source, wait_ready
from browser.test_folding import RNN

import gradviz
from app.examples import EXAMPLES

pytestmark = pytest.mark.browser



def open_file(browser, path, width=1280, height=720, lang="en"):
    ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 600,
                              has_touch=width < 600, locale="zh-CN" if lang == "zh" else "en-US",
                              accept_downloads=True)
    page = ctx.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "blob:"))
            else problems.append(f"request: {r.url}"))
    page.goto(path.as_uri())
    wait_ready(page, timeout=30_000)
    page.wait_for_selector("[data-testid=graph] svg")
    return page, problems


def label(page) -> tuple[int, int]:
    i, n = page.get_by_test_id("step-label").inner_text().split("/")
    return int(i), int(n)


# Each kind of program the file must play with no server: an expression with its inputs (written by
# gradviz.render), a training loop drawn folded, an MLP, a run that stops with an error, several
# backward passes, forward mode, and the largest file (the course views' memory example). Every
# example's file is written and read without a browser (test_offline.py), and every frame of each
# example is walked by the pure Timeline and Player (tests/js/examples_walk.test.mjs).
KINDS = ["add-mul", "linear-regression", "mlp", "backward-twice", "accumulation", "forward-reverse",
         "memory-losses"]


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e["id"] in KINDS], ids=lambda e: e["id"])
def test_each_kind_of_example_plays_from_a_file(browser, rendered_examples, example):
    page, problems = open_file(browser, rendered_examples[example["id"]])
    try:
        assert page.get_by_test_id("offline-notice").is_visible()
        assert not page.get_by_test_id("run").is_visible()
        assert page.get_by_test_id("source").input_value() == example["source"]
        first, n = label(page)
        assert n > 1
        # Walk every frame in English (a long training run: the first 40, then the rest by the slider).
        press_times(page, "step-next", min(n - first, 40))
        assert label(page)[0] == first + min(n - first, 40)
        if label(page)[0] < n:
            page.locator("#step-last").click()
        assert label(page) == (n, n)
        assert page.locator("#explain").inner_text().strip()
        # Back a few frames in Chinese: the same run, the page's strings in the other language.
        page.get_by_test_id("lang").click()
        press_times(page, "step-prev", min(n - 1, 3))
        assert label(page)[0] == n - min(n - 1, 3)
        assert "步" in page.locator(".steplabel").inner_text()
        assert "离线副本" in page.get_by_test_id("offline-notice").inner_text()
        assert page.locator("#explain").inner_text().strip()
        assert not problems, problems
    finally:
        page.context.close()


@pytest.fixture(scope="module")
def mlp_files(rendered_examples, tmp_path_factory) -> dict:
    """The mlp example's file by the language it opens in: the English one of every example's, and one
    written for Chinese readers."""
    ex = next(e for e in EXAMPLES if e["id"] == "mlp")
    zh = tmp_path_factory.mktemp("mlp-zh") / "mlp.html"
    gradviz.render(ex["source"], zh, lang="zh")
    return {"en": rendered_examples["mlp"], "zh": zh}


@pytest.mark.parametrize(("width", "height", "lang"), [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"),
                                                       (390, 844, "zh")])
def test_the_file_on_each_screen(browser, mlp_files, width, height, lang):
    page, problems = open_file(browser, mlp_files[lang], width, height, lang)
    try:
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        first, n = label(page)
        press_times(page, "step-next", 14)
        assert label(page)[0] == min(first + 14, n)
        if width < 600:  # a phone draws top to bottom: the drawing comes from the file, not a server
            assert "relayout" not in page.get_by_test_id("console").inner_text()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"offline-{width}x{height}-{lang}.png"))
        assert not problems, problems
    finally:
        page.context.close()


def saved_from_the_served_page(browser, server, path, before) -> int:
    """Do ``before(page)`` on the served page, press Save as HTML, keep the file at ``path``; the
    number of steps the served page had."""
    page = new_page(browser, server)
    wait_ready(page)
    try:
        before(page)
        served_steps = label(page)[1]
        with page.expect_download(timeout=120_000) as dl:
            page.get_by_test_id("export-html").click()
        dl.value.save_as(path)
        return served_steps
    finally:
        page.context.close()


def test_save_as_html_on_the_served_page(browser, server, tmp_path):
    saved = tmp_path / "saved.html"
    served_steps = saved_from_the_served_page(browser, server, saved,
                                              lambda page: page.get_by_test_id("step-next").click())
    offline, problems = open_file(browser, saved)
    try:
        assert label(offline) == (2, served_steps)  # it opens on the step it was saved at
        offline.locator("#step-last").click()
        assert label(offline) == (served_steps, served_steps)
        # asked for before saving (the file has no server to ask): the check by hand and a course view
        check = offline.get_by_test_id("grad-check")
        check.locator(".gc-leaf").first.wait_for()
        assert check.get_by_test_id("gc-verdict").first.inner_text().startswith("✓")
        offline.get_by_test_id("lens-memory").click()
        assert int(offline.get_by_test_id("memory-chart").get_attribute("data-peak")) > 0
        assert '"extras_later":true' not in saved.read_text()
        assert not problems, problems
    finally:
        offline.context.close()


def opens_its_loop(page) -> None:
    """Click the folded loop's box: it opens in place from what the file holds; every step plays."""
    graph = page.get_by_test_id("graph")
    box = graph.locator("g.node.part.box").first
    box.wait_for()
    before = graph.locator("g.node").count()
    box.click()
    graph.locator("g.unit").first.wait_for(timeout=30_000)
    assert graph.locator("g.node").count() > before
    page.locator("#step-last").click()
    i, n = label(page)
    assert i == n and n > 700  # every forward op and backward step of the 120 iterations


def test_a_folded_loop_opens_in_a_file_written_by_gradviz(browser, tmp_path):
    path = tmp_path / "rnn.html"
    gradviz.render(RNN, path)
    page, problems = open_file(browser, path)
    try:
        opens_its_loop(page)
        assert "offline" not in page.get_by_test_id("console").inner_text().lower()
        assert not problems, problems
    finally:
        page.context.close()


def test_a_folded_loop_opens_in_a_file_saved_from_the_served_page(browser, server, tmp_path):
    saved = tmp_path / "saved-rnn.html"
    saved_from_the_served_page(browser, server, saved, lambda page: run_source(page, RNN))
    offline, problems = open_file(browser, saved)
    try:
        opens_its_loop(offline)
        assert not problems, problems
    finally:
        offline.context.close()


LONG_LOOP = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(600):
    h = torch.tanh(h * w)
h.backward()
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_chunk_of_an_opened_loop_opens_in_a_file(browser, tmp_path, lang):
    path = tmp_path / "long-loop.html"
    gradviz.render(LONG_LOOP, path, lang=lang)
    page, problems = open_file(browser, path, lang=lang)
    try:
        graph = page.get_by_test_id("graph")
        graph.locator("g.node.part.box").first.click()  # the loop: its chunks as boxes
        graph.locator("g.unit").first.wait_for(timeout=30_000)
        chunk = graph.locator("g.node.part.box").first
        chunk.wait_for()
        pid = chunk.get_attribute("id")
        chunk.click()
        graph.locator(f"g.unit[data-part={pid}]").wait_for(timeout=30_000)
        console = page.get_by_test_id("console").inner_text()
        assert "offline" not in console.lower() and "离线" not in console
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"offline-chunk-{lang}.png"))
        assert not problems, problems
    finally:
        page.context.close()

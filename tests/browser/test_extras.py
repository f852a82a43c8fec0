"""The check by hand and the course views but the heat come after the run's answer, asked by the page
when it shows them (POST /api/run/extras): a run asks for nothing more until a backward pass has
finished or such a view is opened; meanwhile the panel says it is working them out, and then shows
the numbers a whole answer holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.worker.execute import run_and_serialize

from .support import PAIR_A, run_source
from .test_lenses import page_num

pytestmark = pytest.mark.browser

SCREENS = PAIR_A  # a laptop in English, a phone in Chinese
SHOTS = Path("/tmp/gv/shots/lazy")
RESPONSE = "() => import('/static/js/state.js').then(({ state }) => state.response)"
PROGRAM = """w = torch.tensor([0.5, -1.5], requires_grad=True)
x = torch.tensor([2.0, 1.0])
loss = (torch.tanh(w * x) ** 2).sum()  # {tag}
loss.backward()
"""
INTRO = {"en": "Backward pass 1 is finished", "zh": "第 1 次反向传播已结束"}
PENDING = {"en": "Checking each gradient by hand…", "zh": "正在逐个手算检验梯度…"}
LENS_PENDING = {"en": "Working out this view of the run…", "zh": "正在计算这次运行的这个视图…"}


class Asked:
    """The page's requests for extras; ``hold()`` keeps them waiting until ``release()``."""

    def __init__(self, page):
        self.page, self.urls, self.held = page, [], []
        page.on("request", self._seen)

    def _seen(self, request):
        if request.url.endswith("/api/run/extras"):
            self.urls.append(request.url)

    def hold(self):
        self.page.route("**/api/run/extras", self._hold)

    def _hold(self, route):
        self.held.append(route)

    def release(self):
        for route in self.held:
            route.continue_()
        self.held = []
        self.page.unroute("**/api/run/extras")

    def close(self):
        self.page.remove_listener("request", self._seen)


def numbers(x):
    """``x`` with every number a float (the page's JSON writes 1.0 as 1)."""
    if isinstance(x, dict):
        return {k: numbers(v) for k, v in x.items()}
    if isinstance(x, list):
        return [numbers(v) for v in x]
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else x


def same(a, b) -> bool:
    return json.dumps(numbers(a), sort_keys=True) == json.dumps(numbers(b), sort_keys=True)


def shot(shown, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shown.page.screenshot(path=str(SHOTS / f"{name}-{shown.width}-{shown.lang}.png"))


@pytest.mark.screens(SCREENS)
def test_the_check_by_hand_is_asked_when_a_pass_has_finished(shown):
    page, lang = shown.page, shown.lang
    source = PROGRAM.format(tag=f"check {shown.width} {lang}")
    whole = run_and_serialize(source)["response"]
    asked = Asked(page)
    try:
        run_source(page, source)
        page.keyboard.press("Home")
        resp = page.evaluate(RESPONSE)
        assert resp["extras_later"] is True and "grad_check" not in resp and asked.urls == []
        asked.hold()
        page.locator("#step-last").click()
        panel = page.get_by_test_id("grad-check")
        page.get_by_test_id("gc-pending").wait_for()
        assert INTRO[lang] in panel.inner_text() and PENDING[lang] in panel.inner_text()
        panel.scroll_into_view_if_needed()
        shot(shown, "gradcheck-pending")
        asked.release()
        leaves = panel.locator(".gc-leaf")
        leaves.first.wait_for()
        assert len(asked.urls) == 1
        resp = page.evaluate(RESPONSE)
        assert resp["extras_later"] is False and same(resp["grad_check"], whole["grad_check"])
        (check,) = whole["grad_check"]
        assert leaves.count() == len(check["leaves"]) == 1
        verdict = panel.get_by_test_id("gc-verdict").inner_text()
        assert verdict.startswith("✓")
        text = panel.inner_text()
        grad = check["leaves"][0]["autograd"]["data"]
        assert all(page_num(g) in text for g in grad), (grad, text)
        panel.scroll_into_view_if_needed()
        shot(shown, "gradcheck")
        page.get_by_test_id("step-prev").click()
        page.locator("#step-last").click()
        assert len(asked.urls) == 1  # asked once per answer
    finally:
        asked.close()


@pytest.mark.screens(SCREENS)
def test_a_course_view_is_asked_when_it_is_opened(shown):
    page, lang = shown.page, shown.lang
    source = PROGRAM.format(tag=f"lens {shown.width} {lang}")
    whole = run_and_serialize(source)["response"]
    asked = Asked(page)
    try:
        run_source(page, source)
        page.keyboard.press("Home")
        assert asked.urls == []
        button = page.get_by_test_id("lens-memory")
        assert "unavailable" not in (button.get_attribute("class") or "")
        asked.hold()
        button.click()
        note = page.get_by_test_id("lens-pending")
        note.wait_for()
        assert note.inner_text() == LENS_PENDING[lang]
        page.get_by_test_id("lens-panel").scroll_into_view_if_needed()
        shot(shown, "lens-pending")
        asked.release()
        chart = page.get_by_test_id("memory-chart")
        chart.wait_for()
        assert len(asked.urls) == 1
        mem = whole["lenses"]["memory"]
        assert (chart.get_attribute("data-peak"), chart.get_attribute("data-end")) == (str(mem["peak"]),
                                                                                        str(mem["end"]))
        resp = page.evaluate(RESPONSE)
        for name in ("modes", "orders", "compare", "memory", "heat"):
            assert same(resp["lenses"][name], whole["lenses"][name]), name
        page.get_by_test_id("lens-modes").click()
        page.get_by_test_id("mode-reverse").wait_for()
        page.get_by_test_id("lens-panel").scroll_into_view_if_needed()
        shot(shown, "lens-modes")
        page.get_by_test_id("lens-modes").click()  # closed again
        assert len(asked.urls) == 1
    finally:
        asked.close()

"""The check by hand in a one-file page: after each backward pass the panel shows that pass's
gradients, whether the program ran in this process or in the OS sandbox."""

from __future__ import annotations

import re

import pytest
from browser.support import SHOTS

import gradviz
from package.test_offline_browser import label, open_file

pytestmark = pytest.mark.browser

TWO_PASSES = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
z = (x * 3).sum()
z.backward()
"""

INTRO = {"en": r"Backward pass (\d) is finished", "zh": r"第 (\d) 次反向传播已结束"}


@pytest.mark.parametrize(("sandbox", "lang"), [(False, "en"), (False, "zh"), ("auto", "en")])
def test_the_check_by_hand_shows_each_pass_in_a_file(browser, tmp_path, sandbox, lang):
    path = tmp_path / "two.html"
    gradviz.render(TWO_PASSES, path, lang=lang, sandbox=sandbox)
    page, problems = open_file(browser, path, lang=lang)
    try:
        panel = page.get_by_test_id("grad-check")
        page.locator("#step-last").click()
        panel.wait_for(state="visible")
        text = panel.inner_text()
        assert re.search(INTRO[lang], text).group(1) == "2", text
        assert "[3, 3]" in text  # z's gradient, d(3·x)/dx: the second pass's own, not x.grad's sum
        assert panel.get_by_test_id("gc-verdict").first.inner_text().startswith("✓")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"offline-gradcheck-{lang}-{sandbox}.png"), full_page=True)
        # back through the second pass: the first one's check until the second has finished
        while label(page)[0] > 1 and re.search(INTRO[lang], panel.inner_text()).group(1) == "2":
            page.get_by_test_id("step-prev").click()
        text = panel.inner_text()
        assert re.search(INTRO[lang], text).group(1) == "1", text
        assert "[2, 4]" in text  # y's gradient, 2·x
        assert not problems, problems
    finally:
        page.context.close()

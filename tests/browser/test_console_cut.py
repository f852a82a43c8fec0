"""The console says when the runner cut what a program printed at its limit, in the page's language,
and says nothing once a run printed less."""

from __future__ import annotations

import pytest

from .support import PAIR_A, SHOTS, run_source

pytestmark = pytest.mark.browser


@pytest.mark.screens(PAIR_A)  # the note's words in each language, on a laptop and a phone
def test_the_console_says_the_output_was_cut(shown):
    page = shown.page
    most = page.evaluate("() => fetch('/api/limits').then((r) => r.json())")["run"]["max_output_chars"]
    note = page.get_by_test_id("console-cut")
    # lines of 50,000 characters (a string's own limit is lower than the output's), past the limit
    run_source(page, "import torch\nx = torch.ones(2, requires_grad=True)\n"
                     f"for _ in range({most // 50_000 + 2}):\n    print('ab' * 25_000)\n"
                     "(x * 2).sum().backward()\n")
    assert note.is_visible()
    words = ("Output cut: the program printed more than", "characters") if shown.lang == "en" \
        else ("输出已截断：程序打印了超过", "个字符")
    text = note.inner_text()
    assert all(w in text for w in words) and f"{int(most):,}" in text, text
    printed = page.get_by_test_id("console").inner_text()
    assert printed.startswith("abab") and len(printed) <= most + 1000
    note.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"console-cut-{shown.width}-{shown.lang}.png"))
    run_source(page, "print('short')\n")
    assert not note.is_visible()
    assert page.get_by_test_id("console").inner_text().strip() == "short"

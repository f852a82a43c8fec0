"""Course code on the page: a tensor hook is a step of the backward pass (its node current, its
before and after explained), a program's own autograd.Function is drawn and explained like a built-in
node, and what gradviz does not support says so in the reader's language."""

from __future__ import annotations

import re

import pytest

from .support import PAIR_A, SHOTS, blur, pass_steps, pick_example, run_source, step_label

pytestmark = pytest.mark.browser


def _go_to_step(page, pattern: str) -> None:
    """Step through the first backward pass until the explanation matches ``pattern``."""
    first, last = pass_steps(page, 1)
    page.locator("#chapter").select_option(str(first - 1))
    blur(page)
    for _ in range(last - first + 1):
        if re.search(pattern, page.locator("#explain").inner_text()):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"no step of pass 1 explains {pattern!r}: {page.locator('#explain').inner_text()}")


# What these tests read is said in the page's language and does not depend on the screen: a laptop in
# English and a phone in Chinese (PAIR_A) see both languages and both kinds of screen.
@pytest.mark.screens(PAIR_A)
def test_a_hook_is_a_step_of_the_backward_pass(shown):
    page = shown.page
    pick_example(page, "hook")
    _go_to_step(page, r"the hook double on|上的钩子 double")
    text = page.locator("#explain").inner_text()
    if shown.lang == "en":
        assert "registered it at line 6" in text and "returned a new gradient" in text
    else:
        assert "第 6 行注册" in text and "返回了新的梯度" in text
    assert "[1, 1, 1] → [2, 2, 2]" in text  # what arrived, and what the hook returned
    y_node = page.get_by_test_id("graph").locator('g.node[data-s="cur"]')
    assert y_node.count() == 1 and "MulBackward0" in y_node.text_content()
    i, n = step_label(page)
    page.keyboard.press("ArrowRight")  # y's rules then run on what the hook returned
    assert step_label(page) == (i + 1, n)
    assert re.search(r"MulBackward0", page.locator("#explain").inner_text())
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.keyboard.press("ArrowLeft")
    page.screenshot(path=str(SHOTS / f"hook-step-{shown.width}-{shown.lang}.png"), full_page=shown.phone)


@pytest.mark.screens(PAIR_A)
def test_a_program_s_function_is_a_node_like_the_built_in_ones(shown):
    page = shown.page
    pick_example(page, "custom-function")
    assert "CubeBackward" in page.get_by_test_id("graph").inner_text()
    _go_to_step(page, r"of \d+: CubeBackward|步：CubeBackward")
    text = page.locator("#explain").inner_text()
    assert "Cube.backward" in text and re.search(r"\[3, 12\]", text), text  # its rule, and what it sent x
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"custom-function-{shown.width}-{shown.lang}.png"
    page.screenshot(path=str(shot), full_page=shown.phone)


@pytest.mark.screens(PAIR_A)
def test_what_gradviz_does_not_support_says_so_in_the_reader_s_language(shown):
    page = shown.page
    run_source(page, "x = torch.ones(4)\ny = torch.fft.fft(x)\n")
    error = page.get_by_test_id("error")
    assert error.is_visible()
    assert "not supported in gradviz: torch.fft" in error.inner_text()  # the original, beside a translation
    note = page.get_by_test_id("error-note")
    if shown.lang == "zh":
        assert "gradviz 不支持：torch.fft" in error.inner_text()
        assert "暂不支持" in note.inner_text() and "/ops" in note.inner_text()
    else:
        assert "does not support it yet" in note.inner_text() and "/ops" in note.inner_text()
    run_source(page, "x = torch.ones(2)\ny = x.cuda()\n")
    assert "Torch not compiled with CUDA enabled" in error.inner_text()
    assert re.search(r"torch\.cuda\.is_available\(\)", page.get_by_test_id("error-note").inner_text())
    if shown.lang == "zh":
        assert "CPU" in page.get_by_test_id("error-note").inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"no-gpu-{shown.width}-{shown.lang}.png"), full_page=shown.phone)

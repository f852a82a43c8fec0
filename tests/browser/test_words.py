"""Every word and number the page shows about a step is true, in English and Chinese, at 1280 px: a
Python number is a constant of the formula in the program's order, the loss is named as the program
named it, a guess equal to the answer as shown is right, notes about an op's own arguments stay off
the student's names, the Chinese page has no English words, and the check by hand labels its numbers."""

from __future__ import annotations

import re

import pytest

from .support import blur, every_frame, pick_example, run_source, step_label

pytestmark = pytest.mark.browser

SCREENS = [(1280, 720, "en"), (1280, 720, "zh")]
FOUR_X = """x = torch.tensor(2.0, requires_grad=True)
z = 4 * x
z.backward()
"""


SMALL = """x = torch.tensor(1.0, requires_grad=True)
w = torch.tensor(-0.001822, requires_grad=True)
y = x * w
y.backward()
"""
VERDICT = {"en": ("right", "wrong"), "zh": ("正确", "错误")}


def set_pressed(page, testid: str, on: bool) -> None:
    button = page.get_by_test_id(testid)
    if (button.get_attribute("aria-pressed") == "true") != on:
        button.click()
    assert button.get_attribute("aria-pressed") == str(on).lower()


def en_zh(shown, en: str, zh: str) -> str:
    return zh if shown.lang == "zh" else en


def frame(page, k: int) -> None:
    """Show frame ``k`` (1-based) of the timeline."""
    blur(page)
    page.keyboard.press("Home")
    for _ in range(k - 1):
        page.keyboard.press("ArrowRight")
    assert step_label(page)[0] == k


def step_titled(page, pattern: str) -> str:
    """Step from the first frame until the explanation's title matches ``pattern``; its text."""
    blur(page)
    page.keyboard.press("Home")
    for _ in range(step_label(page)[1]):
        if re.search(pattern, page.locator("#explain h3").inner_text()):
            return page.locator("#explain").inner_text()
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"no step titled {pattern!r}")


def details(page) -> str:
    return page.locator("#details").inner_text()


@pytest.mark.screens(SCREENS)
def test_a_number_is_a_constant_written_in_the_programs_order(shown):
    page = shown.page
    run_source(page, FOUR_X)
    text = step_titled(page, r"MulBackward0")  # the forward op
    assert "z = 4 · x" in text and "x · 4" not in text
    assert not re.search(r"(^|\n)4 = 4", text)  # not listed among the inputs
    assert "∂z/∂4" not in details(page)
    text = step_titled(page, r"(Backward pass|反向传播).*MulBackward0")
    assert "∂z/∂x = 4" in text and "G·4" in text
    assert en_zh(shown, "Input 2", "输入 2") not in text  # not "Input 2 (4) needs no gradient"
    assert not re.search(r"(^|\n)4 = 4", text)  # not among the values the rule reads
    assert "∂z/∂4" not in details(page) and "∂z/∂4" not in text


@pytest.mark.screens(SCREENS)
def test_an_expression_names_its_output_as_the_page_does_never_L(shown):
    page = shown.page
    pick_example(page, "add-mul")
    frames = every_frame(page)
    said = "\n".join(frames)
    assert "∂L" not in said
    assert "G = ∂v/∂v = 1" in said and "G = ∂v/∂c" in said
    page.locator("#gradcheck .gc-leaf").first.wait_for()  # asked for once a pass has finished
    assert "∂L" not in page.locator("#gradcheck").inner_text()
    assert "∂v/∂c = a + b" in page.locator("#gradcheck").inner_text()


@pytest.mark.screens(SCREENS)
def test_a_guess_typed_as_the_page_shows_the_answer_is_right(shown):
    page = shown.page
    right, wrong = VERDICT[shown.lang]
    set_pressed(page, "present", False)
    run_source(page, SMALL)
    set_pressed(page, "present", True)
    set_pressed(page, "predict", True)
    try:
        frame(page, 2)  # MulBackward0 sends w = -0.001822 to x and x = 1 to w
        page.get_by_test_id("guess-0").fill("-0.0018")
        page.get_by_test_id("guess-1").fill("1")
        page.get_by_test_id("reveal").click()
        answers = page.get_by_test_id("predict-panel").inner_text()
        assert "-0.001822" in answers and "-0.0018]" not in answers, answers  # the digits it judges by
        assert page.get_by_test_id("verdict-0").inner_text().strip() == wrong  # 1.2 % off
        blur(page)
        page.keyboard.press("ArrowRight")  # x's .grad: the sum the page showed one step before
        shown_g = page.locator("#explain .valbox .val").first.inner_text().strip()
        page.get_by_test_id("guess-0").fill(shown_g)
        page.get_by_test_id("guess-0").press("Enter")
        assert page.get_by_test_id("verdict-0").inner_text().strip() == right, shown_g
    finally:
        set_pressed(page, "predict", False)
        set_pressed(page, "present", False)


@pytest.mark.screens(SCREENS)
def test_a_students_w_gets_no_note_about_a_weight_argument(shown):
    page = shown.page
    run_source(page, "x = torch.tensor(2.0, requires_grad=True)\nw = torch.tensor(3.0, requires_grad=True)\n"
                     "y = w * w + x * w\ny.backward()\n")
    said = "\n".join(every_frame(page))
    assert "w = 3" in said
    assert "weight" not in said and "参数" not in said


@pytest.mark.screens([(1280, 720, "zh")])
def test_an_ops_arguments_are_named_in_chinese_on_the_chinese_page(shown):
    page = shown.page
    run_source(page, "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x ** 3).sum()\ny.backward()\n")
    said = "\n".join(every_frame(page))
    assert "指数 = 3" in said and "形状 = [2]" in said
    assert "exponent =" not in said and "shape =" not in said


@pytest.mark.screens(SCREENS)
def test_cross_entropy_shows_python_values_and_no_internal_names(shown):
    page = shown.page
    run_source(page, "import torch.nn.functional as F\n"
                     "x = torch.tensor([[1.0, 2.0, 0.5]], requires_grad=True)\n"
                     "loss = F.cross_entropy(x, torch.tensor([1]))\nloss.backward()\n")
    said = "\n".join(every_frame(page))
    assert "null" not in said and "coef" not in said
    assert en_zh(shown, "weight = None", "权重 = None") in said and "G / Σw·c" in said


@pytest.mark.screens(SCREENS)
def test_the_check_by_hand_labels_its_numbers_and_brackets_only_operands(shown):
    page = shown.page
    pick_example(page, "add-mul")
    said = "\n".join(every_frame(page))
    assert "G·u = 1 · (-1) = -1" in said  # a negative operand is bracketed, the result is not
    page.locator("#gradcheck .gc-leaf").first.wait_for()  # asked for once a pass has finished
    check = page.locator("#gradcheck").inner_text()
    assert "= 2 + (−3) = −1" in check and "= (−1)" not in check
    assert en_zh(shown, "its relative error against autograd: 0", "它与 autograd 的相对误差：0") in check
    run_source(page, "x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)\n"
                     "y = x * 1e-13\ny.backward()\n")
    blur(page)
    page.keyboard.press("End")
    note = page.get_by_test_id("gc-below")
    note.wait_for()
    assert note.is_visible() and "float64" in note.inner_text()


@pytest.mark.screens([(1280, 720, "en")])
def test_course_view_examples_open_on_the_step_explanation(shown):
    page = shown.page
    for example in ("memory-backward", "memory-losses", "new-graph"):
        pick_example(page, example)
        if page.get_by_test_id("tab-step").is_visible():
            assert page.get_by_test_id("tab-step").get_attribute("aria-pressed") == "true", example
        assert page.locator("#explain").is_visible(), example

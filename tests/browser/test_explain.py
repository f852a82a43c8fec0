"""What a student reads in the step explanation and the check-by-hand panel, at 1280 px and 390 px, in
English and Chinese: a matrix product as a product with shapes, the sum over broadcast dims, a mean's
÷ n, labels that tell same-named nodes apart (the same on the drawing), the expression a forward step
ran, the three-way check of a finished pass, and an unsupported op that is not a typo."""

from __future__ import annotations

import re

import pytest

from .support import PAIR_A, SHOTS, blur, pick_example, run_source, step_label

pytestmark = pytest.mark.browser

# What a student reads does not depend on the screen but through the room the panel has: a laptop in
# English and a phone in Chinese see both languages and both sizes.
SCREENS = PAIR_A
MATMUL = """A = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
B = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
C = A @ B
loss = (C * C).sum()
loss.backward()
"""
BACKWARD = r"(Backward pass|反向传播).*"
MEAN = """x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
m = x.mean()
m.backward()
"""


def explained(page) -> str:
    return page.locator("#explain").inner_text()


def step_until(page, pattern: str) -> str:
    """Step from the first frame until the explanation's title matches ``pattern``; its text."""
    blur(page)
    page.keyboard.press("Home")
    total = step_label(page)[1]
    for _ in range(total):
        if re.search(pattern, page.locator("#explain h3").inner_text()):
            return explained(page)
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"no step titled {pattern!r}")


def en_zh(shown, en: str, zh: str) -> str:
    return zh if shown.lang == "zh" else en


def shoot(shown, name: str, testid: str | None = None) -> None:
    """A picture of the explanation panel (or of the element ``testid``) as the student sees it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    target = shown.page.get_by_test_id(testid) if testid else shown.page.locator("#explain")
    target.scroll_into_view_if_needed()
    target.screenshot(path=str(SHOTS / f"explain-{name}-{shown.width}-{shown.lang}.png"))


@pytest.mark.screens(SCREENS)
def test_a_matrix_product_is_a_product_with_shapes(shown):
    page = shown.page
    run_source(page, MATMUL)
    text = step_until(page, BACKWARD + "MmBackward0")
    assert "∂loss/∂A = G · Bᵀ" in text and "∂loss/∂B = Aᵀ · G" in text
    assert "G [2×2] · Bᵀ [2×2] = [[9, 2], [19, 2]] · [[0.5, 2], [-1, 1]] = [[2.5, 20], [7.5, 40]]" in text
    assert "⊙" not in text  # no element-wise product with an invented matrix
    assert en_zh(shown, "Input 1 (A):", "输入 1（A）：") in text
    if shown.lang == "zh":
        for english in ("Input", "Gradient sent", "with the values", "Upstream"):
            assert english not in text, english
    shoot(shown, "matmul")


@pytest.mark.screens(SCREENS)
def test_a_broadcast_input_is_summed_back_and_says_so(shown):
    page = shown.page
    pick_example(page, "broadcast")
    text = step_until(page, BACKWARD + "AddBackward0")
    en = "b was broadcast from [3] to [2, 3] in the forward pass, so its gradient is summed over dim 0"
    said = en_zh(shown, en, "前向传播时 b 从 [3] 广播到 [2, 3]，所以它的梯度在第 0 维上求和")
    assert said in text
    worked = en_zh(shown, "G summed over dim 0: [2, 3] → [3] =", "G 在第 0 维上求和：[2, 3] → [3] =")
    assert re.search(re.escape(worked) + r"\s*\[2, 2, 2\]", text)
    shoot(shown, "broadcast")


@pytest.mark.screens(SCREENS)
def test_a_sum_times_a_tensor_is_explained_in_the_students_names(shown):
    """(a + b) * c with a = 2, b = −3, c = 10: the product's rules read u = a + b, not the rule's letters."""
    page = shown.page
    pick_example(page, "add-mul")
    text = step_until(page, BACKWARD + "MulBackward0")
    assert "u = a + b" in text, text  # what the name in the rules stands for
    assert re.search(r"∂\w+/∂u = c", text) and re.search(r"∂\w+/∂c = u", text), text
    assert re.search(r"c = 10\b", text) and re.search(r"u = -1\b", text), text  # the saved values, same names
    assert "a = -1" not in text and "b = 10" not in text  # the old clash of letters
    assert "G·c" in text and "G·u" in text
    shoot(shown, "add-mul")


@pytest.mark.screens(SCREENS)
def test_a_mean_shows_its_division_by_n(shown):
    page = shown.page
    run_source(page, MEAN)
    text = step_until(page, BACKWARD + "MeanBackward0")
    assert "∂m/∂x = G / n" in text and "n = 6" in text and "G / n = 1 / 6 = 0.1667" in text
    assert en_zh(shown, "copied to every element of [2, 3]", "复制到 [2, 3] 的每个元素") in text


@pytest.mark.screens(SCREENS)
def test_same_named_nodes_are_told_apart_in_text_and_drawing(shown):
    page = shown.page
    pick_example(page, "fan-out")
    text = step_until(page, BACKWARD + "[:：] ?x$")  # x's AccumulateGrad step, after the fan-out sum
    assert "MulBackward0 #1" in text and "MulBackward0 #2" in text
    assert en_zh(shown, "x was used 3 times", "x 被使用了 3 次") in text
    texts = page.get_by_test_id("graph").locator("svg text")
    drawn = texts.evaluate_all("(t) => t.map((e) => e.textContent)")
    assert "MulBackward0 #1" in drawn and "MulBackward0 #2" in drawn
    text = step_until(page, BACKWARD + "MulBackward0 #1")
    assert text.count(en_zh(shown, "Gradient sent down to x:", "传给 x 的梯度：")) == 2
    assert en_zh(shown, "Input 2 (x):", "输入 2（x）：") in text


@pytest.mark.screens(SCREENS)
def test_a_forward_step_names_the_expression_and_its_grad_fn(shown):
    page = shown.page
    pick_example(page, "neuron")
    text = step_until(page, r"(Forward|前向).*MulBackward0")
    assert en_zh(shown, "Python ran x * w and recorded MulBackward0 as its grad_fn.",
                 "Python 执行了 x * w，并记录了 MulBackward0 作为它的 grad_fn。") in text
    assert "z = x · w" not in text  # the product is not z: z = x * w + b
    assert en_zh(shown, "It computes u = x · w", "它计算 u = x · w") in text


@pytest.mark.screens(SCREENS)
def test_the_check_by_hand_after_a_pass(shown):
    page = shown.page
    pick_example(page, "neuron")
    blur(page)
    page.keyboard.press("Home")
    panel = page.get_by_test_id("grad-check")
    assert not panel.is_visible(), "no check before the pass has finished"
    page.keyboard.press("End")
    panel.wait_for(state="visible")
    panel.locator(".gc-leaf").first.wait_for()  # the checks are asked for once a pass has finished
    text = panel.inner_text()
    assert en_zh(shown, "finite difference (float64)", "有限差分（float64）") in text
    assert "∂loss/∂w = 2(a − 1)·σ(z)(1 − σ(z))·x" in text  # the loss by its own name
    leaves = panel.locator(".gc-leaf")
    assert leaves.count() == 3
    verdicts = panel.get_by_test_id("gc-verdict").all_inner_texts()
    assert len(verdicts) == 3, verdicts
    assert all(v.startswith("✓") and v.endswith("< 1e−3") for v in verdicts), verdicts
    green = panel.get_by_test_id("gc-verdict").first.evaluate("(e) => getComputedStyle(e).color")
    assert green == "rgb(22, 101, 52)"
    why = en_zh(shown, "float32 keeps only about 7 significant digits", "float32 只有大约 7 位有效数字")
    assert why in text
    box = panel.bounding_box()
    assert box and box["width"] <= shown.width


@pytest.mark.screens(SCREENS)
def test_an_unsupported_op_says_so_and_where_the_list_is(shown):
    page = shown.page
    run_source(page, "x = torch.ones(2, 2)\ny = torch.linalg.inv(x)\n")
    err = page.get_by_test_id("error")
    text = err.inner_text()
    said = en_zh(shown, "not supported in gradviz: torch.linalg.inv", "gradviz 不支持：torch.linalg.inv")
    assert said in text
    assert en_zh(shown, "PyTorch has this, but gradviz does not support it yet",
                 "PyTorch 有这个功能，但 gradviz 暂不支持") in text
    link = err.get_by_test_id("ops-link")
    assert link.get_attribute("href") == f"/ops?lang={shown.lang}"
    if shown.lang == "zh":
        assert "not supported in gradviz: torch.linalg.inv" in text  # the original beside the translation
    shoot(shown, "unsupported", "error")


@pytest.mark.screens(SCREENS)
def test_pytorchs_own_error_stays_verbatim_with_a_sentence(shown):
    page = shown.page
    pick_example(page, "backward-twice")
    text = page.get_by_test_id("error").inner_text()
    assert "Trying to backward through the graph a second time" in text
    note = en_zh(shown, "call backward(retain_graph=True) the first time",
                 "第一次调用时要写 backward(retain_graph=True)")
    assert note in text
    blur(page)
    page.keyboard.press("End")  # the frame of the error: the explanation panel says it too
    panel = explained(page)
    assert "Trying to backward through the graph a second time" in panel and note in panel, panel
    shoot(shown, "error")

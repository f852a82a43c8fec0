"""Stepping through a node with several outputs: ``a, b, c = p`` makes one UnbindBackward0 (as in
PyTorch), and its backward step says which output each arriving gradient belongs to, that the output
no gradient reached counts as zeros, and the gradient of the whole they make, in English and Chinese,
on a laptop and a phone (screenshots in tests/screenshots/page/)."""

from __future__ import annotations

import re

import pytest

from .support import PAIR_A, SHOTS, run_source
from .test_explain import BACKWARD, en_zh, shoot, step_until

pytestmark = pytest.mark.browser

SCREENS = PAIR_A  # a laptop in English, a phone in Chinese
UNPACKED = """p = torch.tensor([2.0, -1.0, 3.0], requires_grad=True)
a, b, c = p
loss = a * c + 2 * c
loss.backward()
"""


@pytest.mark.screens(SCREENS)
def test_an_unpacked_tensor_is_one_node_whose_step_names_each_output(shown):
    page = shown.page
    run_source(page, UNPACKED)
    drawn = page.locator("[data-testid=graph] svg.gv").first.text_content()
    assert drawn.count("UnbindBackward0") == 1 and "SelectBackward0" not in drawn
    forward = step_until(page, r"(Forward|前向).*MulBackward0 #1")
    # the product's inputs are the pieces, each with its own value
    assert re.search(r"\ba = 2\b", forward) and re.search(r"\bc = 3\b", forward), forward
    product = step_until(page, BACKWARD + r"MulBackward0 #1")
    # each piece is read by its own name in the product's rules
    assert re.search(r"∂\w+/∂a = c", product) and re.search(r"∂\w+/∂c = a", product), product
    text = step_until(page, BACKWARD + "UnbindBackward0")
    assert "a, b, c = p.unbind(0)" in text, text
    said = en_zh(shown, "UnbindBackward0 (a, b, c) has 3 outputs", "UnbindBackward0 (a, b, c) 有 3 个输出")
    assert said in text, text
    # a's gradient is c = 3; c's comes from both of its uses (a = 2, and 2); b was never used
    def came(value, label, i):
        return en_zh(shown, rf"{value} \(from {re.escape(label)}, input {i}\)",
                     rf"{value}\s*（来自 {re.escape(label)} 的第 {i} 个输入）")

    output = en_zh(shown, "output {}:", "输出 {}：")
    out0 = re.escape(output.format(0)) + r"\s*" + came(3, "MulBackward0 #1 (u)", 1) + r"\n"
    out2 = (re.escape(output.format(2)) + r"\s*" + came(2, "MulBackward0 #2 (v)", 1) + r"\s*\+\s*"
            + came(2, "MulBackward0 #1 (u)", 2))
    assert re.search(out0, text) and re.search(out2, text), text
    assert en_zh(shown, "output 1: zeros (no gradient reached it)", "输出 1：全零（没有梯度到达）") in text
    joined = en_zh(shown, "Stacked along dim 0, they make the gradient of the whole, G =",
                   "沿第 0 维堆叠起来，就是整体的梯度 G =")
    assert re.search(re.escape(joined) + r"\s*\[3, 0, 4\]", text), text
    shoot(shown, "unbind")
    # the named tensors panel shows each piece's own value, not the whole p
    row_a = page.get_by_test_id("var-a").inner_text()
    assert "[2, -1, 3]" not in row_a and "2" in row_a, row_a


def _page_shot(shown, name: str) -> None:
    """The whole page as the student sees it now (tests/screenshots/page/, git-ignored)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    shown.page.screenshot(path=str(SHOTS / f"page-{name}-{shown.width}x{shown.height}-{shown.lang}.png"))


@pytest.mark.screens(SCREENS)
def test_each_edge_out_of_the_unbind_says_which_output_it_carries(shown):
    """torch's next_functions pair each input with the output it reads: (UnbindBackward0, 2) for c.
    The drawing writes that number on each edge out of the node, and a step sending a gradient to
    one says which output it goes to, in the page's language."""
    page = shown.page
    run_source(page, UNPACKED)
    word = en_zh(shown, "output", "输出")
    labels = page.locator("[data-testid=graph] svg.gv g.edge > text").all_text_contents()
    outputs = sorted(t for t in labels if t.startswith(word))
    # a is read once (output 0), c twice (output 2, by u and by v); b is read by nothing
    assert outputs == [f"{word} 0", f"{word} 2", f"{word} 2"], labels
    product = step_until(page, BACKWARD + r"MulBackward0 #1")
    sent = en_zh(shown, "Gradient sent down to c (output 2 of UnbindBackward0):",
                 "传给 c (UnbindBackward0 的输出 2) 的梯度：")
    assert sent in product, product
    assert re.search(en_zh(shown, r"Input 2 \(c\)", r"输入 2（c）"), product), product  # not (a, b, c)
    _page_shot(shown, "unbind-edges")


VIEW_CHANGED = """x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
h = x * 2
v = h[1:3]
v.mul_(w)
loss = (h * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum()
loss.backward()
"""


@pytest.mark.screens(SCREENS)
def test_an_in_place_op_on_a_view_is_one_copy_slices_step_as_in_torch(shown):
    """``v.mul_(w)`` on a view of h: torch's backward runs one CopySlices node, which runs
    MulBackward0's rules at the written part; the step says so and sends to h's history and to w."""
    page = shown.page
    run_source(page, VIEW_CHANGED)
    text = step_until(page, BACKWARD + "CopySlices")
    said = en_zh(shown, "CopySlices: the in-place MulBackward0 wrote h[[1, 2]].",
                 "CopySlices：原地的 MulBackward0 写入了 h[[1, 2]]。")
    assert said in text, text
    assert en_zh(shown, "Gradient sent down to w:", "传给 w 的梯度：") in text, text
    assert "[8, 18]" in text and "[1, 1, -3, 4]" in text, text  # torch's w.grad; h's gradient
    _page_shot(shown, "copy-slices-step")
    titles = []
    page.keyboard.press("Home")
    for _ in range(40):
        titles.append(page.locator("#explain h3").inner_text())
        page.keyboard.press("ArrowRight")
    backward = [t for t in titles if re.search(BACKWARD, t)]
    assert not any("SliceBackward0" in t for t in backward), backward  # the view's node runs no step

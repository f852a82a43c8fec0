"""Stepping through a node with several outputs: ``a, b, c = p`` makes one UnbindBackward0 (as in
PyTorch), and its backward step says which output each arriving gradient belongs to, that the output
no gradient reached counts as zeros, and the gradient of the whole they make, in English and Chinese,
on a laptop and a phone (screenshots in tests/screenshots/page/)."""

from __future__ import annotations

import re

import pytest

from .support import PAIR_A, run_source
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

"""More of what the page says, checked as a student meets it: a node's shape is written in the
page's language (the drawing's layout staying the same), no gradient label on an edge is cut off
by the drawing's edge, a step after a tensor hook that changed the gradient says which value is
the hook's, and the end of an autograd.grad(..., create_graph=True) pass says why its graph is
kept."""

from __future__ import annotations

import re

import pytest

from .support import CONFIGS, HALF_A, blur, every_frame, pick_example, run_source, step_label

pytestmark = pytest.mark.browser

NODE_TEXTS = """() => [...document.querySelectorAll('[data-testid=graph] svg.gv g.node > text')]
  .map((tx) => tx.textContent)"""
NODE_SHAPES = """() => [...document.querySelectorAll(
  '[data-testid=graph] svg.gv g.node > :is(ellipse, polygon)')]
  .map((el) => el.getAttribute('points') || `${el.getAttribute('cx')},${el.getAttribute('cy')}`)"""
SCALAR = {"en": "scalar", "zh": "标量"}


@pytest.mark.screens([(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "zh")])
def test_a_nodes_shape_is_written_in_the_pages_language(shown):
    page = shown.page
    other = "en" if shown.lang == "zh" else "zh"
    pick_example(page, "add-mul")  # a, b, c and the ops: all 0-d tensors
    shapes = page.evaluate(NODE_SHAPES)
    for k, lang in enumerate((shown.lang, other, shown.lang)):
        if k:
            page.get_by_test_id("lang").click()
        texts = page.evaluate(NODE_TEXTS)
        word, foreign = SCALAR[lang], SCALAR["zh" if lang == "en" else "en"]
        assert word in texts and "u: " + word in texts, (lang, texts)
        assert not any(foreign in tx for tx in texts), (lang, texts)
        assert page.evaluate(NODE_SHAPES) == shapes  # the same layout in either language


# A gradient label cut off at the drawing's edge: partly inside the graph's box, partly outside.
CUT_LABELS = """() => {
  const host = document.querySelector('[data-testid=graph]').getBoundingClientRect();
  const cut = [];
  for (const tx of document.querySelectorAll('[data-testid=graph] text.glabel')) {
    if (!tx.textContent) continue;
    const b = tx.getBoundingClientRect();
    const inside = b.left >= host.left - 0.5 && b.right <= host.right + 0.5 && b.top >= host.top - 0.5
      && b.bottom <= host.bottom + 0.5;
    const apart = b.right <= host.left || b.left >= host.right || b.bottom <= host.top
      || b.top >= host.bottom;
    if (!inside && !apart) cut.push(tx.textContent);
  }
  return cut;
}"""
SETTLED = """() => { const s = document.querySelector('[data-testid=graph] svg.gv');
  return !!s && !s.style.transition; }"""


@pytest.mark.screens(CONFIGS)
def test_no_gradient_label_is_cut_off_at_the_drawings_edge(shown):
    page = shown.page
    for example in ("forward-reverse", "memory-backward"):
        pick_example(page, example)
        blur(page)
        page.keyboard.press("Home")
        for k in range(step_label(page)[1]):
            page.wait_for_function(SETTLED)  # a pan that follows the step has ended
            assert page.evaluate(CUT_LABELS) == [], (example, k + 1)
            page.keyboard.press("ArrowRight")


def number(text: str) -> float:
    return float(text.replace("−", "-"))


# c = 2 b², b = a²; a hook on b adds 1 to the gradient reaching it; one on a triples it.
A = 3.0
HOOKED = f"""a = torch.tensor({A}, requires_grad=True)
b = a * a
c = b * b * 2
b.register_hook(lambda g: g + 1)
a.register_hook(lambda g: g * 3)
c.backward()
"""


@pytest.mark.screens(HALF_A)
def test_a_step_after_a_hook_says_which_gradient_is_the_hooks(shown):
    page = shown.page
    run_source(page, HOOKED)
    b = A * A
    dc_db = 4 * b  # what reaches b: ∂c/∂b, summed over its two uses in b * b
    g_b = dc_db + 1  # what b's hook returned
    dc_da = g_b * 2 * A  # what reaches a (through the hooked gradient of b)
    g_a = dc_da * 3
    said = every_frame(page)
    steps = [f for f in said if re.match(r"Backward pass \d|第 \d+ 次反向传播，", f)]
    step_b = next(f for f in steps if f.split("\n")[0].endswith("MulBackward0 #1 (b)"))
    # the sum of what came back from b's two uses is ∂c/∂b, not G
    line = next(ln for ln in step_b.split("\n") if " + " in ln and "=" in ln)
    terms = re.findall(r"(-?[\d.]+) [(（]", line)
    assert sum(map(number, terms)) == dc_db and line.endswith(f"= ∂c/∂b = {dc_db:g}"), line
    assert f"G = {g_b:g}" not in line
    hooked = step_b.split(line, 1)[1]
    assert re.search(rf"\bG\b[^\n]*\n+{g_b:g}\n", hooked), hooked  # the hook's value, said to be G
    assert f"G·a = {g_b:g} · {A:g} = {g_b * A:g}" in step_b  # the rules work on the hook's value
    step_a = next(f for f in steps if re.search(r"(: |：)a$", f.split("\n")[0]))
    # what reaches a went through b's hook: it is not called ∂c/∂a (that would be 2·b·2a = 216)
    line = next(ln for ln in step_a.split("\n") if " + " in ln and "=" in ln)
    terms = re.findall(r"(-?[\d.]+) [(（]", line)
    assert sum(map(number, terms)) == dc_da and line.endswith(f" = {dc_da:g}") and "∂" not in line, line
    assert re.search(r"not ∂c/∂a|不是 ∂c/∂a", step_a), step_a
    assert f"None + {g_a:g} = {g_a:g}" in step_a  # .grad gets what a's hook returned
    assert not re.search(r"∂c/∂a = \d", "\n".join(said))


SECOND = """x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x, create_graph=True)
g.backward()
"""


@pytest.mark.screens(HALF_A)
def test_a_graph_kept_by_create_graph_says_why(shown):
    page = shown.page
    run_source(page, SECOND)
    said = every_frame(page)
    first_end = next(f for f in said if re.match(r"Backward pass 1 is finished|第 1 次反向传播结束", f))
    assert "create_graph=True" in first_end and "retain_graph" in first_end
    assert not first_end.strip().split("\n")[-1].startswith("retain_graph=True")  # not what the program wrote
    last_end = next(f for f in said if re.match(r"Backward pass 2 is finished|第 2 次反向传播结束", f))
    assert "create_graph" not in last_end

"""The MLP builder and the training view in a real browser, against the real server (the server
and browser fixtures of tests/browser/conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser.support import expect_event, expect_run, new_page, wait_ready

SHOTS = Path(__file__).resolve().parents[1] / "screenshots" / "mlp"  # git-ignored

pytestmark = pytest.mark.browser


def open_builder(page):
    panel = page.get_by_test_id("mlp-panel")
    if panel.get_attribute("open") is None:
        panel.locator("summary").click()
    return page.get_by_test_id("mlp-builder")


def build(page, **fields):
    """Fill the form (field name → value) and press Build; wait for the training run."""
    form = open_builder(page)
    for name, value in fields.items():
        el = page.get_by_test_id(f"mlp-{name}")
        tag = el.evaluate("e => e.tagName")
        if tag == "SELECT":
            el.select_option(str(value))
        elif el.get_attribute("type") == "checkbox":
            el.set_checked(bool(value))
        else:
            el.fill(str(value))
    with expect_run(page, timeout=120_000):
        form.get_by_test_id("build").click()


def frame_info(page):
    """What the step explanation says the current frame is: a forward op, or step i of pass n."""
    text = page.locator("#explain").inner_text()
    m = re.search(r"Backward pass (\d+), step (\d+) of", text)
    if m:
        return {"kind": "step", "pass": int(m.group(1)) - 1}
    return {"kind": "op" if text.startswith("Forward:") else "other", "pass": None}


# Press "next step" until the explanation is a backward step (at most n presses, one per drawn frame).
STEP_UNTIL_BACKWARD = """async (n) => {
  const next = document.querySelector('[data-testid=step-next]');
  const said = () => document.querySelector('#explain').innerText;
  for (let i = 0; i < n && !/Backward pass \\d+, step \\d+ of/.test(said()); i++) {
    next.click();
    await new Promise((done) => requestAnimationFrame(() => done()));
  }
}"""


def module_boxes(page) -> int:
    return page.locator("[data-testid=graph] svg g.node.part.box").count()


def test_build_train_inspect_and_fold(browser, server, errors):
    page = new_page(browser, server, errors=errors)
    wait_ready(page)
    build(page, dataset="moons", hidden="8, 8", steps=60, activation="relu")

    # The code behind the form is in the editor.
    code = page.get_by_test_id("source").input_value()
    assert "class Net(nn.Module):" in code and "self.fc1 = nn.Linear(2, 8)" in code
    assert "torch.optim.Adam(model.parameters(), lr=0.01)" in code and "steps = 60" in code
    assert "accuracy" in page.get_by_test_id("console").inner_text()

    # The loss curve is drawn: one point per iteration.
    training = page.get_by_test_id("training")
    assert training.is_visible()
    path = page.locator("[data-testid=loss-curve] path.chart-line").first
    assert path.get_attribute("d").count("L") == 59
    assert "60" in page.get_by_test_id("train-summary").inner_text()

    # Choose the last kept iteration: the player moves to its graph; step through its backward pass.
    chips = page.get_by_test_id("iteration-chips").locator("button")
    assert chips.count() == 6
    page.get_by_test_id("iter-59").click()
    info = frame_info(page)
    assert info["kind"] == "op"
    assert page.get_by_test_id("iteration-label").inner_text().startswith("59 / 60")
    page.evaluate(STEP_UNTIL_BACKWARD, 200)
    info = frame_info(page)
    assert info["kind"] == "step" and info["pass"] == 58
    first = page.get_by_test_id("step-label").inner_text()
    page.get_by_test_id("step-next").click()
    assert page.get_by_test_id("step-label").inner_text() != first
    assert frame_info(page)["pass"] == 58
    assert page.get_by_test_id("iteration-label").inner_text().startswith("59 / 60")

    # Stepping shows the step explanation; the training view is one click away.
    assert page.locator("#explain").is_visible()
    page.get_by_test_id("tab-training").click()
    assert training.is_visible()

    # The optimizer step after it: the rule and every parameter.
    opt = page.get_by_test_id("optimizer-step")
    assert "Adam" in page.get_by_test_id("optimizer-rule").inner_text()
    assert opt.locator("tbody tr").count() == 6
    assert "fc1.weight" in opt.inner_text()

    # The decision boundary picture arrives and shows a late step.
    page.wait_for_function("() => 'step' in document.querySelector('[data-testid=boundary]').dataset",
                           timeout=60_000)
    page.get_by_test_id("boundary-frame").fill("0")
    assert page.get_by_test_id("boundary").get_attribute("data-step") == "0"

    # Module level: nn.Module calls folded into boxes; op level: every grad_fn.
    assert page.get_by_test_id("fold-toggle").is_visible()
    page.get_by_test_id("tab-step").click()
    label = page.get_by_test_id("step-label").inner_text()
    with expect_event(page, "relayout"):  # drawn again, not run again
        page.get_by_test_id("fold-module").click()
    assert module_boxes(page) >= 3
    assert page.get_by_test_id("step-label").inner_text() == label
    assert frame_info(page)["pass"] == 58  # still on the same step
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "mlp-module-level-1280.png"))
    with expect_event(page, "relayout"):
        page.get_by_test_id("fold-op").click()
    assert module_boxes(page) == 0
    assert page.locator("[data-testid=graph] svg g.node").count() > 10
    page.screenshot(path=str(SHOTS / "mlp-op-level-1280.png"))
    page.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, real


def test_build_replaces_the_example_then_accumulation_and_forgotten_zero_grad(browser, server, errors):
    page = new_page(browser, server, errors=errors)
    wait_ready(page)  # the first example, an expression with free names, ran
    build(page, dataset="blobs", classes=3, hidden="4", steps=5, accumulate=4, optimizer="sgd", lr=0.1)
    # the chooser names the program the user's own; no input boxes of the expression are left
    assert page.get_by_test_id("examples").input_value() == "own"
    assert page.locator("#vars input[type=text]").count() == 0
    assert page.get_by_test_id("mlp-panel").get_attribute("open") is None  # folded to show the code

    acc = page.get_by_test_id("accumulation")
    items = acc.locator("li")
    assert items.count() >= 5  # four passes, then the step (and the reset)
    assert "optimizer.step()" in acc.inner_text()
    assert not page.get_by_test_id("zero-grad-note").is_visible()

    build(page, zero_grad=False, accumulate=1, steps=8)
    note = page.get_by_test_id("zero-grad-note")
    assert note.is_visible() and "zero_grad()" in note.inner_text()
    code = page.get_by_test_id("source").input_value()
    assert "    optimizer.zero_grad()" not in code
    page.context.close()
    assert not [e for e in errors.items if "status of 4" not in e]


def test_form_error_is_shown(browser, server, errors):
    page = new_page(browser, server, errors=errors)
    wait_ready(page)
    open_builder(page)
    page.get_by_test_id("mlp-hidden").fill("8, x")
    page.get_by_test_id("build").click()
    status = page.get_by_test_id("mlp-status")
    # The status first says the program is being written; wait for the answer's error.
    page.wait_for_function("() => document.querySelector('[data-testid=mlp-status]').dataset.kind == 'error'")
    assert "hidden" in status.inner_text()
    page.context.close()


@pytest.mark.parametrize("width, height, locale", [(1280, 720, "en-US"), (1280, 720, "zh-CN"),
                                                   (390, 844, "en-US"), (390, 844, "zh-CN")])
def test_screenshots(browser, server, errors, width, height, locale):
    # reduced motion: the decision boundary shows its last frame at once, no playback to sit through
    page = new_page(browser, server, width=width, height=height, locale=locale, errors=errors,
                    reduced_motion="reduce")
    wait_ready(page)
    with expect_event(page, "boundary-played", timeout=120_000) as played:
        build(page, dataset="moons", hidden="16, 16", steps=100)
    assert played.value > 0 and page.get_by_test_id("boundary").get_attribute("data-step")
    if locale.startswith("zh"):
        text = page.get_by_test_id("training").inner_text()
        assert "次迭代" in text and "准确率" in text and "损失" in text
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    SHOTS.mkdir(parents=True, exist_ok=True)
    tag = f"{width}-{locale[:2]}"
    page.screenshot(path=str(SHOTS / f"mlp-{tag}.png"))
    page.get_by_test_id("training").screenshot(path=str(SHOTS / f"mlp-training-{tag}.png"))
    page.get_by_test_id("mlp-panel").screenshot(path=str(SHOTS / f"mlp-form-{tag}.png"))
    page.context.close()
    assert not [e for e in errors.items if "status of 4" not in e]


def test_progress_while_training_and_language_switch(browser, server, errors):
    page = new_page(browser, server, errors=errors)
    wait_ready(page)
    form = open_builder(page)
    page.get_by_test_id("mlp-steps").fill("800")
    progress = page.get_by_test_id("train-progress")
    with expect_run(page, timeout=120_000):
        form.get_by_test_id("build").click()
        progress.wait_for(state="visible", timeout=10_000)  # shown while the request is pending
        assert "Training" in progress.inner_text()
        # The page stays responsive meanwhile: the language toggle works.
        page.get_by_test_id("lang").click()
        page.wait_for_function("""() => document.querySelector('[data-testid=train-progress]').textContent
            .includes('训练中') || document.querySelector('main').getAttribute('aria-busy') === 'false'""",
                               timeout=10_000)
    assert not progress.is_visible()
    assert "次迭代" in page.get_by_test_id("train-summary").inner_text()
    page.get_by_test_id("lang").click()
    assert "iterations" in page.get_by_test_id("train-summary").inner_text()
    assert "Build an MLP" in page.get_by_test_id("mlp-panel").locator("summary").text_content()
    page.context.close()
    assert not [e for e in errors.items if "status of 4" not in e]


# The node the frame is about: the current backward step's, or the forward op just recorded.
CURRENT_LABEL = """() => {
  const host = document.querySelector('[data-testid=graph]');
  const g = host.querySelector('g.node[data-s=cur]')
    || [...host.querySelectorAll('g.node[data-s=new]')]
      .find((n) => n.querySelector(':scope > :is(path, polygon)'));
  const t = g.querySelector('text').getBoundingClientRect(), r = host.getBoundingClientRect();
  return {h: t.height, inside: t.left >= r.left - 1 && t.right <= r.right + 1
                             && t.top >= r.top - 1 && t.bottom <= r.bottom + 1};
}"""


@pytest.mark.parametrize("width, height", [(1280, 720), (390, 844)])
def test_build_draws_a_readable_graph_that_follows_the_step_and_fits_its_table(browser, server, errors,
                                                                               width, height):
    # reduced motion: the view jumps to the node at once (no glide to wait for)
    page = new_page(browser, server, width=width, height=height, errors=errors, reduced_motion="reduce")
    wait_ready(page)
    build(page)  # the form's defaults: a 2-16-16-2 net on two moons, 500 steps
    # the page moves to the first iteration's whole forward graph (its last op) right after the run
    current = "[data-testid=graph] g.node:is([data-s=cur], [data-s=new])"
    page.wait_for_function(f"() => !!document.querySelector('{current}')")
    label = page.evaluate(CURRENT_LABEL)
    assert label["h"] >= 10, f"the current node's label is {label['h']:.1f} px tall"
    assert label["inside"], "the current node is in view"
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(8):
        page.keyboard.press("ArrowRight")
        label = page.evaluate(CURRENT_LABEL)
        assert label["h"] >= 10 and label["inside"], (step_text(page), label)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"mlp-build-step-{width}.png"), full_page=width < 1000)
    # Fit does not shrink the drawing below a readable size: the overview shows the whole of it
    page.locator("#fit").click()
    label = page.evaluate(CURRENT_LABEL)
    assert label["h"] >= 10 and label["inside"], label
    assert page.get_by_test_id("minimap").is_visible()
    # zoomed out past it, the whole drawing is on screen
    for _ in range(40):
        if page.get_by_test_id("minimap").is_hidden():
            break
        page.locator("#zoom-out").click()
    assert page.evaluate("""() => {
      const host = document.querySelector('[data-testid=graph]').getBoundingClientRect();
      return [...document.querySelectorAll('[data-testid=graph] g.node')].every((g) => {
        const r = g.getBoundingClientRect();
        return r.left >= host.left - 1 && r.right <= host.right + 1 && r.top >= host.top - 1
          && r.bottom <= host.bottom + 1;
      });
    }""")
    explain = page.locator("#explain").bounding_box()
    if width > 1000:
        # the step explanation is on screen next to the graph while stepping (not below the training view)
        assert explain is not None and explain["y"] < height - 80, explain
        assert not page.get_by_test_id("training").is_visible()
    named_tensor_table_fits_its_panel(page)
    page.context.close()
    assert not [e for e in errors.items if "status of 4" not in e]


def named_tensor_table_fits_its_panel(page):
    """At the last step, no cell of the named tensors' table is wider than its column, nor the table than
    its panel; a tensor of many elements is summarized in a few lines."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("End")
    over = page.evaluate("""() => {
      const out = [];
      const wrap = document.querySelector('#vars .tablewrap');
      if (wrap.scrollWidth > wrap.clientWidth) out.push(['table', wrap.scrollWidth, wrap.clientWidth]);
      for (const td of document.querySelectorAll('table.vars td, table.vars th'))
        if (td.scrollWidth > td.clientWidth) out.push([td.className, td.scrollWidth, td.clientWidth]);
      return out;
    }""")
    assert over == [], over
    grad = page.get_by_test_id("var-y").locator(".v-grad")
    assert grad.inner_text() == "None"
    # a 200-element tensor is summarized in a few short lines
    assert page.get_by_test_id("var-y").locator(".v-value code").inner_text().count("\n") <= 2


def step_text(page):
    return page.get_by_test_id("step-label").inner_text()

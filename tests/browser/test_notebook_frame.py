"""gradviz.show's output in a notebook: no "Consider using IPython.display.IFrame" warning on every cell
(IPython warns on a bare <iframe>), and the player inside its 760 px frame keeps its step bar in
view at the widths of a notebook's output area (Jupyter Notebook's ~900-1100 px, JupyterLab's
wider), with the header wrapping to two rows. The notebook itself runs in tests/package/
test_notebook.py."""

from __future__ import annotations

import warnings

import pytest
from playwright.sync_api import expect

from .support import SHOTS

pytestmark = pytest.mark.browser

NEURON = ("x = torch.tensor([2.0], requires_grad=True)\nw = torch.tensor([3.0], requires_grad=True)\n"
          "loss = (torch.sigmoid(x * w) - 1.0) ** 2\nloss.backward()\n")


@pytest.fixture(scope="module")
def output_html():
    """What gradviz.show hands to IPython's HTML for a small program."""
    from gradviz.notebook import iframe
    from gradviz.output import html

    return iframe(html(NEURON, sandbox=False))


def test_the_output_is_no_bare_iframe_so_ipython_does_not_warn(output_html):
    display = pytest.importorskip("IPython.display")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        display.HTML(output_html)
    assert 'data-gradviz="player"' in output_html


@pytest.mark.parametrize("width", [900, 1100, 1400])
def test_the_step_bar_is_inside_the_frame(browser, output_html, tmp_path, width):
    host = tmp_path / "cell.html"
    host.write_text("<!doctype html><html><body style='margin: 0; padding: 16px'>"
                    f"<div class=cell>{output_html}</div></body></html>")
    ctx = browser.new_context(viewport={"width": width + 32, "height": 900})
    page = ctx.new_page()
    try:
        page.goto(host.as_uri())
        frame = page.frame_locator("iframe")
        frame.locator("[data-testid=graph] svg").wait_for(timeout=30_000)
        outer = page.locator("iframe").bounding_box()
        bars = [frame.get_by_test_id(t) for t in ("step-next", "step-prev", "play", "step-label")]
        for part in [*bars, frame.locator(".p-timeline")]:  # the whole bar, the pass chooser too
            expect(part).to_be_in_viewport()  # inside the frame, once the player has laid itself out
            b = part.bounding_box()
            inside = b and b["y"] >= outer["y"] and b["y"] + b["height"] <= outer["y"] + outer["height"] + 0.5
            assert inside, (width, b, outer)
        before = frame.get_by_test_id("step-label").inner_text()
        frame.get_by_test_id("step-next").click()
        assert frame.get_by_test_id("step-label").inner_text() != before
        page.screenshot(path=str(SHOTS / f"notebook-frame-{width}.png"))
    finally:
        ctx.close()

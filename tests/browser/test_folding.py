"""Large graphs on the page: a loop folded into one box, the step player walking inside it with the
iteration number, the box opened and closed in place; a shared weight drawn once with a ghost
beside each use, every copy marked together under the pointer. Screenshots on a laptop and a
phone, in English and Chinese (tests/screenshots/page/, git-ignored)."""

from __future__ import annotations

import re

import pytest

from .support import SHOTS, config_id, expect_event, run_source, screen_page

RNN = """torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
U = torch.randn(4, 4, requires_grad=True)
xs = torch.randn(120, 4)
h = torch.zeros(4)
for t in range(120):
    h = torch.tanh(W @ h + U @ xs[t])
loss = h.sum()
loss.backward()
"""

SHARED = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(16):
    h = torch.tanh(h * w)
h.backward()
print(w.grad)
"""

SCREENS = [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"), (390, 844, "zh")]

# The first backward step inside a closed part (its node is not drawn: the answer names it by id).
HIDDEN_STEP = """async () => {
  const { state } = await import('/static/js/state.js');
  const frames = state.timeline.frames;
  for (let k = 0; k < frames.length; k++) if (frames[k].kind === 'step' && frames[k].hidden) return k;
  return -1;
}"""

# The backward step halfway through the first pass.
MIDDLE_STEP = """async () => {
  const { state } = await import('/static/js/state.js');
  const steps = state.timeline.frames.map((f, k) => [f, k]).filter(([f]) => f.kind === 'step');
  return steps[Math.floor(steps.length / 2)][1];
}"""

GOTO = "async (k) => { const { emit } = await import('/static/js/state.js'); emit('goto', k); }"

# The op frame a third of the way through the forward pass.
FORWARD_THIRD = """async () => {
  const { state } = await import('/static/js/state.js');
  const ops = state.timeline.frames.map((f, k) => [f, k]).filter(([f]) => f.kind === 'op');
  return ops[Math.floor(ops.length / 3)][1];
}"""

# The ghosts shown on the screen that no shown edge touches (screen pixels; each ghost's id).
LONE_GHOSTS = """() => {
  const svg = document.querySelector('[data-testid=graph] svg');
  const host = svg.parentNode.getBoundingClientRect();
  const shown = (g) => getComputedStyle(g).visibility !== 'hidden' && g.isConnected;
  const ends = [];
  for (const e of svg.querySelectorAll('g.edge')) {
    const p = e.querySelector(':scope > path');
    if (!p || !shown(e)) continue;
    const m = p.getScreenCTM();
    const len = p.getTotalLength();
    for (const q of [p.getPointAtLength(0), p.getPointAtLength(len)]) {
      ends.push(new DOMPoint(q.x, q.y).matrixTransform(m));
    }
  }
  const lone = [];
  let seen = 0;
  for (const g of svg.querySelectorAll('g.node.ghost')) {
    if (!shown(g)) continue;
    const b = g.getBoundingClientRect();
    if (b.right < host.left || b.left > host.right || b.bottom < host.top || b.top > host.bottom) continue;
    seen++;
    const near = (q) => q.x >= b.left - 6 && q.x <= b.right + 6 && q.y >= b.top - 6 && q.y <= b.bottom + 6;
    const touched = ends.some(near);
    if (!touched) lone.push(g.id);
  }
  return { seen, lone };
}"""


@pytest.fixture(params=SCREENS, ids=[config_id(c) for c in SCREENS])
def screen(request, browser, server):
    yield from screen_page(request, browser, server)


def test_a_folded_loop_steps_inside_and_opens_in_place(screen):
    page, name, lang = screen
    run_source(page, RNN)
    graph = page.get_by_test_id("graph")
    box = graph.locator("g.node.part.box").first
    box.wait_for()
    assert "120" in box.text_content()  # the loop's box counts its iterations (×120)
    drawn_before = graph.locator("g.node").count()

    k = page.evaluate(HIDDEN_STEP)
    assert k > 0, "a backward step inside the closed loop"
    page.evaluate(GOTO, k)
    where = page.get_by_test_id("folded-iteration")
    where.wait_for()
    text = where.inner_text()
    expected = r"Iteration (\d+) of 120" if lang == "en" else r"第 (\d+) 次迭代（共 120 次）"
    m = re.search(expected, text)
    assert m and 1 <= int(m.group(1)) <= 120, text
    assert page.get_by_test_id("step-label").inner_text().startswith(str(k + 1))
    where.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"folded-rnn-{name}.png"))

    with expect_event(page, "relayout"):
        page.get_by_test_id("open-part").click()
    # the loop is open in place: its frame holds a drawing, and the steps inside are drawn
    graph.locator("g.unit").first.wait_for()
    assert graph.locator("g.node").count() > drawn_before
    assert page.evaluate("async () => (await import('/static/js/state.js')).state.frame") == k
    page.screenshot(path=str(SHOTS / f"opened-rnn-{name}.png"))


def _open_loop(page) -> None:
    """Open the loop the first hidden step is in (from the panel that says which iteration it is)."""
    page.evaluate(GOTO, page.evaluate(HIDDEN_STEP))
    page.get_by_test_id("folded-iteration").wait_for()
    with expect_event(page, "relayout"):
        page.get_by_test_id("open-part").click()
    page.get_by_test_id("graph").locator("g.unit").first.wait_for()


def test_an_opened_loop_draws_each_ghost_joined_to_its_reader(screen):
    page, name, _ = screen
    run_source(page, RNN)
    _open_loop(page)
    ghosts = page.evaluate(LONE_GHOSTS)  # a backward step: every forward op is drawn
    assert ghosts["seen"] > 0 and ghosts["lone"] == [], ghosts
    # in the forward pass, a ghost is drawn with the edge it feeds: not before the op that reads it
    page.evaluate(GOTO, page.evaluate(FORWARD_THIRD))
    ghosts = page.evaluate(LONE_GHOSTS)
    assert ghosts["seen"] > 0 and ghosts["lone"] == [], ghosts
    page.screenshot(path=str(SHOTS / f"opened-rnn-forward-{name}.png"))


def test_a_shared_weight_is_one_node_with_a_ghost_beside_each_use(screen):
    page, name, _ = screen
    run_source(page, SHARED)
    page.evaluate(GOTO, page.evaluate(MIDDLE_STEP))  # the drawing centres on the step shown
    graph = page.get_by_test_id("graph")
    wid = page.evaluate("""async () => {
      const { state } = await import('/static/js/state.js');
      return state.response.graph.nodes.find((n) => n.name === 'w').id;
    }""")
    real = graph.locator(f"g.node#n{wid}")
    ghosts = graph.locator(f"g.node.ghost[id^='n{wid}-g']")
    assert real.count() == 1
    assert ghosts.count() >= 8  # one beside each use in the loop, not one long edge to each
    ghosts.nth(ghosts.count() // 2).hover()  # beside the step shown
    marked = graph.locator("g.node.twin")
    marked.first.wait_for()
    assert marked.count() == ghosts.count() + 1  # the real node and every copy
    page.screenshot(path=str(SHOTS / f"ghost-{name}.png"))
    # the gradient flowing into the copies adds up at the real leaf: w.grad is printed, once
    assert re.search(r"tensor\(-?\d", page.get_by_test_id("console").inner_text())

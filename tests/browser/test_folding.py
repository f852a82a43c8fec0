"""Large graphs on the page: a loop folded into one box, the step player walking inside it with the
iteration number, the box opened and closed in place; a shared weight drawn once with a ghost
beside each use, every copy marked together under the pointer. Screenshots on a laptop and a
phone, in English and Chinese (tests/screenshots/page/, git-ignored)."""

from __future__ import annotations

import re

import pytest

from .support import SHOTS, config_id, expect_event, run_source

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

# The view shows frame k and has stopped moving (a glide to the step's node has ended).
AT_REST = """(k) => {
  const label = document.querySelector('[data-testid=step-label]').textContent;
  const svg = document.querySelector('[data-testid=graph] svg.gv');
  return label.trim().startsWith(`${k + 1} `) && !!svg && !svg.style.transition;
}"""

# An op frame (kind "op") or backward step (kind "step") of an op that reads the shared weight W, drawn
# (not in a closed box): the one at `share` of the way through those frames.
READS_W = """async ([kind, share]) => {
  const { state } = await import('/static/js/state.js');
  const tl = state.timeline;
  const w = state.response.graph.nodes.find((n) => n.name === 'W').id;
  const readers = new Set([...tl.edges.values()].filter((e) => e.source === w).map((e) => e.target));
  const ks = tl.frames.map((f, k) => [f, k])
    .filter(([f]) => f.kind === kind && !f.hidden && readers.has(f.node)).map(([, k]) => k);
  return ks[Math.floor((ks.length - 1) * share)];
}"""

# The drawing's ghosts as the page shows them at this frame. Each ghost names the edges it feeds
# (data-feeds); by the states the page gives the elements (drawn or far from the view): `early`, a
# ghost shown while none of its edges is, `late`, one hidden while one of its edges is shown. On the
# screen (pixels): `seen` ghosts, `lone` the ones no shown edge's end touches, `far` the ones more
# than two ghost heights from the node their edge goes into, `atStep` those feeding the current node.
GHOSTS = """async () => {
  const { state } = await import('/static/js/state.js');
  const tl = state.timeline;
  const current = tl.frames[state.frame].node;
  const svg = document.querySelector('[data-testid=graph] svg');
  const host = svg.parentNode.getBoundingClientRect();
  const on = (key) => (svg.gvState(key) ?? 'hidden') !== 'hidden';
  const shown = (g) => g.isConnected && getComputedStyle(g).visibility !== 'hidden';
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
  const out = { ghosts: 0, hidden: 0, seen: 0, lone: [], far: [], early: [], late: [], atStep: 0 };
  for (const g of svg.gvElements()) {
    if (!g.classList.contains('ghost')) continue;
    out.ghosts++;
    if (!on(g.id)) out.hidden++;
    const feeds = (g.dataset.feeds || '').split(' ').filter(Boolean);
    const fed = feeds.some(on);
    if (on(g.id) && !fed) out.early.push(g.id);
    if (!on(g.id) && fed) out.late.push(g.id);
    if (!shown(g)) continue;
    const b = g.getBoundingClientRect();
    if (b.right < host.left || b.left > host.right || b.bottom < host.top || b.top > host.bottom) continue;
    out.seen++;
    const near = (q, d) => q.x >= b.left - d && q.x <= b.right + d && q.y >= b.top - d && q.y <= b.bottom + d;
    if (!ends.some((q) => near(q, 6))) out.lone.push(g.id);
    const readers = feeds.filter((k) => k[0] === 'e').map((k) => tl.edges.get(Number(k.slice(1)))?.target);
    if (readers.includes(current)) out.atStep++;
    const gaps = readers.map((id) => {
      const r = svg.gvElement(`n${id}`);
      if (!r || !r.isConnected) return Infinity;
      const c = r.getBoundingClientRect();
      return Math.max(c.left - b.right, b.left - c.right, c.top - b.bottom, b.top - c.bottom, 0);
    });
    if (!(Math.min(...gaps) <= 2 * b.height)) out.far.push(g.id);
  }
  return out;
}"""


# What a folded loop shows and how it opens does not depend on the screen, nor, but for its words, on
# the language: a laptop in English and a phone in Chinese see every property in both languages and on
# both kinds of screen (a phone draws top to bottom).
HALF = [SCREENS[0], SCREENS[3]]


@pytest.fixture(params=HALF, ids=[config_id(c) for c in HALF])
def screen(request, screens):
    yield from screens.use_page(request.param)


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


# The page shows the run of `source` with a loop open in place.
SHOWS_OPEN = """async (source) => {
  const { state } = await import('/static/js/state.js');
  return state.ranSource === source && !!document.querySelector('[data-testid=graph] g.unit');
}"""


def _open_loop(page) -> None:
    """Open the loop the first hidden step is in (from the panel that says which iteration it is)."""
    page.evaluate(GOTO, page.evaluate(HIDDEN_STEP))
    page.get_by_test_id("folded-iteration").wait_for()
    with expect_event(page, "relayout"):
        page.get_by_test_id("open-part").click()
    page.get_by_test_id("graph").locator("g.unit").first.wait_for()


def _go(page, k: int) -> None:
    """Move the player to frame k and wait until the view has followed it."""
    page.evaluate(GOTO, k)
    page.wait_for_function(AT_REST, arg=k)


def test_an_opened_loop_draws_each_ghost_joined_to_its_reader(screen):
    page, name, _ = screen
    if not page.evaluate(SHOWS_OPEN, RNN):  # (the test before on this screen leaves it so)
        run_source(page, RNN)
        _open_loop(page)
    # the backward pass reaches an op that reads W (every forward op is drawn): W's ghost beside it
    # is on the screen, joined to it, and so is every other ghost the screen shows
    _go(page, page.evaluate(READS_W, ["step", 0]))
    ghosts = page.evaluate(GHOSTS)
    assert ghosts["atStep"] >= 1 and ghosts["lone"] == [] and ghosts["far"] == [], ghosts
    assert ghosts["early"] == [] and ghosts["late"] == [], ghosts
    page.screenshot(path=str(SHOTS / f"opened-rnn-backward-{name}.png"))
    page.get_by_test_id("graph").screenshot(path=str(SHOTS / f"opened-rnn-backward-graph-{name}.png"))
    # in the forward pass, a ghost is drawn with the edge it feeds: not before the op that reads it
    _go(page, page.evaluate(READS_W, ["op", 1 / 3]))
    ghosts = page.evaluate(GHOSTS)
    assert ghosts["atStep"] >= 1 and ghosts["lone"] == [] and ghosts["far"] == [], ghosts
    assert ghosts["early"] == [] and ghosts["late"] == [], ghosts
    assert ghosts["hidden"] > 0, "the ghosts of the ops the forward pass has not reached wait"
    page.screenshot(path=str(SHOTS / f"opened-rnn-forward-{name}.png"))
    page.get_by_test_id("graph").screenshot(path=str(SHOTS / f"opened-rnn-forward-graph-{name}.png"))


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


# What the server answers when the program ran past its deadline (app/routes/worker_errors.py).
PAST_DEADLINE = {"error": {"type": "TimeoutError", "line": None, "col": None,
                           "message": "the program ran past its deadline and was stopped (limit: timeout_s)",
                           "explain": {"gradviz": True, "note": None,
                                       "zh": "程序超过了截止时间，已被停止 (limit: timeout_s)"}}}


def test_a_box_that_cannot_be_opened_says_why_in_the_pages_language(screen):
    page, name, lang = screen
    run_source(page, RNN)
    page.route("**/api/open", lambda route: route.fulfill(status=400, json=PAST_DEADLINE))
    try:
        page.evaluate(GOTO, page.evaluate(HIDDEN_STEP))
        page.get_by_test_id("open-part").click()
        error = page.get_by_test_id("error")
        error.wait_for()
        said = error.inner_text()
    finally:
        page.unroute("**/api/open")
    if lang == "zh":
        assert "无法展开该部分：程序超过了截止时间" in said and "ran past" not in said, said
    else:
        assert "The part could not be opened: the program ran past its deadline" in said, said
    assert "limit: timeout_s" not in said, said  # the limit said in words
    assert page.locator("[data-testid=graph] g.unit").count() == 0  # nothing was opened

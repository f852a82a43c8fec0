"""Folded drawings read well: a deep stack of identical layers is one box that says what it repeats
("Linear → ReLU ×20"), at Auto and at Modules, and opens in place like a loop, showing its layers;
and no drawn frame is empty, whatever a user opens (a long loop, one of its chunks, a loop in a
loop). Screenshots on a laptop and a phone, in English and Chinese (tests/screenshots/page/)."""

from __future__ import annotations

import re

import pytest

from .support import _WATCH, SHOTS, config_id, expect_event, run_source

DEEP = """layers = []
for _ in range(20):
    layers += [nn.Linear(8, 8), nn.ReLU()]
net = nn.Sequential(*layers, nn.Linear(8, 1))
x = torch.randn(4, 8)
loss = net(x).pow(2).mean()
loss.backward()
print(net[0].weight.grad.sum().item())
"""

LONG = """torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
U = torch.randn(4, 4, requires_grad=True)
xs = torch.randn(400, 4)
h = torch.zeros(4)
for t in range(400):
    h = torch.tanh(W @ h + U @ xs[t])
h.sum().backward()
"""

# The same loop long enough to be drawn in chunks (two of them, where LONG has five).
CHUNKED = LONG.replace("400", "130")

NESTED = """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(30):
    for j in range(30):
        h = torch.tanh(h * w)
h.backward()
"""

SCREENS = [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"), (390, 844, "zh")]

# Each open frame the drawing shows and how many of the things inside it it shows: nodes (not
# ghosts) and boxes that the player has reached (before, a thing is hidden). An element far from the
# view may be out of the document for a while (near_view.js): its state is the one it will show.
FRAMES = r"""async () => {
  const { state } = await import('/static/js/state.js');
  const { PartIndex } = await import('/static/js/parts.js');
  const index = new PartIndex(state.response);
  const svg = document.querySelector('[data-testid=graph] svg');
  const look = (g) => (!g.isConnected && g._s !== undefined ? g._s : g.getAttribute('data-s'));
  const all = [...svg.gvElements()].filter((g) => g.matches('g.node:not(.ghost)'));
  const held = new Map();
  for (const g of all) {
    const m = /^([np])(\d+)$/.exec(g.id);
    if (!m || look(g) === 'hidden') continue;
    const around = m[1] === 'n' ? index.chain(Number(m[2])) : index.chain(null, g.id).slice(1);
    for (const q of around) held.set(q, (held.get(q) || 0) + 1);
  }
  return all.filter((g) => g.classList.contains('frame') && look(g) !== 'hidden')
    .map((g) => ({ id: g.id, title: g.getAttribute('aria-label'), held: held.get(g.id) || 0 }));
}"""

LAST_FRAME = """async () => {
  const { state, emit } = await import('/static/js/state.js');
  emit('goto', state.timeline.frames.length - 1);
}"""

# Go to the frame at `at` (0 to 1) of the run.
GOTO_AT = """async (at) => {
  const { state, emit } = await import('/static/js/state.js');
  emit('goto', Math.round(at * (state.timeline.frames.length - 1)));
}"""


@pytest.fixture(params=SCREENS, ids=[config_id(c) for c in SCREENS])
def screen(request, screens):
    yield from screens.use_page(request.param)


def _boxes(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=graph] svg g.node.part.box')]
      .map((g) => ({ id: g.id, label: g.getAttribute('aria-label'),
        text: [...g.querySelectorAll(':scope > text')].map((t) => t.textContent).join(' ') }))""")


# The page drew the opened box again, or said that it could not (in its error panel).
REDRAWN_OR_REFUSED = """() => (window.__gvSeen && window.__gvSeen.relayout !== null)
  || !document.querySelector('[data-testid=error]').hidden"""


def _open(page, pid: str) -> None:
    """Open box ``pid`` as a keyboard user does (it may lie outside the drawing's view)."""
    page.evaluate(_WATCH, "relayout")
    box = page.locator(f"[data-testid=graph] svg g.node.part.box#{pid}")
    box.focus()
    box.press("Enter")
    page.wait_for_function(REDRAWN_OR_REFUSED, timeout=60_000)
    error = page.get_by_test_id("error")
    assert not error.is_visible(), f"opening {pid}: {error.inner_text()}"
    page.locator(f"[data-testid=graph] svg g.node.part.box#{pid}").wait_for(state="detached")


def _no_empty_frames(page, what: str) -> list[dict]:
    frames = page.evaluate(FRAMES)
    for f in frames:
        assert f["held"] > 0, f"{what}: the open frame {f['title']} draws nothing"
    return frames


def _walk_and_pan(page, opened: list[str]) -> None:
    """The player walks the run (a frame shows what it holds) and the drawing is panned across: no
    open frame is ever empty."""
    for at in (0, 0.2, 0.5, 0.8, 1):
        page.evaluate(GOTO_AT, at)
        page.wait_for_timeout(50)
        _no_empty_frames(page, f"with {opened} opened, at {at} of the run")
    page.get_by_test_id("graph").hover()
    for dx in (-800, 800):
        page.mouse.wheel(dx, 0)
        _no_empty_frames(page, f"with {opened} opened, panned")


def _stack(page) -> dict:
    """The run of DEEP shown: its one box of repeated layers."""
    run_source(page, DEEP)
    stack = [b for b in _boxes(page) if "Linear → ReLU" in b["text"]]
    # (its count line says which repetition the player is in, "3 / 20", while it is in one)
    assert len(stack) == 1 and re.search(r"(×| / )20$", stack[0]["text"]), _boxes(page)
    return stack[0]


def test_a_deep_stack_of_layers_is_one_box_that_says_what_it_repeats(screen):
    page, name, lang = screen
    stack = _stack(page)
    assert len(_boxes(page)) <= 3  # not forty-one layers side by side
    said = r"layers Linear → ReLU, repeated ×20" if lang == "en" else r"重复 20 次的层 Linear → ReLU"
    assert re.search(said, stack["label"]), stack["label"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"repeat-auto-{name}.png"))


# How the stack opens and what it holds does not depend on the language: a laptop in English and a
# phone in Chinese.
@pytest.mark.parametrize("screen", [SCREENS[0], SCREENS[3]], indirect=True,
                         ids=[config_id(SCREENS[0]), config_id(SCREENS[3])])
def test_a_deep_stack_of_layers_opens_like_a_loop(screen):
    page, name, lang = screen
    stack = _stack(page)
    # at Modules too, the stack stays one box
    with expect_event(page, "relayout"):
        page.get_by_test_id("fold-module").click()
    assert [b["id"] for b in _boxes(page) if "Linear → ReLU" in b["text"]] == [stack["id"]]
    with expect_event(page, "relayout"):
        page.get_by_test_id("fold-auto").click()
    # opened, it is a frame holding its forty layers, each a box that opens on its own
    _open(page, stack["id"])
    page.locator(f"[data-testid=graph] svg g.unit[data-part={stack['id']}]").wait_for()
    unit = page.locator(f"[data-testid=graph] svg g.unit[data-part={stack['id']}]")
    assert unit.locator("g.node.part.box").count() == 40
    _no_empty_frames(page, "the opened stack")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"repeat-open-{name}.png"))
    _walk_and_pan(page, [stack["id"]])
    page.evaluate(LAST_FRAME)  # the whole run recorded: every layer shown
    layer = unit.locator("g.node.part.box").nth(2).get_attribute("id")
    _open(page, layer)
    inner = page.locator(f"[data-testid=graph] svg g.unit[data-part={stack['id']}] g.node[id^=n]")
    assert inner.count() > 0
    _walk_and_pan(page, [stack["id"], layer])
    # the gradient printed is the one of the run
    assert re.search(r"-?\d+\.\d+", page.get_by_test_id("console").inner_text())


# Which frames exist and what they hold does not depend on the language or the screen: each loop
# runs once, the three between them on a laptop and a phone and in both languages. The long loop in
# chunks runs at its full length once (a phone), and at two chunks on the laptop; the deep stack of
# layers is walked the same way by the test above.
PAIRS = [(CHUNKED, SCREENS[0]), (LONG, SCREENS[3]), (NESTED, SCREENS[1])]
LABEL = {LONG: "long-loop", CHUNKED: "chunked-loop", NESTED: "loop-in-loop"}


@pytest.mark.parametrize(("source", "screen"), PAIRS, indirect=["screen"],
                         ids=[f"{config_id(c)}-{LABEL[s]}" for s, c in PAIRS])
def test_no_drawn_frame_is_empty_whatever_is_opened_at_any_step(screen, source):
    page, name, _ = screen
    run_source(page, source)
    opened = []
    for depth in range(3):  # the loop, then a box inside it (a chunk, an inner loop), then one inside that
        page.evaluate(LAST_FRAME)  # every box shown, to be clicked
        inside = [b["id"] for b in _boxes(page)]
        if not inside:
            break
        pid = inside[len(inside) // 2] if depth else inside[0]
        _open(page, pid)
        opened.append(pid)
        _walk_and_pan(page, opened)
    assert len(opened) >= 2
    label = {LONG: "long", CHUNKED: "chunked", NESTED: "nested"}[source]
    page.screenshot(path=str(SHOTS / f"no-empty-{label}-{name}.png"))

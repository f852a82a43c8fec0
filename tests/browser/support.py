"""Helpers for tests that drive the real page: server launcher, Chromium settings, page helpers.
The session fixtures built on them are in tests/conftest.py, so every browser test shares one
server and one Chromium (two sync Playwright instances cannot live in one process)."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import httpx

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots" / "page"  # git-ignored
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str, proc: subprocess.Popen | None, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            tail = Path(proc.log_path).read_text()[-2000:]
            raise RuntimeError(f"the server exited with {proc.returncode}: {tail}")
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError("the server did not become healthy")


class PageErrors:
    """Errors the page reported: console.error messages and uncaught exceptions."""

    def __init__(self):
        self.items: list[str] = []

    def attach(self, page):
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.items.append(f"pageerror: {e}"))

    def _console(self, msg):
        if msg.type == "error":
            self.items.append(f"console.error: {msg.text}")


def new_page(browser, server, width=1280, height=720, locale="en-US", path="/", errors=None, **kw):
    """A fresh context and page at the server; waits until the first example is drawn."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale,
                              accept_downloads=True, **kw)
    page = ctx.new_page()
    if errors is not None:
        errors.attach(page)
    page.goto(server + path)
    return page


def wait_ready(page, timeout: float = 60_000) -> None:
    """Wait until the page is idle: its main region is no longer aria-busy (what a screen reader
    announces), e.g. the first program is shown."""
    # (a function, not an expression: an expression is polled with eval, which the page's CSP refuses)
    page.wait_for_function("() => document.querySelector('main.layout').ariaBusy === 'false'",
                           timeout=timeout)


# Listen once to an event of the page's bus (static/js/state.js), noting that it came; its first argument
# stays in the page (``window.__gvArg``, one per event name) until the test reads it. Copying it out at
# once would carry the whole answer of a run out of the page on each redraw ("relayout" has it as its
# argument): for an opened loop of a few MB, Playwright's serialization of it took tens of seconds.
_WATCH = """(name) => import('/static/js/state.js').then(({ once }) => {
  window.__gvSeen = window.__gvSeen || {};
  window.__gvArg = window.__gvArg || {};
  window.__gvSeen[name] = null;
  const token = (window.__gvTokens = (window.__gvTokens || 0) + 1);
  window.__gvArg[name] = { token, value: undefined };
  once(name, (...args) => {
    window.__gvArg[name] = { token, value: args[0] ?? true };
    window.__gvSeen[name] = true;
  });
  return token;
})"""

# The first argument of the event a watch saw, as JSON (null when another watch of the same event
# has replaced it since).
_ARG = """([name, token]) => {
  const slot = window.__gvArg && window.__gvArg[name];
  return slot && slot.token === token ? { value: JSON.parse(JSON.stringify(slot.value)) } : null;
}"""


class _Seen:
    """What ``expect_event`` saw: ``.value`` is the event's first argument, read from the page when
    first asked for (before the same event is watched again)."""

    def __init__(self, page, name: str, token: int):
        self._page, self._name, self._token = page, name, token
        self._read, self._value = False, None

    @property
    def value(self):
        if not self._read:
            got = self._page.evaluate(_ARG, [self._name, self._token])
            assert got is not None, f"{self._name!r} was watched again before its value was read"
            self._value, self._read = got["value"], True
        return self._value


@contextmanager
def expect_event(page, name: str = "run-end", timeout: float = 60_000):
    """``with expect_event(page, "run-end"): click...``: wait for the page to announce the event on
    its bus after the block. The event's first argument is in ``.value`` afterwards."""
    seen = _Seen(page, name, page.evaluate(_WATCH, name))
    yield seen
    page.wait_for_function("(n) => window.__gvSeen && window.__gvSeen[n] !== null", arg=name, timeout=timeout)


def settle(page, timeout: float = 10_000) -> None:
    """Wait until the view has stopped moving: while it glides to a step's node (220 ms), the page sets
    a transition on the drawing (static/js/panzoom.js) and takes it off when the glide ends and the
    elements near the view are drawn."""
    page.wait_for_function("""() => {
      const svg = document.querySelector('[data-testid=graph] svg.gv:not(.live)');
      return !svg || !svg.style.transition;
    }""", timeout=timeout)


def expect_run(page, timeout: float = 60_000):
    """The page finished a run (it shows its result or its failure) after the block."""
    return expect_event(page, "run-end", timeout)


def run_source(page, source: str) -> None:
    """Type a program into the editor, press Run and wait for the result."""
    with expect_run(page):
        page.get_by_test_id("source").fill(source)
        page.get_by_test_id("run").click()


def pick_example(page, example_id: str) -> None:
    """Choose an example from the menu (it runs; the one shown already runs again) and wait."""
    chooser = page.get_by_test_id("examples")
    with expect_run(page):
        if chooser.input_value() == example_id:
            page.get_by_test_id("run").click()
        else:
            chooser.select_option(example_id)


def chapters(page) -> list[tuple[str, int]]:
    """The pass chooser's entries: (text, first step, 1-based)."""
    return page.evaluate("""() => [...document.querySelectorAll('#chapter option')]
      .map((o) => [o.textContent, Number(o.value) + 1])""")


def pass_steps(page, n: int = 1) -> tuple[int, int]:
    """First and last step (1-based) of backward pass number n as the pass chooser shows it."""
    ch = chapters(page)
    total = step_label(page)[1]
    for i, (text, first) in enumerate(ch):
        if re.match(rf"Backward pass {n}\b|第 {n} 次反向传播", text):
            end = ch[i + 1][1] - 1 if i + 1 < len(ch) else total
            return first, end - 1  # the frame before the next chapter is the pass's end
    raise AssertionError(f"no backward pass {n} in {ch}")


def step_label(page) -> tuple[int, int]:
    """The "i / n" label as numbers."""
    i, n = page.get_by_test_id("step-label").inner_text().split("/")
    return int(i), int(n)


# The screens the page is tested on: a projector or laptop, a large monitor, a phone; each in both
# languages.
CONFIGS = [(1280, 720, "en"), (1280, 720, "zh"), (1920, 1080, "en"), (1920, 1080, "zh"), (390, 844, "en"),
           (390, 844, "zh")]


# Two halves of CONFIGS, each with every screen and both languages between them: a test that costs
# more runs on one half (@pytest.mark.screens(HALF_A)), so each screen and language is still covered.
HALF_A = [(1280, 720, "en"), (1920, 1080, "zh"), (390, 844, "en")]
HALF_B = [(1280, 720, "zh"), (1920, 1080, "en"), (390, 844, "zh")]

# A laptop and a phone, crossed with the two languages: a property that holds alike on every screen
# and in either language (the words it checks are read in the page's language) runs on one pair,
# so it is still seen on a laptop and a phone, in English and Chinese, by two pages.
PAIR_A = [(1280, 720, "en"), (390, 844, "zh")]
PAIR_B = [(1280, 720, "zh"), (390, 844, "en")]


def config_id(config) -> str:
    width, height, lang = config
    return f"{width}x{height}-{lang}"


def open_page(browser, server, width=1280, height=720, lang="en", errors=None, path="/", before=None, **kw):
    """A fresh context (a phone's when narrow) showing the page in `lang`, ready; `before(page)` runs
    before the page loads (e.g. to answer a request in the test's place)."""
    phone = width < 600
    ctx = browser.new_context(viewport={"width": width, "height": height},
                              locale="zh-CN" if lang == "zh" else "en-US", is_mobile=phone, has_touch=phone,
                              accept_downloads=True, **kw)
    page = ctx.new_page()
    if errors is not None:
        errors.attach(page)
    if before is not None:
        before(page)
    page.goto(server + path)
    wait_ready(page)
    return page


# What a test leaves on a shared page that the next one must not inherit: focus, the window's scroll, the
# player playing, classroom mode, the other language, a graph level other than Auto (later runs would
# be drawn at it). Switching the level back runs the program shown again at Auto (a cached answer).
_RESET = """async (lang) => {
  document.activeElement && document.activeElement.blur();
  window.scrollTo(0, 0);
  const { state } = await import('/static/js/state.js');
  const button = (id) => document.querySelector(`[data-testid=${id}]`);
  const pressed = (id) => button(id).getAttribute('aria-pressed') === 'true';
  if (pressed('play')) button('play').click();
  if (state.present) button('present').click();
  if (!document.documentElement.lang.startsWith(lang)) button('lang').click();
  return !pressed('fold-auto');
}"""


class Screens:
    """Pages kept open for the tests of one module, one per screen and language: a page opens when a
    test first asks for its screen, and each test after that starts from the program the last one
    left, with what would carry over into its own runs reset (``use``). Opening a page (a context,
    the page's modules, the first example drawn) costs more than most of the tests on it."""

    def __init__(self, browser, server):
        self.browser, self.server = browser, server
        self.open: dict[tuple, SimpleNamespace] = {}

    def get(self, config) -> SimpleNamespace:
        """The page for ``(width, height, lang)``: SimpleNamespace(page, width, height, lang, phone,
        wide, name, errors)."""
        config = tuple(config)
        if config not in self.open:
            width, height, lang = config
            errors = PageErrors()
            page = open_page(self.browser, self.server, width, height, lang, errors=errors)
            self.open[config] = SimpleNamespace(page=page, width=width, height=height, lang=lang,
                                                phone=width < 600, wide=width > 1000,
                                                name=config_id(config), errors=errors)
        return self.open[config]

    def use(self, config):
        """A fixture's body: yields the page for ``config``; afterwards no error but 4xx answers in
        the console since the test began, and the page reset for the next test (or closed, so that
        the next test opens a fresh one, when resetting it fails, e.g. after a failed test)."""
        shown = self.get(config)
        since = len(shown.errors.items)
        yield shown
        new = [e for e in shown.errors.items[since:] if "status of 4" not in e]
        try:
            if shown.page.evaluate(_RESET, shown.lang):
                with expect_event(shown.page, "relayout", timeout=30_000):
                    shown.page.evaluate("() => document.querySelector('[data-testid=fold-auto]').click()")
        except Exception:  # a page left in a state it cannot leave is replaced
            self.discard(config)
        assert not new, f"errors in the browser console: {new}"

    def use_page(self, config):
        """``use`` for the fixtures that give ``(page, "<width>x<height>-<lang>", lang)``."""
        for shown in self.use(config):
            yield shown.page, shown.name, shown.lang

    def discard(self, config) -> None:
        shown = self.open.pop(tuple(config), None)
        if shown is not None:
            shown.page.context.close()

    def close(self) -> list[str]:
        """Close every page; the errors they logged but 4xx answers."""
        real = []
        for config in list(self.open):
            real += [e for e in self.open[config].errors.items if "status of 4" not in e]
            self.discard(config)
        return real


def screen_page(request, browser, server):
    """A fixture's body for a page of the test's own (``request.param``: width, height, language):
    yields ``(page, "<width>x<height>-<lang>", lang)``; afterwards no error but 4xx answers in the
    console."""
    width, height, lang = request.param
    errors = PageErrors()
    page = open_page(browser, server, width, height, lang, errors=errors)
    yield page, config_id(request.param), lang
    page.context.close()
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console: {real}"


def blur(page) -> None:
    """Nothing focused: keys go to the page (the player), not to a field."""
    page.evaluate("document.activeElement && document.activeElement.blur()")


def every_frame(page) -> list[str]:
    """The step explanation of every frame, first to last."""
    blur(page)
    page.keyboard.press("Home")
    out = []
    for _ in range(step_label(page)[1]):
        out.append(page.locator("#explain").inner_text())
        page.keyboard.press("ArrowRight")
    return out


def in_viewport(page, locator) -> bool:
    """Is the element's box inside the visible part of the window?"""
    box = locator.bounding_box()
    size = page.viewport_size
    if not box:
        return False
    return (box["y"] >= -1 and box["y"] + box["height"] <= size["height"] + 1 and box["x"] >= -1
            and box["x"] + box["width"] <= size["width"] + 1)


# A button pressed n times in a row, one press per drawn frame (the page draws each step before the
# next press), in the page: no round trip to the test per press.
_PRESSES = """async ([testid, n]) => {
  const button = document.querySelector(`[data-testid=${testid}]`);
  for (let i = 0; i < n; i++) {
    if (button.disabled) return i;
    button.click();
    await new Promise((done) => requestAnimationFrame(() => done()));
  }
  return n;
}"""


def press_times(page, testid: str, n: int) -> int:
    """Press the visible button ``testid`` (of a page or a frame) ``n`` times, one press per drawn
    frame; how many presses it took before it was disabled."""
    button = page.locator(f"[data-testid={testid}]")
    assert button.is_visible(), f"{testid} is not on screen"
    return page.evaluate(_PRESSES, [testid, n])

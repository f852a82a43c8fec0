"""Helpers for tests that drive the real page: server launcher, Chromium settings, page helpers.
The session fixtures built on them are in tests/conftest.py, so every browser test shares one
server and one Chromium (two sync Playwright instances cannot live in one process)."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

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


def runs(page) -> int:
    """How many runs the page has finished (body[data-runs])."""
    return int(page.evaluate("Number(document.body.dataset.runs || 0)"))


def wait_ready(page, before: int = 0, timeout: float = 60_000) -> None:
    """Wait until the page finished a run after ``before`` runs (success or error)."""
    page.wait_for_function(f"Number(document.body.dataset.runs || 0) > {before}", timeout=timeout)


def run_source(page, source: str) -> None:
    """Type a program into the editor, press Run and wait for the result."""
    before = runs(page)
    page.get_by_test_id("source").fill(source)
    page.get_by_test_id("run").click()
    wait_ready(page, before)


def pick_example(page, example_id: str) -> None:
    """Choose an example from the menu (it runs) and wait for the result."""
    before = runs(page)
    page.get_by_test_id("examples").select_option(example_id)
    wait_ready(page, before)


def step_label(page) -> tuple[int, int]:
    """The "i / n" label as numbers."""
    i, n = page.get_by_test_id("step-label").inner_text().split("/")
    return int(i), int(n)

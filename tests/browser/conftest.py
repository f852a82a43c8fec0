"""Browser tests: start the real server once per session (python -m app on a free port), drive
Debian's Chromium with Playwright, and fail any test whose page logged an error."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pytest

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


@pytest.fixture(scope="session")
def server():
    """Base URL of a running gradviz (GRADVIZ_BASE_URL to reuse one that is already running)."""
    given = os.environ.get("GRADVIZ_BASE_URL")
    if given:
        wait_healthy(given, None)
        yield given.rstrip("/")
        return
    port = free_port()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)]
    # The log goes to a file: a pipe nobody reads would fill up and stall the server.
    log = tempfile.NamedTemporaryFile("w+", prefix="gradviz-server-", suffix=".log", delete=False)
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    proc.log_path = log.name
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def examples(server):
    """GET /api/examples."""
    return httpx.get(f"{server}/api/examples", timeout=30).json()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


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


@pytest.fixture
def errors():
    return PageErrors()


@pytest.fixture
def page(browser, server, errors):
    """The page at 1280x720 in English, first example drawn; fails the test on page errors."""
    pg = new_page(browser, server, errors=errors)
    wait_ready(pg)
    yield pg
    pg.context.close()
    # A 4xx answer is logged by Chromium as a failed resource load; that is the API's contract,
    # not a page error.
    real = [e for e in errors.items if "status of 4" not in e]
    assert not real, f"errors in the browser console: {real}"


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

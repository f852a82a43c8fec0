"""Session fixtures shared by every test folder: the real server (python -m app on a free port)
and Debian's Chromium driven by Playwright; page errors fail the test that caused them."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest
from browser.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    PageErrors,
    free_port,
    new_page,
    wait_healthy,
    wait_ready,
)
from file_costs import costliest_first, report


def _import_this_checkout() -> None:
    """Make ``import engine`` and ``import app`` load the checkout these tests belong to, whatever
    the working directory (an editable install of another checkout, or a test package named like
    one of them, would otherwise win), and stop the session if they were loaded from elsewhere."""
    if sys.path[0] != str(ROOT):
        sys.path.insert(0, str(ROOT))
    import app
    import engine

    for module in (app, engine):
        if Path(module.__file__).resolve().parent.parent != ROOT:
            raise pytest.UsageError(f"tests of {ROOT} would test {module.__file__}: run them from {ROOT}")


_import_this_checkout()


def pytest_configure(config):
    """Keep the order pytest_collection_modifyitems gives (costliest files first): xdist would
    otherwise reorder the files by their number of tests."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The costliest files first (tests/file_costs.py), after pytest has grouped the tests."""
    items[:] = costliest_first(items)


def pytest_terminal_summary(terminalreporter):
    """The slowest test files, so that test time stays a figure everyone sees."""
    reports = [rep for reps in terminalreporter.stats.values() for rep in reps]
    report(terminalreporter, reports)


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

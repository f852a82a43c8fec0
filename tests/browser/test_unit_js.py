"""The page's plain-logic modules (timeline, player, share, format) tested in Chromium."""

from pathlib import Path

import pytest

from .support import new_page

UNIT = Path(__file__).parent / "js" / "unit_tests.js"


@pytest.mark.browser
def test_js_unit_tests_pass(browser, server, errors):
    page = new_page(browser, server, errors=errors)
    page.add_script_tag(content=UNIT.read_text(), type="module")
    page.wait_for_function("Array.isArray(window.__unitResults)", timeout=20_000)
    results = page.evaluate("window.__unitResults")
    page.context.close()
    assert len(results) >= 14
    failed = [r for r in results if not r["ok"]]
    assert not failed, "\n".join(f"{r['name']}: {r['message']}" for r in failed)

"""A busy server (503 with Retry-After) is not an error on the page: the Run button counts down
"retrying in N s" in the page's language, then the run goes through on its own."""

from __future__ import annotations

import pytest

from .support import expect_run, new_page, wait_ready

BUSY = '{"error": {"type": "ServerBusy", "message": "the server is busy", "line": null, "col": null}}'


@pytest.mark.parametrize("locale,text", [("en-US", "retry in"), ("zh-CN", "秒后重试")])
def test_a_busy_server_is_retried_with_a_countdown(browser, server, errors, locale, text):
    page = new_page(browser, server, locale=locale, errors=errors)
    wait_ready(page)
    refusals = {"left": 2}

    def busy_twice(route):
        if refusals["left"] > 0:
            refusals["left"] -= 1
            route.fulfill(status=503, body=BUSY,
                          headers={"Retry-After": "1", "Content-Type": "application/json"})
        else:
            route.continue_()

    page.route("**/api/run", busy_twice)
    seen = []
    page.expose_function("noteButton", lambda label: seen.append(label))
    page.evaluate("""() => { const b = document.querySelector('[data-testid=run]');
        new MutationObserver(() => window.noteButton(b.textContent))
          .observe(b, {childList: true, characterData: true, subtree: true}); }""")
    with expect_run(page) as done:
        page.get_by_test_id("run").click()
    assert done.value["ok"] is True
    assert refusals["left"] == 0
    assert any(text in label for label in seen), seen
    assert page.get_by_test_id("run").is_enabled()
    page.context.close()

"""Markup from the network never runs in the page, by two layers that each stop it alone: the page
parses a drawing as inert XML and keeps only what graphviz writes (static/js/safe_svg.js), tested
with the browser's Content-Security-Policy switched off; and the policy itself (app/server/csp.py), under
which the page, a file written by ``gradviz render`` opened from disk and the notebook's player play
their runs without a single violation."""

from __future__ import annotations

import re

import pytest

from gradviz.notebook import iframe
from gradviz.output import html as page_html

from .support import pick_example, press_times, wait_ready

pytestmark = pytest.mark.browser

# Every violation the page reports, kept where the test can read it (set before the page's scripts).
WATCH = """window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""
EVIL = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
viewBox="0 0 200 100">
<image href="data:," onerror="window.__pwned='image'"/>
<script>window.__pwned='script'</script>
<g id="n1" class="node" onclick="window.__pwned='click'" onmouseover="window.__pwned='hover'">
<ellipse cx="50" cy="50" rx="40" ry="20" fill="#eee" stroke="#000"/><text x="50" y="55">x</text></g>
<a xlink:href="javascript:window.__pwned='link'" id="evil-link"><text x="120" y="55">link</text></a>
<a href="javascript:window.__pwned='link2'"><text x="120" y="85">link</text></a>
<foreignObject width="100" height="100"><div xmlns="http://www.w3.org/1999/xhtml">
<img src="data:," onerror="window.__pwned='foreign'"/></div></foreignObject>
<set attributeName="onmouseover" to="window.__pwned='set'"/>
<svg onload="window.__pwned='nested'"/>
<style>@import url("data:text/css,g{}"); g { fill: url(data:,x) }</style>
<g fill="url(data:,x)" style="background:url(data:,x)"><rect fill="\\75 rl(data:,x)"/></g>
</svg>"""
# What of the hostile drawing is left in the page's drawing.
FOUND = """() => {
  const svg = document.querySelector('[data-testid=graph] svg');
  const all = [...svg.querySelectorAll('*')];
  const names = all.flatMap((el) => [...el.attributes].map((a) => a.name));
  const kinds = all.map((el) => el.localName);
  const styles = [...svg.querySelectorAll('style')].map((s) => s.textContent);
  return {
    on: names.filter((n) => /^on/i.test(n)),
    banned: kinds.filter((n) => /^(image|script|foreignObject|set|img|div)$/.test(n)),
    hrefs: all.filter((el) => el.hasAttribute('href') || el.hasAttribute('xlink:href')).length,
    styles: styles.filter((t) => /url\\(data|@import/.test(t)),
    urls: all.filter((el) => /\\(data/.test(el.getAttribute('fill'))
      || /url/.test(el.getAttribute('style'))).length,
  };
}"""
# What the attacker sent first: HTML-style markup (not well-formed XML with its namespace).
EVIL_HTML = '<svg><image href="data:," onerror="window.__pwned=\'html\'"/></svg>'


def context(browser, **kw):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, accept_downloads=True, **kw)
    ctx.add_init_script(WATCH)
    return ctx


def violations(page) -> list[str]:
    return page.evaluate("window.__csp")


def serving(svg: str):
    """A route handler that answers each run with the server's answer, its first drawing replaced."""

    def handle(route):
        response = route.fetch()
        data = response.json()
        if data.get("views"):
            data["views"][0]["svg"] = svg
        route.fulfill(response=response, json=data)

    return handle


@pytest.mark.parametrize("svg", [EVIL, EVIL_HTML], ids=["svg", "html"])
def test_a_hostile_drawing_runs_nothing_even_without_the_policy(browser, server, svg):
    ctx = context(browser, bypass_csp=True)  # the sanitizer alone
    page = ctx.new_page()
    try:
        page.route("**/api/run", serving(svg))
        page.goto(server + "/")
        wait_ready(page)
        pick_example(page, "neuron")
        graph = page.get_by_test_id("graph")
        if svg is EVIL:
            page.wait_for_selector("[data-testid=graph] svg #n1")
            graph.locator("#n1").hover()
            graph.locator("#n1").click()
            graph.locator("#evil-link").click()
            found = page.evaluate(FOUND)
            assert found == {"on": [], "banned": [], "hrefs": 0, "styles": [], "urls": 0}
        page.wait_for_timeout(300)  # an image's error event would have fired by now
        assert page.evaluate("window.__pwned") is None
        assert page.url.startswith(server)
    finally:
        ctx.close()


def test_the_policy_alone_stops_inline_markup(browser, server):
    ctx = context(browser)
    page = ctx.new_page()
    try:
        page.goto(server + "/")
        wait_ready(page)
        # markup put into the document the way the old drawing code did (innerHTML): its handler is
        # inline script, which the page's policy does not allow
        page.evaluate("""() => { const d = document.createElement('div');
          d.innerHTML = '<img src="data:," onerror="window.__pwned=1">'
            + '<svg><image href="data:," onerror="window.__pwned=2"/></svg>';
          document.body.append(d); }""")
        page.wait_for_function("() => window.__csp.length >= 1")
        page.wait_for_timeout(200)
        assert page.evaluate("window.__pwned") is None
        assert all(v.startswith("script-src") for v in violations(page))
    finally:
        ctx.close()


def test_the_page_plays_a_run_without_a_violation(browser, server):
    ctx = context(browser)
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    try:
        response = page.goto(server + "/")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        wait_ready(page)
        pick_example(page, "mlp")
        for _ in range(6):
            page.get_by_test_id("step-next").click()
        shown = page.get_by_test_id("step-label").inner_text()
        page.get_by_test_id("play").click()  # played until it has moved on a step
        page.wait_for_function("(was) => document.querySelector('[data-testid=step-label]').innerText"
                               " !== was", arg=shown)
        page.get_by_test_id("play").click()
        page.get_by_test_id("lang").click()
        page.get_by_test_id("step-prev").click()
        for name in ("export-svg", "export-png"):  # a blob: image, a download
            with page.expect_download():
                page.get_by_test_id(name).click()
        assert page.locator("[data-testid=graph] svg g.node").count() > 3
        assert violations(page) == [] and console == []
    finally:
        ctx.close()


NEURON = "x = torch.tensor([2.0], requires_grad=True)\nw = torch.tensor([3.0], requires_grad=True)\n" \
         "loss = (torch.sigmoid(x * w) - 1.0) ** 2\nloss.backward()\n"


def steps_through(page_or_frame) -> int:
    """Step to the end of the run shown (a page, or the frame of the notebook's player); how many
    steps it has."""
    label = page_or_frame.get_by_test_id("step-label")
    at, total = (int(n) for n in label.inner_text().split("/"))
    press_times(page_or_frame, "step-next", total - at)
    assert label.inner_text().replace(" ", "") == f"{total}/{total}"
    return total


def test_a_file_opened_from_disk_plays_under_its_own_policy(browser, tmp_path):
    text = page_html(NEURON)
    path = tmp_path / "neuron.html"
    path.write_text(text, encoding="utf-8")
    # the same file with a script slipped in: it carries no hash the policy allows
    tampered = tmp_path / "tampered.html"
    tampered.write_text(text.replace("</body>", "<script>window.__pwned = 1</script></body>"),
                        encoding="utf-8")
    ctx = context(browser)
    try:
        page = ctx.new_page()
        page.goto(path.as_uri())
        wait_ready(page, timeout=30_000)
        policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
        assert re.search(r"script-src 'sha256-[\w+/=]+';", policy)
        assert steps_through(page) > 3 and violations(page) == []
        bad = ctx.new_page()
        bad.goto(tampered.as_uri())
        wait_ready(bad, timeout=30_000)
        assert bad.evaluate("window.__pwned") is None
        assert [v for v in violations(bad) if v.startswith("script-src")]
    finally:
        ctx.close()


def test_the_notebook_player_plays_under_its_own_policy(browser, tmp_path):
    host = tmp_path / "notebook-output.html"
    host.write_text(f"<!doctype html><html><body>{iframe(page_html(NEURON))}</body></html>", encoding="utf-8")
    ctx = context(browser)
    try:
        page = ctx.new_page()
        page.goto(host.as_uri())
        frame = page.frame_locator("iframe[data-gradviz=player]")
        frame.locator("[data-testid=graph] svg").wait_for(timeout=30_000)
        assert frame.locator('meta[http-equiv="Content-Security-Policy"]').count() == 1
        inner = next(f for f in page.frames if f != page.main_frame)
        assert steps_through(inner) > 3
        assert inner.evaluate("window.__csp") == []
    finally:
        ctx.close()

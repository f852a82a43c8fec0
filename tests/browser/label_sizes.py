"""What the graph view shows as rendered: the size of its text on screen (CSS px) and which nodes lie
inside the graph's box. Sizes are measured from the elements as drawn (computed font size times the
text's own screen scale, which takes in the pan and zoom transform), never in the drawing's units.

Run on its own it prints, for every built-in example (GET /api/examples), the node labels' smallest
and median size and how many nodes the default view shows, at 1280x720 and 1920x1080, with and
without classroom mode: ``GRADVIZ_BASE_URL=http://127.0.0.1:8000 python -m tests.browser.label_sizes``.
"""

from __future__ import annotations

import os
import statistics
import sys

# Text of the drawing on screen: node labels, values inside nodes, gradient labels; and the nodes
# whose box lies wholly inside the graph's box (a hidden node, not run yet, is not counted).
MEASURE = """() => {
  const host = document.querySelector('[data-testid=graph]');
  const svg = host && host.querySelector('svg.gv:not(.live)');
  if (!svg) return null;
  const hr = host.getBoundingClientRect();
  const px = (t) => {
    const m = t.getScreenCTM();
    if (!m) return null;
    return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
  };
  const sizes = (sel) => [...svg.querySelectorAll(sel)]
    .filter((t) => t.textContent.trim() && getComputedStyle(t).display !== 'none'
      && getComputedStyle(t).visibility !== 'hidden')
    .map((t) => {
      const r = t.getBoundingClientRect();
      const inside = r.right > hr.left && r.left < hr.right && r.bottom > hr.top && r.top < hr.bottom;
      return inside ? px(t) : null;
    })
    .filter((v) => v !== null);
  const nodes = [...svg.querySelectorAll('g.node[id^=n]:not(.ghost)')]
    .filter((g) => /^n\\d+$/.test(g.id) && g.dataset.s !== 'hidden');
  const inside = nodes.filter((g) => {
    const r = g.getBoundingClientRect();
    return r.width > 0 && r.left >= hr.left - 1 && r.right <= hr.right + 1 && r.top >= hr.top - 1
      && r.bottom <= hr.bottom + 1;
  });
  return {
    labels: sizes('g.node > text'),
    values: sizes('g.nvalues text, g.nvalues tspan'),
    grads: sizes('text.glabel'),
    nodes: nodes.length,
    inside: inside.length,
    minimap: !!document.querySelector('[data-testid=minimap]:not([hidden])'),
    host: [Math.round(hr.width), Math.round(hr.height)],
  };
}"""


def label_sizes(page) -> dict | None:
    """What the graph shows now: {labels, values, grads: [px], nodes, inside, minimap, host: [w, h]}."""
    return page.evaluate(MEASURE)


def summary(values: list[float]) -> tuple[float, float] | tuple[None, None]:
    """(smallest, median) of a list of sizes, rounded to a tenth; (None, None) for none."""
    if not values:
        return None, None
    return round(min(values), 1), round(statistics.median(values), 1)


# Each example chosen in the menu in turn, as a user would (the page runs it); once the page is at rest,
# what it shows (MEASURE). At rest: the run shown, an example's course view moved to the step it is
# about (when its data came after the run: ../../static/js/lenses/panel.js), the overview shown or
# hidden for that view, the graph's box at its size and the view no longer gliding. All in the page,
# no round trip per example: ``[[example id, its course view or null], ...]`` → ``[[id, measures]]``.
EVERY_EXAMPLE = """async (examples) => {
  const measure = MEASURE_FN;
  const { once, state } = await import('/static/js/state.js');
  const { pending } = await import('/static/js/extras.js');
  const chooser = document.querySelector('[data-testid=examples]');
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const busy = () => {
    const svg = document.querySelector('[data-testid=graph] svg.gv:not(.live)');
    return document.querySelector('main.layout').ariaBusy !== 'false' || (svg && svg.style.transition);
  };
  const rows = [];
  for (const [id, lens] of examples) {
    const ended = new Promise((done) => once('run-end', done));
    if (chooser.value === id) document.querySelector('[data-testid=run]').click();
    else {
      chooser.value = id;
      chooser.dispatchEvent(new Event('input', { bubbles: true }));
      chooser.dispatchEvent(new Event('change', { bubbles: true }));
    }
    const late = new Promise((done) => setTimeout(() => done('late'), 60000));
    if (await Promise.race([ended, late]) === 'late') throw new Error(`${id}: no run-end in 60 s`);
    const asked = performance.now() + 30000;
    while (lens && pending(state.response, lens) && !state.response.extras_failed) {
      if (performance.now() > asked) throw new Error(`${id}: its ${lens} view's data did not come in 30 s`);
      await frame();
    }
    // the frames after the run: the overview is shown or hidden at the next one, the graph's box
    // takes its size (the panels beside it filled) at the one after
    await frame();
    await frame();
    const until = performance.now() + 10000;
    while (busy() && performance.now() < until) await frame();
    if (busy()) throw new Error(`${id}: still busy or gliding 10 s after its run`);
    rows.push([id, measure()]);
  }
  return rows;
}""".replace("MEASURE_FN", MEASURE)


def table(browser, server, screens=((1280, 720), (1920, 1080)), classroom=(False, True),
          lang="en") -> list[dict]:
    """One row per example, screen and mode: the default view's label sizes and nodes shown."""
    import httpx

    from .support import open_page

    examples = httpx.get(f"{server}/api/examples", timeout=30).json()
    rows = []
    for width, height in screens:
        page = open_page(browser, server, width, height, lang)
        for present in classroom:
            button = page.get_by_test_id("present")
            if (button.get_attribute("aria-pressed") == "true") != present:
                button.click()
            for example, m in page.evaluate(EVERY_EXAMPLE, [[ex["id"], ex.get("lens")] for ex in examples]):
                m = m or {"labels": [], "values": [], "nodes": 0, "inside": 0, "minimap": False}
                lo, med = summary(m["labels"])
                vlo, _ = summary(m["values"])
                rows.append({"example": example, "screen": f"{width}x{height}", "classroom": present,
                             "min": lo, "median": med, "values_min": vlo, "nodes": m["nodes"],
                             "inside": m["inside"], "minimap": m["minimap"]})
        page.context.close()
    return rows


def format_table(rows: list[dict]) -> str:
    """The rows as a Markdown table."""
    out = ["| example | screen | classroom | label min px | label median px | values min px "
           "| nodes in view | overview |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {r['example']} | {r['screen']} | {'yes' if r['classroom'] else 'no'} | {r['min']} | "
                   f"{r['median']} | {r['values_min'] if r['values_min'] is not None else '—'} | "
                   f"{r['inside']} / {r['nodes']} | {'yes' if r['minimap'] else 'no'} |")
    return "\n".join(out)


def main() -> None:
    """Print the table for the server at GRADVIZ_BASE_URL."""
    from playwright.sync_api import sync_playwright

    from .support import CHROMIUM, CHROMIUM_ARGS

    server = os.environ.get("GRADVIZ_BASE_URL", "http://127.0.0.1:8000").rstrip("/")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        rows = table(browser, server)
        browser.close()
    print(format_table(rows))
    sys.stdout.flush()


if __name__ == "__main__":
    main()


# Every piece of text on screen smaller than `least` CSS px: [size, the text, where it is]. Text in an
# SVG counts at its size on screen (its font size times its screen scale); hidden text, text out of
# the window or clipped away by its scrolling box, and text read only by screen readers do not count.
SMALL_TEXT = """(least) => {
  const out = [];
  const vw = innerWidth, vh = innerHeight;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || seen.has(el) || el.closest('.sr, script, style, title, option, [hidden]')) continue;
    seen.add(el);
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) === 0) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.bottom <= 0 || r.top >= vh || r.right <= 0 || r.left >= vw) continue;
    // clipped away by a scrolling or clipping ancestor (the graph's box, a panel that scrolls)
    let clipped = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.display === 'contents') continue;
      const clips = /(auto|scroll|hidden|clip)/.test(s.overflow + s.overflowX + s.overflowY)
        || s.contain.includes('paint') || s.contain === 'strict';
      if (!clips) continue;
      const ar = a.getBoundingClientRect();
      if (r.bottom <= ar.top || r.top >= ar.bottom || r.right <= ar.left || r.left >= ar.right) {
        clipped = true;
        break;
      }
    }
    if (clipped) continue;
    let px = parseFloat(cs.fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      if (m) px *= Math.hypot(m.a, m.b);
    }
    if (px < least - 0.05) {
      const where = el.closest('[data-testid], [id], [class]');
      const tag = where ? (where.dataset.testid || where.id || where.getAttribute('class')) : el.tagName;
      out.push([Math.round(px * 10) / 10, n.textContent.trim().slice(0, 40), String(tag).slice(0, 40)]);
    }
  }
  return out;
}"""


def small_text(page, least: float = 16) -> list:
    """Text on screen smaller than `least` CSS px: [size, text, where]."""
    return page.evaluate(SMALL_TEXT, least)

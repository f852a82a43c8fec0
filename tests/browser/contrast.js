// WCAG contrast of every text the page shows: each visible text (its colour over the backgrounds behind
// it) and the drawing's gradient labels and node values (on the drawing's white). Returns
// [{text, ratio, need}]: need is 4.5, or 3 for large text (24 px, or 18.66 px bold). Used by
// tests/browser/test_classroom.py.
() => {
  const rgb = (c) => { const m = c.match(/[\d.]+/g).map(Number); return m.length > 3 ? m : [...m, 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3]));
  const background = (el) => {  // the colour behind el: its ancestors' backgrounds, blended
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reverse().reduce((acc, c) => over(c, acc), [255, 255, 255]);
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest('svg, [hidden], option, textarea, select')) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('button:disabled')) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || el.checkVisibility && !el.checkVisibility({ opacityProperty: true })) continue;
    const large = parseFloat(st.fontSize) >= 24 || (parseFloat(st.fontSize) >= 18.66 && Number(st.fontWeight) >= 700);
    const fg = over(rgb(st.color), background(el));
    out.push({ text: n.textContent.trim().slice(0, 30), ratio: ratio(fg, background(el)), need: large ? 3 : 4.5 });
  }
  // gradient labels, values in the nodes and node names on the white drawing
  for (const t of document.querySelectorAll('[data-testid=graph] text.glabel, [data-testid=graph] text.nval tspan')) {
    if (!t.textContent.trim() || !t.getBoundingClientRect().width) continue;
    out.push({ text: 'graph: ' + t.textContent, ratio: ratio(rgb(getComputedStyle(t).fill), [255, 255, 255]), need: 4.5 });
  }
  return out;
}

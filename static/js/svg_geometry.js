/**
 * Geometry of graphviz's SVG elements read from their attributes, not from the browser's layout:
 * asking the browser (getBBox, getTotalLength) right after the player has changed states in a
 * drawing of thousands of elements makes it recompute the style of the whole drawing first, each
 * time. These read the numbers graphviz wrote, which the page never changes.
 */

const EXPONENT = /^[eE][-+]?\d+/;
const TENS = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The numbers of an attribute ("54.65,-287.7 C54.65,-279.98 ..."), in order. Read character by
 * character (a large drawing's paths hold a quarter of a million numbers): digits / 10^k is the
 * double Number() reads for up to 15 digits and 22 decimals; anything longer goes to Number().
 */
export function numbers(text) {
  const out = [];
  if (!text) return out;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if ((c < 48 || c > 57) && c !== 45 && c !== 46) {
      i++;
      continue;
    }
    let j = c === 45 ? i + 1 : i;
    let digits = 0;
    let mant = 0;
    let decimals = 0;
    let d;
    while (j < n && (d = text.charCodeAt(j) - 48) >= 0 && d <= 9) {
      mant = mant * 10 + d;
      digits++;
      j++;
    }
    if (j < n && text.charCodeAt(j) === 46) {
      j++;
      while (j < n && (d = text.charCodeAt(j) - 48) >= 0 && d <= 9) {
        mant = mant * 10 + d;
        digits++;
        decimals++;
        j++;
      }
    }
    if (!digits) {
      i = Math.max(j, i + 1);
      continue;
    }
    const e = j < n ? text.charCodeAt(j) : 0;
    const exp = e === 101 || e === 69 ? EXPONENT.exec(text.slice(j, j + 8)) : null;
    if (exp) j += exp[0].length;
    if (exp || digits > 15 || decimals > 22) out.push(Number(text.slice(i, j)));
    else out.push(c === 45 ? -mant / TENS[decimals] : mant / TENS[decimals]);
    i = j;
  }
  return out;
}

/**
 * The box of a node, a box or a frame drawn by graphviz: the union of its outline shapes
 * (ellipse, polygon, path; a Bézier's control points bound its curve), or null when it has none.
 * `withText`: an edge's labels too (estimated from their length).
 */
export function shapeBox(g, withText = false) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (x, y) => {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  };
  for (const el of g.children) {
    const tag = el.localName;
    if (tag === "ellipse") {
      const cx = Number(el.getAttribute("cx"));
      const cy = Number(el.getAttribute("cy"));
      const rx = Number(el.getAttribute("rx"));
      const ry = Number(el.getAttribute("ry"));
      add(cx - rx, cy - ry);
      add(cx + rx, cy + ry);
    } else if (tag === "polygon" || tag === "polyline" || tag === "path") {
      const v = numbers(el.getAttribute(tag === "path" ? "d" : "points"));
      for (let i = 0; i + 1 < v.length; i += 2) add(v[i], v[i + 1]);
    } else if (tag === "text" && withText) {
      // an edge's label: about 0.6 em per character, centred or starting at x, on the baseline y
      const x = Number(el.getAttribute("x"));
      const y = Number(el.getAttribute("y"));
      const size = Number(el.getAttribute("font-size")) || 14;
      const w = 0.6 * size * el.textContent.length;
      const left = el.getAttribute("text-anchor") === "middle" ? x - w / 2 : el.getAttribute("text-anchor") === "end" ? x - w : x;
      add(left, y - size);
      add(left + w, y + size * 0.25);
    }
  }
  return x0 <= x1 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

function bezier(p, i, t) {
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const c = 3 * u * t * t;
  const d = t * t * t;
  return { x: a * p[i] + b * p[i + 2] + c * p[i + 4] + d * p[i + 6], y: a * p[i + 1] + b * p[i + 3] + c * p[i + 5] + d * p[i + 7] };
}

const SAMPLES = 8; // points per Bézier piece: the middle lands within a fraction of a point

/**
 * An edge path as graphviz writes it ("M x,y C x1,y1 x2,y2 x3,y3 ..."): its middle by length,
 * its first and last points; null when it is not such a path.
 */
export function pathGeometry(d) {
  const v = numbers(d);
  if (v.length < 8 || (v.length - 2) % 6 !== 0) return null;
  const pts = [{ x: v[0], y: v[1] }];
  for (let i = 0; i + 7 < v.length; i += 6) {
    for (let s = 1; s <= SAMPLES; s++) pts.push(bezier(v, i, s / SAMPLES));
  }
  const lens = [0];
  for (let k = 1; k < pts.length; k++) lens.push(lens[k - 1] + Math.hypot(pts[k].x - pts[k - 1].x, pts[k].y - pts[k - 1].y));
  const half = lens[lens.length - 1] / 2;
  let k = 1;
  while (k < pts.length - 1 && lens[k] < half) k++;
  const span = lens[k] - lens[k - 1] || 1;
  const f = (half - lens[k - 1]) / span;
  const mid = { x: pts[k - 1].x + f * (pts[k].x - pts[k - 1].x), y: pts[k - 1].y + f * (pts[k].y - pts[k - 1].y) };
  return { mid, start: pts[0], end: pts[pts.length - 1] };
}

/** Where the graph view looks (graph.js): where a drawing starts, following the current node, readable text. */

/** The start of a window of `size` moved to lie within [lo, lo + span] where it fits. */
function clampInto(start, size, lo, span) {
  if (size >= span) return lo + span / 2 - size / 2;
  return Math.max(lo, Math.min(lo + span - size, start));
}

/**
 * The smallest text the drawing shows, in its own units: its node labels' smallest font, or a
 * line of values inside a node written smaller (classroom mode writes them at least as large).
 */
function textUnits(gv) {
  const d = gv.drawing;
  let least = d.minFont;
  if (gv.showValues && d.values) {
    for (const v of d.values.lines.values()) {
      if (!v || v.line.style.visibility === "hidden") continue;
      least = Math.min(least, Number(v.line.getAttribute("font-size")) || least);
    }
  }
  return least;
}

/** Is the drawing's smallest text at least readablePx tall on screen (the host as last measured)? */
export function readableNow(gv) {
  const pz = gv.panzoom;
  const b = pz.box;
  if (!b || !gv.drawing) return false;
  return Math.min((pz.W || 1) / b.w, (pz.H || 1) / b.h) >= (gv.readablePx / textUnits(gv)) * 0.995;
}

/** A line of values written smaller at this frame (a longer number), or a host that shrank: zoom in
 * to keep the text readable. */
export function keepReadable(gv) {
  const pz = gv.panzoom;
  const b = pz.box;
  if (!b || readableNow(gv)) return;
  const W = pz.W || 1;
  const H = pz.H || 1;
  const want = gv.readablePx / textUnits(gv);
  const w = W / want;
  const h = H / want;
  pz.set({ x: b.x + b.w / 2 - w / 2, y: b.y + b.h / 2 - h / 2, w, h });
}

/**
 * Where a view starts (a new run, another drawing) and where Fit goes: the whole drawing when
 * its smallest text is at least readablePx tall on screen that way; else that text readablePx
 * tall around the node (or box) `id`, the rest on the overview (minimap.js).
 */
export function startBox(gv, id) {
  const d = gv.drawing;
  const pz = gv.panzoom;
  if (!d || !pz.home) return pz.home;
  const W = pz.W || 1;
  const H = pz.H || 1;
  const home = pz.home;
  const s = gv.readablePx / textUnits(gv);
  if (Math.min(W / home.w, H / home.h) >= s * 0.999) return home;
  const b = id !== undefined ? d.box(id) : null;
  const w = W / s;
  const h = H / s;
  // Not past the drawing's own edges where it can be helped: without a node, the start (left, top).
  const cx = b ? b.x + b.w / 2 : home.x + w / 2;
  const cy = b ? b.y + b.h / 2 : home.y + h / 2;
  return { x: clampInto(cx - w / 2, w, home.x, home.w), y: clampInto(cy - h / 2, h, home.y, home.h), w, h };
}

/**
 * Keep the current node on screen. At the start (a new run, another drawing), a drawing too big
 * to read whole (a phone, an MLP, a long chain) is shown at a readable scale around the node
 * (startBox). While stepping the view moves only when the node leaves it (gliding, unless the
 * user prefers reduced motion).
 */
export function follow(gv, id, fresh) {
  const d = gv.drawing;
  const b = d.box(id);
  const pz = gv.panzoom;
  if (!b || !pz.box) return;
  const cx = b.x + b.w / 2;
  const cy = b.y + b.h / 2;
  if (fresh) {
    pz.set(startBox(gv, id));
    return;
  }
  const box = pz.box;
  // "In view" keeps a margin: the gradient labels on the node's edges are read too.
  const inside = (lo, size, bLo, bSize) => {
    const m = Math.min(40, Math.max(0, (size - bSize) / 2) * 0.3);
    return bLo >= lo + m && bLo + bSize <= lo + size - m;
  };
  if (inside(box.x, box.w, b.x, b.w) && inside(box.y, box.h, b.y, b.h)) return;
  // A step to a neighbour: bring it back on the side it left by, so the walk goes on across the
  // screen (backward runs right to left in these drawings, forward left to right). A jump: centre it.
  const place = (lo, size, bLo, bSize, c) => {
    if (inside(lo, size, bLo, bSize)) return lo;
    if (bLo + bSize < lo - size / 2 || bLo > lo + size * 1.5) return c - size / 2;
    if (c < lo + size / 2) return Math.min(lo, c - size * 0.65);
    return Math.max(lo, c - size * 0.35);
  };
  const home = pz.home;
  const x = clampInto(place(box.x, box.w, b.x, b.w, cx), box.w, home.x, home.w);
  const y = clampInto(place(box.y, box.h, b.y, b.h, cy), box.h, home.y, home.h);
  if (x !== box.x || y !== box.y) pz.glide({ ...box, x, y });
}

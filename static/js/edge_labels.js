/**
 * The gradient written on each edge that carried one (`send`: just now, `carried`: earlier in the
 * pass), placed where it covers no node, no shape label and no other gradient label in a drawing
 * small enough to look; kept in groups that are drawn only near the view in a large one.
 */

import { shortText } from "./format.js";
import { BUCKET, SVGNS } from "./graph_svg.js";

// Gradient labels on edges: their largest font (drawing units), the baseline offsets tried from
// the edge's middle, and the graph size above which they are not moved off nodes (cost).
const LABEL_FONT = 11;
const LABEL_OFFSETS = [-4, 14, -16, 26, -28, 38];
const MAX_PLACED = 400;

export class EdgeLabels {
  /** drawing: the Drawing the labels are written on (its label layer, geometry and near view). */
  constructor(drawing) {
    this.d = drawing;
    this.labels = new Map(); // edge id -> <text>
    this.text = new Map(); // edge id -> the text shown
    this.spots = new Map(); // edge id -> the box its label takes (svg units)
    this.bucket = null; // the group new labels go into
  }

  /** Edge id's label for state s and the gradient it carried (hidden: "?" until revealed). */
  show(id, s, grad, hidden) {
    const d = this.d;
    const shown = s === "send" || s === "carried";
    const text = shown ? (hidden ? "?" : shortText(grad)) : "";
    const cls = `glabel${s === "send" ? " send" : ""}${hidden ? " concealed" : ""}`;
    if ((this.text.get(id) || "") === text) {
      const lab = this.labels.get(id);
      if (lab) lab.setAttribute("class", cls);
      return;
    }
    this.text.set(id, text);
    let lab = this.labels.get(id);
    if (!text) {
      if (lab) lab.textContent = "";
      this.spots.delete(id);
      return;
    }
    if (!lab) {
      if (!d.midpoint(id)) return;
      lab = document.createElementNS(SVGNS, "text");
      let bucket = this.bucket; // (the last one, even when it is not drawn now)
      if (!bucket || bucket.childElementCount >= BUCKET) {
        bucket = this.bucket = d.labelLayer.appendChild(document.createElementNS(SVGNS, "g"));
        if (d.near) d.near.add(bucket, null);
      }
      bucket.appendChild(lab);
      this.labels.set(id, lab);
    }
    const at = this.spot(id, text);
    if (d.near) {
      // the label's box (its width estimated): its group is drawn only near the view too
      const m = d.m;
      const w = text.length * LABEL_FONT * 0.62 + 4;
      d.near.grow(lab.parentNode, {
        x0: m.a * (at.x - w / 2) + m.e, x1: m.a * (at.x + w / 2) + m.e, y0: m.d * (at.y - LABEL_FONT) + m.f, y1: m.d * (at.y + 2) + m.f,
      });
    }
    lab.setAttribute("x", String(at.x));
    lab.setAttribute("y", String(at.y));
    lab.setAttribute("class", cls);
    lab.textContent = text;
  }

  /** Forget the labels and their places (the next render writes them again). */
  reset() {
    this.d.labelLayer.replaceChildren();
    this.labels.clear();
    this.text.clear();
    this.spots.clear();
    this.bucket = null;
  }

  /**
   * Where an edge's gradient label goes (its baseline centre): just above the edge's middle, or
   * the first spot below / further up (then beside) that covers no node's box, no shape label and
   * no other gradient label, so the value hides nothing on a short edge. Each spot is moved inside
   * the drawing's box (what Fit shows), so a label beside a node at its edge is not cut off. The
   * size is estimated (monospace), not measured: measuring would lay the drawing out again for
   * every label.
   */
  spot(id, text) {
    const d = this.d;
    const p = d.midpoint(id);
    const fs = LABEL_FONT;
    if (d.nodes.size > MAX_PLACED) return { x: p.x, y: p.y - 4 };
    const w = text.length * fs * 0.62 + 4;
    const m = d.m;
    const rect = (x, y) => ({
      x0: m.a * (x - w / 2) + m.e, x1: m.a * (x + w / 2) + m.e, y0: m.d * (y - fs) + m.f, y1: m.d * (y + 2) + m.f,
    });
    // A spot (dx, dy) moved so that the label's box lies inside the drawing's box (centred on it
    // when it is wider).
    const c = d.content;
    const into = (lo, hi, cLo, cHi) => (hi - lo >= cHi - cLo ? (cLo + cHi - lo - hi) / 2
      : lo < cLo ? cLo - lo : hi > cHi ? cHi - hi : 0);
    const inside = (dx, dy) => {
      if (!c) return [dx, dy];
      const r = rect(p.x + dx, p.y + dy);
      return [dx + into(r.x0, r.x1, c.x, c.x + c.w) / m.a, dy + into(r.y0, r.y1, c.y, c.y + c.h) / m.d];
    };
    const cover = (r, b) => Math.max(0, Math.min(r.x1, b.x1) - Math.max(r.x0, b.x0)) *
      Math.max(0, Math.min(r.y1, b.y1) - Math.max(r.y0, b.y0));
    const box = (b) => ({ x0: b.x, x1: b.x + b.w, y0: b.y, y1: b.y + b.h });
    // How much of what is already drawn a label at r would cover (0: a free spot).
    const covered = (r) => {
      let area = 0;
      for (const b of d.boxes.values()) area += cover(r, box(b));
      for (const b of d.shapeBoxes) area += cover(r, box(b));
      for (const [other, q] of this.spots) if (other !== id) area += cover(r, q);
      return area;
    };
    // An edge that runs up or down (a drawing top to bottom) takes its label beside it first.
    const beside = w / 2 + 5;
    const spots = d.vertical.get(id)
      ? [[beside, 4], [-beside, 4], [beside, -8], [-beside, -8], [beside, 16], [-beside, 16],
        ...LABEL_OFFSETS.map((dy) => [0, dy])]
      : [0, -w * 0.6, w * 0.6].flatMap((dx) => LABEL_OFFSETS.map((dy) => [dx, dy]));
    let best = null;
    for (const [x, y] of spots) {
      const [dx, dy] = inside(x, y);
      const r = rect(p.x + dx, p.y + dy);
      const area = covered(r);
      if (!best || area < best.area) best = { area, dx, dy, r };
      if (area === 0) break;
    }
    this.spots.set(id, best.r);
    return { x: p.x + best.dx, y: p.y + best.dy };
  }
}

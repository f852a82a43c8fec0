/**
 * Where things are in a mounted drawing, read from graphviz's attributes (svg_geometry.js) rather
 * than the browser's layout: node boxes, edge middles, the whole graph's box and its label size
 * (what "fit" and "readable" go by), and in a large drawing which groups of elements lie near the
 * view (near_view.js).
 */

import { DrawnElements } from "./drawn_elements.js";
import { LiveLayer } from "./live_layer.js";
import { NearView, unionBox } from "./near_view.js";
import { pathGeometry, shapeBox } from "./svg_geometry.js";

export const MAX_VALUES = 250; // nodes with values inside: only in graphs up to this size (cost per step)
// The smallest node label is drawn at least this tall (CSS px) unless the user zooms out (graph.js).
export const READABLE_PX = 11;
// Larger drawings measure a node or an edge when it is needed, not all at mount.
const MAX_MEASURED = 400;
// The nodes whose labels are read for the smallest label size (every node's in a small drawing).
const MIN_FONT_SAMPLE = 400;

export class DrawingGeometry extends DrawnElements {
  /**
   * Read the geometry the page needs (one layout), the first time the drawing is mounted: every
   * node's box and edge's middle for a drawing of up to MAX_MEASURED nodes; for a larger one only
   * the whole drawing's box, the rest when asked for (`box`, `midpoint`).
   */
  measure() {
    if (this.mid) return;
    this.mid = new Map();
    this.vertical = new Map(); // edge id -> runs more up/down than sideways
    // Node boxes in the svg's own coordinates (graphviz translates its root group).
    const tr = this.root.transform && this.root.transform.baseVal.consolidate();
    const m = tr ? tr.matrix : { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 };
    this.m = { a: m.a, d: m.d, e: m.e, f: m.f };
    this._place = (b) => ({ x: m.a * b.x + m.c * b.y + m.e, y: m.b * b.x + m.d * b.y + m.f, w: b.width * m.a, h: b.height * m.d });
    this.boxes = new Map();
    this.shapeBoxes = [];
    let lo = null;
    const grow = (b) => {
      if (!lo) lo = { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h };
      else lo = { x0: Math.min(lo.x0, b.x), y0: Math.min(lo.y0, b.y), x1: Math.max(lo.x1, b.x + b.w), y1: Math.max(lo.y1, b.y + b.h) };
    };
    const boxes = new Map(); // element -> its box in the svg's coordinates (its unit's offset added)
    const boxOf = (el) => {
      if (!boxes.has(el)) {
        const raw = shapeBox(el, true);
        const at = raw && this._unitOffset(el);
        boxes.set(el, raw ? this._place({ x: raw.x + at.x, y: raw.y + at.y, width: raw.width, height: raw.height }) : null);
      }
      return boxes.get(el);
    };
    // Top-level elements only: a frame's box already covers the drawing inside it.
    for (const el of this.top) {
      grow(boxOf(el) || this._place(el.getBBox()));
    }
    if (!this.measuredApart) this._measureAll();
    this._nearView(boxOf);
    // The graph without graphviz's own legend (the page shows a translated one): what "fit" shows.
    const pad = 12;
    this.content = lo ? { x: lo.x0 - pad, y: lo.y0 - pad, w: lo.x1 - lo.x0 + 2 * pad, h: lo.y1 - lo.y0 + 2 * pad } : null;
    this._fonts();
  }

  /** Every edge's middle and node's box, and the boxes of the edges' shape labels (a small drawing). */
  _measureAll() {
    for (const eid of this.edges.keys()) this._edgeGeometry(eid);
    for (const nid of this.nodes.keys()) this.box(nid);
    // Shape labels of edges (the server leaves out "scalar"): gradient labels do not cover them.
    for (const g of this.edges.values()) {
      const at = this._unitOffset(g);
      for (const tx of g.querySelectorAll(":scope > text")) {
        const b = tx.getBBox();
        this.shapeBoxes.push(this._place({ x: b.x + at.x, y: b.y + at.y, width: b.width, height: b.height }));
      }
    }
  }

  /** A large drawing in groups: each group's box, so the groups far from the view can leave it. */
  _nearView(boxOf) {
    // Drawn near the view only: a drawing in groups, too large for values inside its nodes (those
    // are measured by the browser). After the measuring above, which reads the browser's layout.
    // A group holding an open loop's drawing is always drawn (the groups inside it are not).
    if (!this.buckets.length || this.nodes.size <= MAX_VALUES) return;
    this.near = new NearView((group) => this._caughtUp(group));
    this.live = new LiveLayer(this.svg, this.root, (el) => this._unitOffset(el));
    this.groupOf = new Map(); // element -> the group it is drawn near the view with
    this.stale = new Set(); // elements whose state waits for their group to be drawn
    const corners = (b) => b && { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h };
    for (const bucket of this.buckets) {
      const all = [...bucket.children].map((el) => corners(boxOf(el)));
      for (const el of bucket.children) this.groupOf.set(el, bucket);
      this.near.add(bucket, all.includes(null) ? null : unionBox(all));
    }
  }

  /** The size node labels are written in and the smallest a label is written (drawing units). */
  _fonts() {
    // The size the node labels are written in (drawing units): what "readable" is measured by.
    let font = 0;
    for (const g of this.nodes.values()) {
      for (const tx of g.querySelectorAll("text")) font = Math.max(font, Number(tx.getAttribute("font-size")) || 0);
      if (font) break;
    }
    this.font = font || 14;
    // The smallest a node's label is written (a second line, a box's count, a ghost copy may be
    // smaller): what has to be read.
    let least = Infinity;
    let seen = 0;
    const labelled = function* (d) {
      yield* d.parts.values();
      for (const copies of d.ghosts.values()) yield copies[0];
      yield* d.nodes.values();
    };
    for (const g of labelled(this)) {
      for (const tx of g.querySelectorAll(":scope > text")) least = Math.min(least, Number(tx.getAttribute("font-size")) || Infinity);
      if (++seen >= MIN_FONT_SAMPLE) break;
    }
    this.minFont = Number.isFinite(least) ? least : this.font;
  }

  _edgeGeometry(eid) {
    const g = this.edges.get(eid);
    const path = g && g.querySelector("path");
    if (!path) return;
    const at = this._unitOffset(g);
    let geo = pathGeometry(path.getAttribute("d"));
    if (!geo) {
      const len = path.getTotalLength();
      geo = { mid: path.getPointAtLength(len / 2), start: path.getPointAtLength(0), end: path.getPointAtLength(len) };
    }
    this.mid.set(eid, { x: geo.mid.x + at.x, y: geo.mid.y + at.y });
    this.vertical.set(eid, Math.abs(geo.end.y - geo.start.y) > Math.abs(geo.end.x - geo.start.x));
  }

  /** Where a frame's drawing sits in the root group (an element inside an open loop is moved). */
  _unitOffset(el) {
    // The same for every element of a group (a bucket holds a hundred or so): kept per group, the
    // transforms never change.
    const parent = el.parentElement;
    if (!this._offsets) this._offsets = new Map();
    const known = parent && this._offsets.get(parent);
    if (known) return known;
    let x = 0;
    let y = 0;
    // (a group far from the view is out of the document: its place is where it would be)
    for (let u = el.parentElement; u && u !== this.root; u = u.parentElement || (this.near && this.near.parentOf(u))) {
      const tr = u.transform && u.transform.baseVal.consolidate();
      if (tr) {
        x += tr.matrix.e;
        y += tr.matrix.f;
      }
    }
    const at = { x, y };
    if (parent) this._offsets.set(parent, at);
    return at;
  }

  /**
   * A large drawing is measured from graphviz's attributes alone (its groups far from the view set
   * aside as they are found): it can be measured before it joins the document, which then never
   * styles nor lays out the whole of it (at a thousand nodes, a forced layout of ~50 ms).
   */
  get measuredApart() {
    return this.nodes.size > MAX_MEASURED;
  }

  /** A node's box in the svg's coordinates (measured when first asked in a large drawing). */
  box(id) {
    if (!this.mid) this.measure();
    let b = this.boxes.get(id);
    if (!b) {
      const g = this.nodes.get(id) || this.parts.get(id);
      if (!g) return null;
      const raw = shapeBox(g) || g.getBBox();
      const at = this._unitOffset(g);
      b = this._place({ x: raw.x + at.x, y: raw.y + at.y, width: raw.width, height: raw.height });
      this.boxes.set(id, b);
    }
    return b;
  }

  /** Node id's outline grew to hold its values: `box` (in the drawing's own units) is its box now. */
  grown(id, box) {
    this.measure();
    if (!this.boxes0) this.boxes0 = new Map(this.boxes);
    const m = this.m;
    const at = this._unitOffset(this.nodes.get(id));
    this.boxes.set(id, { x: m.a * (box.x + at.x) + m.e, y: m.d * (box.y + at.y) + m.f, w: box.w * m.a, h: box.h * m.d });
  }

  /**
   * The graph's box with room for values inside the nodes (outlines grow by a line, or two when
   * the values are broken in two, and up to 60 %).
   */
  roomForValues() {
    this.measure();
    if (!this.content) return null;
    let wide = 0;
    for (const b of this.boxes.values()) wide = Math.max(wide, b.w);
    const dx = wide * 0.6;
    const dy = this.font * 1.3;
    const c = this.content;
    return { x: c.x - dx, y: c.y - dy, w: c.w + 2 * dx, h: c.h + 2 * dy };
  }

  /** Screen pixels per drawing unit at which the smallest node labels are `px` tall. */
  readableScale(px = READABLE_PX) {
    this.measure();
    return px / this.minFont;
  }

  /** The middle of an edge's path. */
  midpoint(id) {
    this.measure();
    if (!this.mid.has(id)) this._edgeGeometry(id);
    return this.mid.get(id) || null;
  }
}

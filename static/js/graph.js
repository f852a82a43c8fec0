/**
 * Drawing: mounts the graphviz SVG of a view, then shows the timeline's state on it.
 * Each node <g> and edge <g> gets data-s="<state>" (CSS does the rest); edges that carried a
 * gradient get a text label with its value. Per frame only the elements the timeline lists as
 * changed are touched, and the layout is never recomputed. In classroom mode the nodes can show
 * their data and grad inside (node_values.js).
 *
 * Folded parts: a closed part is a box (`p<k>`, click to open it); an open loop is a frame with
 * its own drawing inside (click its title to close it). A node can have ghost copies (`n<id>-g<k>`)
 * drawn beside its uses: they look like the node, and hovering or selecting any copy marks them all.
 * An edge element that stands for several edges (`s<k>`) looks like the busiest of them.
 */

import { Aggregates } from "./boxes.js";
import { num3, shortText } from "./format.js";
import { t } from "./i18n.js";
import { NearView, unionBox } from "./near_view.js";
import { NodeValues } from "./node_values.js";
import { PanZoom } from "./panzoom.js";
import { PartIndex, partTitle } from "./parts.js";
import { pathGeometry, shapeBox } from "./svg_geometry.js";

const SVGNS = "http://www.w3.org/2000/svg";
const MAX_FOCUSABLE = 80; // nodes get a tab stop only in small graphs
const MAX_VALUES = 250; // nodes with values inside: only in graphs up to this size (cost per step)
// Node labels are drawn this tall (CSS px) when a drawing starts zoomed in; a fitted drawing whose
// labels would come out smaller than MIN_FIT_PX starts zoomed in instead (Fit still shows it all).
// Classroom mode asks for larger labels (setReadable).
const READABLE_PX = 12;
const MIN_FIT_PX = 10.5;
// Gradient labels on edges: their largest font (drawing units), the baseline offsets tried from
// the edge's middle, and the graph size above which they are not moved off nodes (cost).
const LABEL_FONT = 11;
const LABEL_OFFSETS = [-4, 14, -16, 26, -28, 38];
const MAX_PLACED = 400;
const BUCKET = 128; // elements per group in a large drawing (see inBuckets)
const MAX_MEASURED = MAX_PLACED; // larger drawings measure a node or an edge when it is needed, not all at mount

// Lives inside the <svg>, so an exported drawing keeps its look.
export const GRAPH_CSS = `
g[data-s=hidden] { visibility: hidden; }
g.node:is([data-s=fwd],[data-s=pending],:not([data-s])) > :is(polygon,ellipse,path)[stroke="#ea580c"] { stroke: #8f5a00; stroke-dasharray: 4 2; }
g.node[data-s=new] > :is(polygon,ellipse,path) { stroke: #a0427a; stroke-width: 3.5; }
g.node[data-s=cur] > :is(polygon,ellipse,path) { stroke: #d55e00; stroke-width: 5; }
g.node[data-s=cur] { animation: gv-pulse 1.2s ease-in-out infinite alternate; filter: drop-shadow(0 0 5px #f0a060); }
@keyframes gv-pulse { from { filter: drop-shadow(0 0 2px #f0a060); } to { filter: drop-shadow(0 0 9px #d55e00); } }
g.node[data-s=done] > :is(polygon,ellipse,path) { stroke: #009e73; stroke-width: 3.5; }
g.node[data-s=freed] > :is(polygon,ellipse,path) { stroke: #009e73; stroke-width: 2.5; stroke-dasharray: 5 4; fill-opacity: .35; }
g.node[data-s=freed] > text { fill: #4b5563; }
g.edge[data-s=new] > path { stroke: #a0427a; stroke-width: 2.5; }
g.edge[data-s=new] > polygon { stroke: #a0427a; fill: #a0427a; }
g.edge:is([data-s=bw],[data-s=send],[data-s=carried],[data-s=nograd]) > polygon { display: none; }
g.edge[data-s=bw] > path { stroke: #8a94a3; stroke-dasharray: 5 4; marker-start: url(#gv-bw); }
g.edge[data-s=nograd] > path { stroke: #c4ccd6; stroke-dasharray: 2 4; }
g.edge[data-s=send] > path { stroke: #0072b2; stroke-width: 3.5; marker-start: url(#gv-send); }
g.edge[data-s=carried] > path { stroke: #0072b2; stroke-width: 2; stroke-opacity: .75; marker-start: url(#gv-carried); }
g.edge > text.shape-scalar { display: none; }
g.sel > :is(polygon,ellipse,path) { stroke: #0f172a !important; stroke-width: 3 !important; stroke-dasharray: 3 2; }
text.glabel { text-anchor: middle; font: 600 8px ui-monospace, Menlo, Consolas, monospace; fill: #005b8f;
  paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; pointer-events: none; }
text.glabel.send { font-size: 10px; fill: #005b8f; }
text.glabel.concealed { fill: #b44500; }
text.nval { font-family: ui-monospace, Menlo, Consolas, monospace; fill: #111827; pointer-events: none;
  paint-order: stroke; stroke: #fff; stroke-width: 2.5px; stroke-linejoin: round; }
text.nval .nv-g { fill: #005b8f; font-weight: 600; }
text.nval .nv-g.concealed { fill: #b44500; }
text.nval .nv-sep { fill: #6b7280; }
g.node.ghost > :is(polygon,ellipse,path) { stroke-dasharray: 3 2; }
g.node.twin > :is(polygon,ellipse,path) { stroke: #7c3aed !important; stroke-width: 3 !important; }
g.node.part { cursor: pointer; }
g.node.part:hover > :is(polygon,path) { stroke-width: 2.5; }
g.node.frame > polygon { fill-opacity: .5; }
g.node.frame > text { cursor: pointer; text-decoration: underline dotted; }
g.node.frame[data-here] > polygon { stroke: #d55e00; stroke-width: 2; }
g.node.part[data-s=cur] > text:last-of-type { font-weight: 700; fill: #b44500; }
g.node:focus { outline: none; }
g.node:focus-visible > :is(polygon,ellipse,path) { stroke: #0f172a; stroke-width: 4; }
@media (prefers-reduced-motion: reduce) { g.node[data-s=cur] { animation: none; } }
`;

const MARKERS = [
  ["gv-bw", "#8a94a3"],
  ["gv-send", "#0072b2"],
  ["gv-carried", "#0072b2"],
];

/**
 * Put the nodes, edges and frames' drawings of `group` into groups of BUCKET, in order (so they are
 * painted as before), and return the groups. A change to one element makes the browser recompute
 * the bounds of every group around it from all of that group's children: with thousands of them
 * side by side, every step of the player paid for all of them. In a large drawing the groups far
 * from the view are not drawn at all (near_view.js).
 */
function inBuckets(group) {
  const items = [...group.children].filter((el) => el.localName === "g");
  if (items.length <= 2 * BUCKET) return [];
  const out = [];
  for (let i = 0; i < items.length; i += BUCKET) {
    const bucket = document.createElementNS(SVGNS, "g");
    group.insertBefore(bucket, items[i]);
    bucket.append(...items.slice(i, i + BUCKET));
    out.push(bucket);
  }
  return out;
}

/** One parsed, mounted drawing with its element index. */
class Drawing {
  constructor(svg) {
    this.svg = svg;
    this.nodes = new Map(); // node id -> its <g>
    this.edges = new Map(); // edge id -> the <g> drawn for it alone
    this.ghosts = new Map(); // "n<id>" or "p<k>" -> the <g>s of its ghost copies
    this.parts = new Map(); // "p<k>" -> the <g> of a closed part's box or an open loop's frame
    this.segs = new Map(); // "s<k>" -> the <g> of an edge that stands for several
    this.states = new Map(); // "n3" / "e2" / "p4" / "s1" -> state shown
    this.labels = new Map(); // edge id -> <text>
    this.labelText = new Map();
    this.spots = new Map(); // edge id -> the box its gradient label takes (svg units)
    for (const g of svg.querySelectorAll("g.node, g.edge")) {
      const id = g.id;
      const title = g.querySelector(":scope > title");
      if (title) title.remove(); // graphviz titles are internal names, not help
      let m;
      if ((m = /^([np]\d+)-g\d+$/.exec(id))) {
        g.dataset.gid = m[1];
        g.classList.add("ghost");
        if (!this.ghosts.has(m[1])) this.ghosts.set(m[1], []);
        this.ghosts.get(m[1]).push(g);
        continue;
      }
      if (!/^[neps]\d+$/.test(id)) continue;
      g.dataset.gid = id;
      const num = Number(id.slice(1));
      if (id[0] === "n" && g.classList.contains("node")) this.nodes.set(num, g);
      else if (id[0] === "p" && g.classList.contains("node")) this.parts.set(id, g);
      else if (id[0] === "e" && g.classList.contains("edge")) this.edges.set(num, g);
      else if (id[0] === "s" && g.classList.contains("edge")) this.segs.set(id, g);
      // An edge's shape label: "scalar" says nothing the value does not (and sat where the
      // gradient is written); other shapes stay, and gradient labels keep clear of them.
      if (id[0] === "e") for (const tx of g.querySelectorAll(":scope > text")) if (tx.textContent.trim() === "scalar") tx.classList.add("shape-scalar");
    }
    this.mid = null; // edge id -> {x, y}: read in one batch (reading one at a time forces layouts)
    this.root = svg.querySelector("g.graph") || svg;
    this.top = [...this.root.querySelectorAll(":scope > g.node, :scope > g.edge")]; // not inside a frame
    this.buckets = [];
    if (this.nodes.size + this.edges.size > 2 * BUCKET) {
      for (const group of [this.root, ...this.root.querySelectorAll("g.unit")]) this.buckets.push(...inBuckets(group));
    }
    this.near = null; // a large drawing: which groups are drawn (made by measure)
    // The course views mark elements by id (lenses/marks.js): those far from the view are not in
    // the document, so they are found here.
    svg.gvElement = (key) => this.element(key);
    svg.gvElements = () => this.elements();
    this.valueLayer = document.createElementNS(SVGNS, "g"); // values inside nodes (classroom mode)
    this.valueLayer.setAttribute("class", "nvalues");
    this.root.appendChild(this.valueLayer);
    this.labelLayer = document.createElementNS(SVGNS, "g");
    this.labelLayer.setAttribute("class", "glabels");
    this.root.appendChild(this.labelLayer);
    if (this.nodes.size <= MAX_FOCUSABLE) {
      for (const [id, g] of this.nodes) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", g.textContent.trim().replace(/\s+/g, " ") || `node ${id}`);
      }
    }
  }

  /** The <g> of "n3", "e2", "p4", "s1" or a ghost copy ("n3-g0"), drawn now or not; or null. */
  element(key) {
    if (!this._byKey) {
      this._byKey = new Map();
      for (const g of this.elements()) this._byKey.set(g.id, g);
    }
    return this._byKey.get(key) || null;
  }

  /** Every node, edge, box and frame element of the drawing, drawn now or not. */
  *elements() {
    yield* this.nodes.values();
    yield* this.edges.values();
    yield* this.parts.values();
    yield* this.segs.values();
    for (const copies of this.ghosts.values()) yield* copies;
  }

  /** A copy of the whole drawing, the groups far from the view in it too (what an export shows). */
  whole() {
    if (!this.near) return this.svg.cloneNode(true);
    this.near.putBack(true);
    const copy = this.svg.cloneNode(true);
    this.near.putBack(false);
    return copy;
  }

  /** The parts drawn here: closed ones get box behaviour, open ones frame behaviour. */
  markParts(view, index) {
    const open = new Set(view.open || []);
    for (const [pid, g] of this.parts) {
      const p = index.parts.get(pid);
      const frame = open.has(pid);
      g.classList.add("part", frame ? "frame" : "box");
      const text = frame ? t("close_part", { what: partTitle(p) }) : t("open_part", { what: partTitle(p) });
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-label", text);
      const tip = document.createElementNS(SVGNS, "title");
      tip.textContent = text;
      g.prepend(tip);
      // A box's last line is its iteration count ("×300"): the player writes "137 / 300" there.
      const texts = g.querySelectorAll(":scope > text");
      g._count = !frame && texts.length > 1 ? texts[texts.length - 1] : null;
      g._countText = g._count ? g._count.textContent : "";
      g._title = frame && texts.length ? texts[0] : null;
      g._titleText = g._title ? g._title.textContent : "";
    }
  }

  /** Boxes, frames and segments: their states from the timeline (built when first shown). */
  aggregate(tl, view, index) {
    if (!this.agg || this.agg.tl !== tl) {
      const open = new Set(view.open || []);
      const boxes = [...this.parts.keys()].filter((pid) => !open.has(pid));
      this.agg = new Aggregates(tl, index, open, boxes, view.segments || {});
    }
    return this.agg;
  }

  setPart(pid, s) {
    const g = this.parts.get(pid);
    const key = `p${pid}`;
    if (g && this.states.get(key) !== s) {
      this.states.set(key, s);
      this._state(g, s);
    }
    for (const c of this.ghosts.get(pid) || []) this._state(c, s);
  }

  /**
   * Show state s on element g. An element in a group far from the view keeps its old state until
   * the group is drawn again: even undrawn, every changed element would be styled again (a backward
   * pass's first step changes them all: ~0.5 s at 15,000 nodes).
   */
  _state(g, s) {
    const group = this.near && this.groupOf.get(g);
    if (group && this.near.isFar(group)) {
      g._s = s;
      this.stale.add(g);
      return;
    }
    if (g.getAttribute("data-s") !== s) g.setAttribute("data-s", s);
  }

  /** Group `group` is drawn again: its elements take the states they missed. */
  _caughtUp(group) {
    if (!this.stale.size) return;
    for (const g of group.children) {
      if (!this.stale.has(g)) continue;
      this.stale.delete(g);
      if (g.getAttribute("data-s") !== g._s) g.setAttribute("data-s", g._s);
    }
  }

  setSeg(sid, s) {
    const g = this.segs.get(sid);
    if (!g || this.states.get(sid) === s) return;
    this.states.set(sid, s);
    this._state(g, s);
  }

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
    this.lazy = this.nodes.size > MAX_MEASURED;
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
    if (!this.lazy) {
      for (const eid of this.edges.keys()) this._edgeGeometry(eid);
      for (const nid of this.nodes.keys()) this.box(nid);
      // Shape labels of edges: gradient labels do not cover them either.
      for (const g of this.edges.values()) {
        const at = this._unitOffset(g);
        for (const tx of g.querySelectorAll(":scope > text:not(.shape-scalar)")) {
          const b = tx.getBBox();
          this.shapeBoxes.push(this._place({ x: b.x + at.x, y: b.y + at.y, width: b.width, height: b.height }));
        }
      }
    }
    // Drawn near the view only: a drawing in groups, too large for values inside its nodes (those
    // are measured by the browser). After the measuring above, which reads the browser's layout.
    // A group holding an open loop's drawing is always drawn (the groups inside it are not).
    if (this.buckets.length && this.nodes.size > MAX_VALUES) {
      this.near = new NearView((group) => this._caughtUp(group));
      this.groupOf = new Map(); // element -> the group it is drawn near the view with
      this.stale = new Set(); // elements whose state waits for their group to be drawn
      const corners = (b) => b && { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h };
      for (const bucket of this.buckets) {
        const all = [...bucket.children].map((el) => corners(boxOf(el)));
        for (const el of bucket.children) this.groupOf.set(el, bucket);
        this.near.add(bucket, all.includes(null) ? null : unionBox(all));
      }
    }
    // The graph without graphviz's own legend (the page shows a translated one): what "fit" shows.
    const pad = 12;
    this.content = lo ? { x: lo.x0 - pad, y: lo.y0 - pad, w: lo.x1 - lo.x0 + 2 * pad, h: lo.y1 - lo.y0 + 2 * pad } : null;
    // The size the node labels are written in (drawing units): what "readable" is measured by.
    let font = 0;
    for (const g of this.nodes.values()) {
      for (const tx of g.querySelectorAll("text")) font = Math.max(font, Number(tx.getAttribute("font-size")) || 0);
      if (font) break;
    }
    this.font = font || 14;
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
    return { x, y };
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

  /** Forget the gradient labels and their places (the next render writes them again). */
  resetLabels() {
    this.labelLayer.replaceChildren();
    this.labels.clear();
    this.labelText.clear();
    this.spots.clear();
    if (this.boxes0) this.boxes = new Map(this.boxes0);
  }

  /** Node id's outline grew to hold its values: `box` (in the drawing's own units) is its box now. */
  grown(id, box) {
    this.measure();
    if (!this.boxes0) this.boxes0 = new Map(this.boxes);
    const m = this.m;
    const at = this._unitOffset(this.nodes.get(id));
    this.boxes.set(id, { x: m.a * (box.x + at.x) + m.e, y: m.d * (box.y + at.y) + m.f, w: box.w * m.a, h: box.h * m.d });
  }

  /** The graph's box with room for values inside the nodes (outlines grow by a line and up to 60 %). */
  roomForValues() {
    this.measure();
    if (!this.content) return null;
    let wide = 0;
    for (const b of this.boxes.values()) wide = Math.max(wide, b.w);
    const dx = wide * 0.6;
    const dy = this.font * 0.65;
    const c = this.content;
    return { x: c.x - dx, y: c.y - dy, w: c.w + 2 * dx, h: c.h + 2 * dy };
  }

  /** Screen pixels per drawing unit at which node labels are `px` tall. */
  readableScale(px = READABLE_PX) {
    this.measure();
    return px / this.font;
  }

  /** The middle of an edge's path. */
  midpoint(id) {
    this.measure();
    if (!this.mid.has(id)) this._edgeGeometry(id);
    return this.mid.get(id) || null;
  }

  setNode(id, s) {
    const g = this.nodes.get(id);
    if (!g || this.states.get(`n${id}`) === s) return;
    this.states.set(`n${id}`, s);
    this._state(g, s);
    for (const c of this.ghosts.get(`n${id}`) || []) this._state(c, s);
  }

  /** An edge's state and the gradient it carried (hidden: shown as "?" until revealed). */
  setEdge(id, s, grad, hidden = false) {
    const g = this.edges.get(id);
    if (!g) return;
    if (this.states.get(`e${id}`) !== s) {
      this.states.set(`e${id}`, s);
      this._state(g, s);
    }
    const shown = s === "send" || s === "carried";
    const text = shown ? (hidden ? "?" : shortText(grad)) : "";
    const cls = `glabel${s === "send" ? " send" : ""}${hidden ? " concealed" : ""}`;
    if ((this.labelText.get(id) || "") === text) {
      const lab = this.labels.get(id);
      if (lab) lab.setAttribute("class", cls);
      return;
    }
    this.labelText.set(id, text);
    let lab = this.labels.get(id);
    if (!text) {
      if (lab) lab.textContent = "";
      this.spots.delete(id);
      return;
    }
    if (!lab) {
      if (!this.midpoint(id)) return;
      lab = document.createElementNS(SVGNS, "text");
      let bucket = this.labelBucket; // (the last one, even when it is not drawn now)
      if (!bucket || bucket.childElementCount >= BUCKET) {
        bucket = this.labelBucket = this.labelLayer.appendChild(document.createElementNS(SVGNS, "g"));
        if (this.near) this.near.add(bucket, null);
      }
      bucket.appendChild(lab);
      this.labels.set(id, lab);
    }
    const at = this.labelSpot(id, text);
    if (this.near) {
      // the label's box (its width estimated): its group is drawn only near the view too
      const m = this.m;
      const w = text.length * LABEL_FONT * 0.62 + 4;
      this.near.grow(lab.parentNode, {
        x0: m.a * (at.x - w / 2) + m.e, x1: m.a * (at.x + w / 2) + m.e, y0: m.d * (at.y - LABEL_FONT) + m.f, y1: m.d * (at.y + 2) + m.f,
      });
    }
    lab.setAttribute("x", String(at.x));
    lab.setAttribute("y", String(at.y));
    lab.setAttribute("class", cls);
    lab.textContent = text;
  }

  /**
   * Where an edge's gradient label goes (its baseline centre): just above the edge's middle, or
   * the first spot below / further up (then beside) that covers no node's box, no shape label and
   * no other gradient label, so the value hides nothing on a short edge. The size is estimated
   * (monospace), not measured: measuring would lay the drawing out again for every label.
   */
  labelSpot(id, text) {
    const p = this.midpoint(id);
    const fs = LABEL_FONT;
    if (this.nodes.size > MAX_PLACED) return { x: p.x, y: p.y - 4 };
    const w = text.length * fs * 0.62 + 4;
    const m = this.m;
    const rect = (x, y) => ({
      x0: m.a * (x - w / 2) + m.e, x1: m.a * (x + w / 2) + m.e, y0: m.d * (y - fs) + m.f, y1: m.d * (y + 2) + m.f,
    });
    const cover = (r, b) => Math.max(0, Math.min(r.x1, b.x1) - Math.max(r.x0, b.x0)) *
      Math.max(0, Math.min(r.y1, b.y1) - Math.max(r.y0, b.y0));
    const box = (b) => ({ x0: b.x, x1: b.x + b.w, y0: b.y, y1: b.y + b.h });
    // How much of what is already drawn a label at r would cover (0: a free spot).
    const covered = (r) => {
      let area = 0;
      for (const b of this.boxes.values()) area += cover(r, box(b));
      for (const b of this.shapeBoxes) area += cover(r, box(b));
      for (const [other, q] of this.spots) if (other !== id) area += cover(r, q);
      return area;
    };
    // An edge that runs up or down (a drawing top to bottom) takes its label beside it first.
    const beside = w / 2 + 5;
    const spots = this.vertical.get(id)
      ? [[beside, 4], [-beside, 4], [beside, -8], [-beside, -8], [beside, 16], [-beside, 16],
        ...LABEL_OFFSETS.map((dy) => [0, dy])]
      : [0, -w * 0.6, w * 0.6].flatMap((dx) => LABEL_OFFSETS.map((dy) => [dx, dy]));
    let best = null;
    for (const [dx, dy] of spots) {
      const r = rect(p.x + dx, p.y + dy);
      const area = covered(r);
      if (!best || area < best.area) best = { area, dx, dy, r };
      if (area === 0) break;
    }
    this.spots.set(id, best.r);
    return { x: p.x + best.dx, y: p.y + best.dy };
  }
}

/** The start of a window of `size` moved to lie within [lo, lo + span] where it fits. */
function clampInto(start, size, lo, span) {
  if (size >= span) return lo + span / 2 - size / 2;
  return Math.max(lo, Math.min(lo + span - size, start));
}

function parseSvg(text) {
  // The HTML parser builds the svg in this document at once (a DOMParser document would have to be
  // imported, copying every element of a large drawing a second time).
  const holder = document.createElement("div");
  holder.innerHTML = text;
  const node = holder.firstElementChild;
  if (!node || node.nodeName.toLowerCase() !== "svg") return null;
  node.remove();
  node.removeAttribute("width");
  node.removeAttribute("height");
  node.setAttribute("preserveAspectRatio", "xMidYMid meet");
  node.setAttribute("class", "gv");
  const defs = document.createElementNS(SVGNS, "defs");
  for (const [id, color] of MARKERS) {
    const m = document.createElementNS(SVGNS, "marker");
    m.setAttribute("id", id);
    m.setAttribute("viewBox", "0 0 10 10");
    m.setAttribute("refX", "10");
    m.setAttribute("refY", "5");
    m.setAttribute("markerWidth", "7");
    m.setAttribute("markerHeight", "7");
    m.setAttribute("markerUnits", "userSpaceOnUse");
    m.setAttribute("orient", "auto-start-reverse");
    const p = document.createElementNS(SVGNS, "path");
    p.setAttribute("d", "M0,0 L10,5 L0,10 z");
    p.setAttribute("fill", color);
    m.appendChild(p);
    defs.appendChild(m);
  }
  const style = document.createElementNS(SVGNS, "style");
  style.textContent = GRAPH_CSS;
  defs.appendChild(style);
  node.insertBefore(defs, node.firstChild);
  return node;
}

export class GraphView {
  /**
   * host: the element that holds the svg; on.pick / on.hover get {kind, id} or null; on.openPart /
   * on.closePart get (view index, part id) when a box or a frame's title is clicked.
   */
  constructor(host, on = {}) {
    this.host = host;
    this.on = on;
    this.panzoom = new PanZoom(host);
    // A large drawing is drawn near the view only: each move of the view says where that is (while
    // a frame is rendered, once at its end: the view may move more than once on the way).
    this.panzoom.onView = (box, from) => {
      if (this._rendering) this._viewAt = [box, from];
      else if (this.drawing && this.drawing.near) this.drawing.near.show(box, from);
    };
    this._rendering = false;
    this.svgs = [];
    this.cache = new Map(); // view -> Drawing
    this.view = -1;
    this.drawing = null;
    this.selected = null;
    this.readablePx = READABLE_PX;
    this.minFitPx = MIN_FIT_PX;
    this.showValues = false;
    host.addEventListener("click", (e) => this._click(e));
    host.addEventListener("pointerover", (e) => this._hover(e));
    host.addEventListener("pointerleave", () => {
      this._twins(null);
      this.on.hover?.(null);
    });
    host.addEventListener("keydown", (e) => this._key(e));
    // The svg has a fixed size in pixels (see panzoom.js): with width/height 100% Chromium lays out
    // the whole drawing again whenever anything else on the page changes (~25 ms per step at 600 nodes).
    this._resize = new ResizeObserver(() => {
      this.panzoom.measureHost();
      this.panzoom.apply();
    });
    this._resize.observe(host);
    host.addEventListener("focusin", (e) => {
      const hit = this._hit(e.target);
      if (hit) this.on.hover?.(hit);
    });
  }

  /** A new run (or new drawings of it): forget the old drawings. null: no run, a note instead. */
  load(resp) {
    this.svgs = resp ? resp.views.map((v) => v.svg) : [];
    this.resp = resp;
    this.index = resp ? new PartIndex(resp) : null;
    this.cache = new Map();
    this.view = -1;
    this.drawing = null;
    this.selected = null;
    this.fresh = true;
    if (resp) this.host.replaceChildren();
    else this.host.replaceChildren(Object.assign(document.createElement("p"), { className: "muted empty", textContent: t("graph_empty") }));
  }

  /**
   * Node labels `px` tall when a drawing starts (classroom mode asks for more; null: the normal
   * size); the next render starts afresh at that scale.
   */
  setReadable(px = null) {
    this.readablePx = px ?? READABLE_PX;
    this.minFitPx = px === null ? MIN_FIT_PX : px;
    this.fresh = true;
  }

  /** Data and grad inside each node (classroom mode), or the drawing as it was laid out. */
  setValues(on) {
    if (on === this.showValues) return;
    this.showValues = on;
    for (const d of this.cache.values()) {
      if (d.values) d.values.clear();
      d.resetLabels(); // placed again around the nodes as they are drawn now
    }
    this.view = -1; // mounted again at the next render: "fit" makes room for the values
    this.fresh = true;
  }

  /**
   * Show frame k of the timeline (prev: the frame shown before, -1 to redraw everything).
   * concealed: {frame, edges, nodes} whose gradients stay hidden ("?") at that frame, or null.
   */
  render(tl, k, prev, concealed = null) {
    this._rendering = true;
    this._viewAt = null;
    try {
      this._render(tl, k, prev, concealed);
    } finally {
      this._rendering = false;
      const d = this.drawing;
      if (d && d.near && (this._viewAt || !d.near.view)) {
        const [box, from] = this._viewAt || [this.panzoom.onScreen(), null];
        d.near.show(box, from);
      }
      this._viewAt = null;
    }
  }

  _render(tl, k, prev, concealed) {
    const frame = tl.frames[k];
    const view = frame ? frame.view : 0;
    const hide = concealed && concealed.frame === k ? concealed : null;
    let full = prev < 0;
    let mounted = false;
    this.panzoom.measureHost(); // before the states change (see PanZoom.measureHost)
    if (view !== this.view || !this.drawing) {
      if (!this._mount(view)) return;
      full = true;
      mounted = true;
    }
    const d = this.drawing;
    const hidden = (id) => !!(hide && hide.edges.has(id));
    // Values first: the nodes they grow are what the gradient labels keep clear of.
    if (this.showValues && d.nodes.size <= MAX_VALUES) this._values(tl, k, hide);
    const agg = d.parts.size || d.segs.size ? d.aggregate(tl, this.resp.views[view], this.index) : null;
    if (full) {
      for (const id of d.nodes.keys()) d.setNode(id, tl.nodeState(id, k));
      for (const id of d.edges.keys()) d.setEdge(id, tl.edgeState(id, k), tl.edgeGrad(id, k), hidden(id));
      if (agg) {
        for (const pid of agg.boxes.keys()) d.setPart(pid, agg.boxState(pid, k));
        for (const sid of agg.segs.keys()) d.setSeg(sid, agg.segState(sid, k));
      }
    } else {
      const ch = tl.changed(prev, k);
      for (const id of ch.nodes) d.setNode(id, tl.nodeState(id, k));
      for (const id of ch.edges) d.setEdge(id, tl.edgeState(id, k), tl.edgeGrad(id, k), hidden(id));
      if (agg) {
        for (const id of agg.changed(prev, k)) {
          if (id[0] === "p") d.setPart(id, agg.boxState(id, k));
          else d.setSeg(id, agg.segState(id, k));
        }
      }
    }
    if (d.parts.size) this._iteration(tl, k, agg);
    // A new run, or another drawing mounted (a training iteration): start at a readable scale
    // around the current node, or the first node coming up when the frame has none (zero_grad).
    // A node hidden in a box: its box.
    const fresh = this.fresh || mounted;
    let focus = frame && frame.node !== undefined ? frame.node : fresh ? this._nextNode(tl, k, view) : undefined;
    if (focus !== undefined && !d.nodes.has(focus) && agg) focus = agg.boxAt(k) ?? focus;
    if (this.focusPart && d.parts.has(this.focusPart)) {
      // a part just opened or closed: show it, or the current node when it is drawn inside it
      const inside = d.nodes.has(focus) && this.index.chain(focus).includes(this.focusPart);
      if (!inside) focus = this.focusPart;
      this.focusPart = null;
    }
    if (focus !== undefined) {
      this._follow(focus, fresh);
      this.fresh = false;
    }
  }

  /**
   * The loop iteration frame k is in, written where the loop is: "137 / 300" on a closed loop's
   * (or chunk's) box, "· 137 / 300" after an open loop's title.
   */
  _iteration(tl, k, agg) {
    const d = this.drawing;
    const f = tl.frames[k];
    const it = f && f.node !== undefined ? this.index.iteration(f.node) : null;
    const shown = new Set();
    if (it) {
      const box = agg ? agg.boxAt(k) : null;
      const g = box ? d.parts.get(box) : null;
      if (g && g._count) {
        g._count.textContent = `${it.i} / ${it.n}`;
        shown.add(g);
      }
      const frame = d.parts.get(it.loop.id);
      if (frame && frame._title) {
        frame._title.textContent = `${frame._titleText} · ${it.i} / ${it.n}`;
        frame.dataset.here = "";
        shown.add(frame);
      }
    }
    for (const g of d.marked || []) {
      if (shown.has(g)) continue;
      if (g._count) g._count.textContent = g._countText;
      if (g._title) {
        g._title.textContent = g._titleText;
        delete g.dataset.here;
      }
    }
    d.marked = shown;
  }

  /** Each visible node's data and grad at frame k, inside it (a hidden grad is "?"). */
  _values(tl, k, hide) {
    const d = this.drawing;
    if (!d.values) d.values = new NodeValues(d.nodes, d.edges, d.valueLayer, (id, box) => d.grown(id, box));
    const data = t("nv_data");
    const grad = t("nv_grad");
    for (const id of d.nodes.keys()) {
      if (!tl.exists(id, k) || tl.nodeState(id, k) === "hidden") {
        d.values.hide(id);
        continue;
      }
      const node = tl.nodes.get(id);
      const value = node.kind === "leaf" ? tl.valueAt(id, k) : node.value;
      const g = hide && hide.nodes.has(id) ? "?" : shortText(tl.outputGrad(id, k), num3) || "—";
      d.values.set(id, `${data} ${shortText(value, num3)}`, `${grad} ${g}`);
      const v = d.values.lines.get(id);
      if (v) v.gr.classList.toggle("concealed", g === "?");
    }
  }

  /** The node of the first frame at or after k on the same drawing (undefined when none). */
  _nextNode(tl, k, view) {
    for (let i = k; i < tl.frames.length; i++) {
      const f = tl.frames[i];
      if (f.view !== view) break;
      if (f.node !== undefined) return f.node;
    }
    return undefined;
  }

  /**
   * Keep the current node on screen. At the start (a new run, another drawing), a drawing too big
   * to read when fitted (a phone, an MLP, a long chain) is shown zoomed in at a readable scale
   * around the node; "Fit" shows it all. While stepping the view moves only when the node leaves
   * it (gliding, unless the user prefers reduced motion).
   */
  _follow(id, fresh) {
    const d = this.drawing;
    const b = d.box(id);
    const pz = this.panzoom;
    if (!b || !pz.box) return;
    const cx = b.x + b.w / 2;
    const cy = b.y + b.h / 2;
    const W = pz.W || 1;
    const H = pz.H || 1;
    if (fresh) {
      const fitScale = Math.min(W / pz.home.w, H / pz.home.h);
      if (fitScale * d.font < this.minFitPx) {
        const s = d.readableScale(this.readablePx);
        const w = W / s;
        const h = H / s;
        // Not past the drawing's own edges where it can be helped: the start sits at the left.
        const x = clampInto(cx - w / 2, w, pz.home.x, pz.home.w);
        const y = clampInto(cy - h / 2, h, pz.home.y, pz.home.h);
        pz.set({ x, y, w, h });
      } else {
        pz.set(pz.home);
      }
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

  _mount(view) {
    let d = this.cache.get(view);
    if (!d) {
      const svg = parseSvg(this.svgs[view] || this.svgs[0] || "");
      if (!svg) return false;
      d = new Drawing(svg);
      if (this.resp && this.resp.views[view]) d.markParts(this.resp.views[view], this.index);
      this.cache.set(view, d);
      d.states.clear();
    }
    const keep = this.view === view ? this.panzoom.box : null;
    // Nothing far from the view is laid out: until the view is placed, nothing of a large drawing.
    if (d.near) d.near.hideAll();
    this.host.replaceChildren(d.svg);
    d.measure();
    this.panzoom.attach(d.svg, keep, this.showValues ? d.roomForValues() : d.content);
    const home = this.panzoom.home;
    // (set only when they change: each new value makes the browser lay the page out again)
    const setVar = (name, value) => {
      if (this.host.style.getPropertyValue(name) !== value) this.host.style.setProperty(name, value);
    };
    if (home && home.w) setVar("--gv-aspect", String(Math.min(3, home.h / home.w)));
    // On a phone the box is as tall as the drawing needs at a readable scale (the CSS caps it).
    if (home && home.h) setVar("--gv-readable-h", `${Math.round(home.h * d.readableScale(this.readablePx) + 8)}px`);
    this.panzoom.measureHost(); // the host may have grown to the drawing's size
    this.drawing = d;
    this.view = view;
    this._markSelected();
    return true;
  }

  /** Open the part whose box is shown (or close an open one), from its element. */
  _toggle(g) {
    if (!this.resp) return false;
    const pid = g.dataset.gid;
    const view = this.resp.views[this.view];
    if (!view) return false;
    if ((view.open || []).includes(pid)) this.on.closePart?.(this.view, pid);
    else this.on.openPart?.(this.view, pid);
    return true;
  }

  /** The current drawing, whole (for export: the parts far from the view put back), or null. */
  svg() {
    return this.drawing ? this.drawing.whole() : null;
  }

  select(sel) {
    this.selected = sel;
    this._markSelected();
  }

  _markSelected() {
    const d = this.drawing;
    if (!d) return;
    for (const g of d.selectedEls || []) g.classList.remove("sel");
    d.selectedEls = this.selected ? this._copies(this.selected) : [];
    for (const g of d.selectedEls) g.classList.add("sel");
  }

  /** Every element drawn for a selection: a node and its ghosts, an edge. */
  _copies(sel) {
    const d = this.drawing;
    if (!d || !sel) return [];
    if (sel.kind === "node") return [d.nodes.get(sel.id), ...(d.ghosts.get(`n${sel.id}`) || [])].filter(Boolean);
    const g = d.edges.get(sel.id);
    return g ? [g] : [];
  }

  /** Mark every copy of the node under the pointer (its ghosts beside its uses, and itself). */
  _twins(sel) {
    const d = this.drawing;
    if (!d) return;
    for (const g of d.twins || []) g.classList.remove("twin");
    d.twins = sel && sel.kind === "node" && d.ghosts.has(`n${sel.id}`) ? this._copies(sel) : [];
    for (const g of d.twins) g.classList.add("twin");
  }

  _hit(target) {
    const g = target && target.closest ? target.closest("g.node, g.edge") : null;
    if (!g || !g.dataset.gid) return null;
    const id = g.dataset.gid;
    if (id[0] === "n") return { kind: "node", id: Number(id.slice(1)) };
    if (id[0] === "e") return { kind: "edge", id: Number(id.slice(1)) };
    return null;
  }

  _click(e) {
    if (this.panzoom.dragged) return;
    const part = e.target && e.target.closest ? e.target.closest("g.node.part") : null;
    if (part && (part.classList.contains("box") || e.target.tagName === "text")) {
      if (this._toggle(part)) return;
    }
    this.on.pick?.(this._hit(e.target));
  }

  _hover(e) {
    const hit = this._hit(e.target);
    this._twins(hit);
    if (hit) this.on.hover?.(hit);
  }

  _key(e) {
    if (e.key !== "Enter" && e.key !== " ") return;
    const part = e.target && e.target.closest ? e.target.closest("g.node.part") : null;
    if (part && this._toggle(part)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (e.key !== "Enter") return;
    const hit = this._hit(e.target);
    if (hit) {
      e.preventDefault();
      this.on.pick?.(hit);
    }
  }
}

/**
 * The elements of a mounted graphviz drawing, by what they stand for: each node <g> (`n<id>`) and
 * edge <g> (`e<id>`), a closed part's box or an open loop's frame (`p<k>`), an edge element that
 * stands for several edges (`s<k>`) and the ghost copies of a node drawn beside its uses
 * (`n<id>-g<k>`); the layers the page writes into (values inside nodes, gradient labels); in a
 * large drawing, the groups its elements are kept in (graph_svg.js, inBuckets).
 */

import { BUCKET, SVGNS, inBuckets } from "./graph_svg.js";

const MAX_FOCUSABLE = 80; // nodes get a tab stop only in small graphs

export class DrawnElements {
  constructor(svg) {
    this.svg = svg;
    this.nodes = new Map(); // node id -> its <g>
    this.edges = new Map(); // edge id -> the <g> drawn for it alone
    this.ghosts = new Map(); // "n<id>" or "p<k>" -> the <g>s of its ghost copies
    this.parts = new Map(); // "p<k>" -> the <g> of a closed part's box or an open loop's frame
    this.segs = new Map(); // "s<k>" -> the <g> of an edge that stands for several
    this.states = new Map(); // "n3" / "e2" / "p4" / "s1" -> state shown
    for (const g of svg.querySelectorAll("g.node, g.edge")) {
      const id = g.id;
      const title = g.firstElementChild; // (graphviz writes it first; the server leaves it out)
      if (title && title.localName === "title") title.remove(); // internal names, not help
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
    }
    this.mid = null; // edge id -> {x, y}: read in one batch (reading one at a time forces layouts)
    this.root = svg.querySelector("g.graph") || svg;
    this.top = [...this.root.querySelectorAll(":scope > g.node, :scope > g.edge")]; // not inside a frame
    this.buckets = [];
    if (this.nodes.size + this.edges.size > 2 * BUCKET) {
      for (const group of [this.root, ...this.root.querySelectorAll("g.unit")]) this.buckets.push(...inBuckets(group));
    }
    this.near = null; // a large drawing: which groups are drawn (made by measure)
    this.live = null; // and the layer its steps are drawn on while it is seen whole
    // The course views mark elements by id (lenses/marks.js): those far from the view are not in
    // the document, so they are found here.
    svg.gvElement = (key) => this.element(key);
    svg.gvElements = () => this.elements();
    svg.gvState = (key) => this.shownState(key);
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

  /**
   * The state element `key` shows ("n3": data-s), wherever it is shown: on the layer over a
   * drawing seen whole, or on the element (waiting for its group to be drawn again); or null.
   */
  shownState(key) {
    const g = this.element(key);
    if (!g) return null;
    if (this.stale && this.stale.has(g)) return g._s;
    const live = this.live && this.live.stateOf(g);
    return live ?? g.getAttribute("data-s");
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
    if (this.live) this.live.settle(); // the states a layer over the drawing shows (live_layer.js)
    const out = this.live && this.live.on; // the gradient labels wait out of the document
    if (out) this._labelMark.replaceWith(this.labelLayer);
    this.near.putBack(true);
    const copy = this.svg.cloneNode(true);
    this.near.putBack(false);
    if (out) this.labelLayer.replaceWith(this._labelMark);
    copy.classList.remove("overview"); // its text, left out on the page while it is seen whole
    return copy;
  }
}

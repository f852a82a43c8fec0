/**
 * A large drawing seen whole (Fit, or zoomed out until its labels are a few pixels tall): what a
 * step changes is drawn on a small <svg> laid over the drawing, and the drawing itself is left as
 * it is. Chromium paints every element of an <svg> again whenever any one of them changes: at
 * 15,000 nodes in view that was hundreds of milliseconds per step on a busy machine, while an
 * unchanged <svg> keeps its paint and a change on the small one costs what a small drawing costs.
 *
 * Each element a step changes gets a copy on the layer, at the same place, in its new state, over
 * a white copy that covers the element beneath (which keeps the look it had when the layer
 * started). When the copies grow too many, every state is written into the drawing at once
 * (`settle`) and the layer starts empty again; so it is when the view moves. The current node gets a ring of a fixed size on screen: at this
 * scale the node itself may be smaller than a pixel.
 */

import { SVGNS } from "./graph_svg.js";

// Copies on the layer before the states are written into the drawing itself (one full repaint).
const MAX_COPIES = 300;
// The current node's ring, in screen pixels.
const RING_PX = 9;
const RING_STROKE_PX = 3;

export class LiveLayer {
  /** offsetOf(el): where el's unit sits in the drawing's root group ({x, y}). */
  constructor(svg, root, offsetOf) {
    this.big = svg;
    this.root = root;
    this.offsetOf = offsetOf;
    this.svg = null; // the layer while it is on
    this.copies = new Map(); // element of the drawing -> {copy, s}
    this.places = new Map(); // "x y" -> the layer's group for elements of a unit at that offset
    this.ring = null;
  }

  get on() {
    return this.svg !== null;
  }

  /** Start the layer over the drawing (it must be in the document), empty. */
  start() {
    if (this.svg) return;
    const svg = document.createElementNS(SVGNS, "svg");
    for (const name of ["viewBox", "width", "height", "preserveAspectRatio"]) {
      const v = this.big.getAttribute(name);
      if (v !== null) svg.setAttribute(name, v);
    }
    svg.setAttribute("class", "gv live");
    svg.setAttribute("aria-hidden", "true");
    svg.style.transform = this.big.style.transform;
    svg.style.transition = this.big.style.transition;
    this.top = svg.appendChild(document.createElementNS(SVGNS, "g"));
    const tr = this.root.getAttribute("transform");
    if (tr) this.top.setAttribute("transform", tr);
    this.big.after(svg);
    this.svg = svg;
  }

  /** Write every state into the drawing and take the layer away. */
  stop() {
    if (!this.svg) return;
    this.settle();
    this.svg.remove();
    this.svg = null;
    this.ring = null;
    this.places.clear();
  }

  /** How many elements the layer draws now. */
  get size() {
    return this.copies.size;
  }

  /**
   * Show element g of the drawing in state s on the layer; false when the layer cannot (the
   * caller settles and writes s into the drawing).
   */
  put(g, s) {
    const under = g.getAttribute("data-s");
    const had = this.copies.get(g);
    if (s === under) {
      if (had) {
        had.copy.remove();
        this.copies.delete(g);
      }
      return true;
    }
    if (!had && this.copies.size >= MAX_COPIES) return false;
    // (an open part's frame is as large as the drawing inside it: a copy would cover that drawing)
    if (g.classList.contains("frame")) return false;
    // A fresh copy each time (the element's marks as they are now: course views, selection), over
    // a white one a little wider: what the element showed beneath does not show through a dashed,
    // translucent or hidden state. (At this scale the white margin is a fraction of a pixel.)
    const copy = document.createElementNS(SVGNS, "g");
    const erase = copy.appendChild(g.cloneNode(true));
    erase.removeAttribute("id");
    erase.removeAttribute("data-s");
    erase.setAttribute("class", "gv-erase");
    const look = copy.appendChild(g.cloneNode(true));
    look.removeAttribute("id");
    look.removeAttribute("tabindex");
    look.setAttribute("data-s", s);
    if (had) had.copy.replaceWith(copy);
    else this._place(g).appendChild(copy);
    this.copies.set(g, { copy, s });
    return true;
  }

  /** The element's state as the layer shows it (undefined: as the drawing shows it). */
  stateOf(g) {
    const had = this.copies.get(g);
    return had ? had.s : undefined;
  }

  /** Write the states the layer shows into the drawing and empty the layer. */
  settle() {
    for (const [g, { copy, s }] of this.copies) {
      if (g.getAttribute("data-s") !== s) g.setAttribute("data-s", s);
      copy.remove();
    }
    this.copies.clear();
  }

  /** A ring around box b ({x, y, w, h} in the svg's units) at `scale` screen pixels per unit; null: none. */
  mark(b, scale) {
    if (!this.svg) return;
    if (!b || !scale) {
      if (this.ring) this.ring.setAttribute("visibility", "hidden");
      return;
    }
    if (!this.ring) {
      this.ring = document.createElementNS(SVGNS, "circle");
      this.ring.setAttribute("class", "gv-ring");
      this.svg.appendChild(this.ring);
    }
    const r = Math.max(b.w, b.h) / 2 + RING_PX / scale;
    this.ring.setAttribute("cx", String(b.x + b.w / 2));
    this.ring.setAttribute("cy", String(b.y + b.h / 2));
    this.ring.setAttribute("r", String(r));
    this.ring.setAttribute("stroke-width", String(RING_STROKE_PX / scale));
    this.ring.removeAttribute("visibility");
  }

  /** The layer's group for g: translated as g's unit is in the drawing. */
  _place(g) {
    const at = this.offsetOf(g);
    const key = `${at.x} ${at.y}`;
    let place = this.places.get(key);
    if (!place) {
      place = this.top.appendChild(document.createElementNS(SVGNS, "g"));
      if (at.x || at.y) place.setAttribute("transform", `translate(${at.x} ${at.y})`);
      this.places.set(key, place);
    }
    return place;
  }
}

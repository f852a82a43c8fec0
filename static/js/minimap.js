/**
 * The overview in a corner of the graph while the view shows only part of the drawing (a drawing
 * too large to read whole): every node as a small box, the current node in the step's colour and
 * the part on screen as a frame. A click or a drag on it moves the view there.
 *
 * Drawn on a canvas from the drawing's own geometry (drawing_geometry.js), never a copy of the
 * drawing: the nodes are painted once per drawing, each move of the view only paints the frame.
 */

// Past this many nodes the overview shows the groups a large drawing is kept in, not each node.
const MAX_NODES = 3000;
const SIZE = { w: 200, h: 130 }; // the largest the overview is (CSS px)
const COLORS = { node: "#94a3b8", current: "#d55e00", frame: "#2563eb" };
const GAP = 6; // CSS px between the overview and the graph's edges (app.css .minimap)

/** Do two boxes {x, y, w, h} (CSS px) overlap? */
function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

export class Minimap {
  /** el: the canvas's container (hidden while the whole drawing is on screen); panzoom: the view. */
  constructor(el, panzoom) {
    this.el = el;
    this.pz = panzoom;
    this.canvas = document.createElement("canvas");
    el.replaceChildren(this.canvas);
    this.drawing = null;
    this.base = null; // the nodes painted (an offscreen canvas), per drawing
    this.current = null; // the current node's box (svg units) or null
    this._frame = 0;
    const go = (e) => this._go(e);
    this.canvas.addEventListener("pointerdown", (e) => {
      e.preventDefault();
      this._dragging = true;
      try {
        this.canvas.setPointerCapture(e.pointerId);
      } catch {
        /* a pointer the browser no longer tracks: the click still moves the view */
      }
      go(e);
    });
    this.canvas.addEventListener("pointermove", (e) => this._dragging && go(e));
    const stop = () => (this._dragging = false);
    this.canvas.addEventListener("pointerup", stop);
    this.canvas.addEventListener("pointercancel", stop);
  }

  /**
   * A drawing was mounted (null: none), `content` the box of it the view fits (default: its graph):
   * its nodes are painted again when next shown.
   */
  setDrawing(d, content = null) {
    this.drawing = d;
    this.box = content;
    this.base = null;
    this.current = null;
    this.update();
  }

  /** The current node's box (svg units), or null. */
  setCurrent(box) {
    this.current = box;
    this.update();
  }

  /** Show or hide the overview for the view now (at most once per animation frame). */
  update() {
    if (this._frame) return;
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      this._paint();
    });
  }

  /** Is the overview shown? */
  get shown() {
    return !this.el.hidden;
  }

  /** The drawing's box in svg units (what the overview maps onto its canvas). */
  _content() {
    const d = this.drawing;
    return (d && (this.box || d.content || this.pz.full)) || null;
  }

  /** Does the view leave part of the drawing off screen? */
  _partial() {
    const c = this._content();
    const v = this.pz.onScreen();
    if (!c || !v) return false;
    const slack = Math.max(c.w, c.h) * 0.01;
    return v.x > c.x + slack || v.y > c.y + slack || v.x + v.w < c.x + c.w - slack || v.y + v.h < c.y + c.h - slack;
  }

  _paint() {
    const partial = this._partial();
    if (this.el.hidden === partial) this.el.hidden = !partial;
    if (!partial) return;
    const c = this._content();
    // at most SIZE, and at most a quarter of the graph's box each way
    const k = Math.min(Math.min(SIZE.w, (this.pz.W || SIZE.w * 4) / 4) / c.w, Math.min(SIZE.h, (this.pz.H || SIZE.h * 4) / 4) / c.h);
    this._k = k;
    const w = Math.max(24, Math.round(c.w * k));
    const h = Math.max(24, Math.round(c.h * k));
    const dpr = window.devicePixelRatio || 1;
    if (!this.base || this.base.width !== Math.round(w * dpr)) this.base = this._nodes(c, k, w, h, dpr);
    const cv = this.canvas;
    if (cv.width !== this.base.width || cv.height !== this.base.height) {
      cv.width = this.base.width;
      cv.height = this.base.height;
      cv.style.width = `${w}px`;
      cv.style.height = `${h}px`;
    }
    const ctx = cv.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, cv.width, cv.height);
    ctx.drawImage(this.base, 0, 0);
    ctx.setTransform(dpr * k, 0, 0, dpr * k, -c.x * dpr * k, -c.y * dpr * k);
    const b = this.current;
    if (b) {
      ctx.fillStyle = COLORS.current;
      const r = Math.max(5 / k, Math.min(b.w, b.h));
      ctx.fillRect(b.x + b.w / 2 - r / 2, b.y + b.h / 2 - r / 2, r, r);
    }
    // the part on screen, within the drawing's box (the view may reach past its edges)
    const v = this.pz.onScreen();
    const lw = 2 / k;
    const x0 = Math.max(v.x, c.x + lw / 2);
    const y0 = Math.max(v.y, c.y + lw / 2);
    const x1 = Math.min(v.x + v.w, c.x + c.w - lw / 2);
    const y1 = Math.min(v.y + v.h, c.y + c.h - lw / 2);
    ctx.strokeStyle = COLORS.frame;
    ctx.lineWidth = lw;
    if (x1 > x0 && y1 > y0) ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
    this._place(w, h);
  }

  /**
   * The overview sits in the graph's bottom-right corner, or bottom-left while the current node is
   * under the right one and not under the left one: it never hides the node the step is about.
   */
  _place(w, h) {
    const b = this.current;
    const v = this.pz.onScreen();
    const wrap = this.el.parentElement;
    const host = this.pz.host;
    let left = false;
    if (b && v && wrap && host) {
      const hr = host.getBoundingClientRect();
      const s = (this.pz.W || 1) / v.w;
      const node = { x: hr.left + (b.x - v.x) * s, y: hr.top + (b.y - v.y) * s, w: b.w * s, h: b.h * s };
      const r = wrap.getBoundingClientRect();
      const mw = this.el.offsetWidth || w;
      const mh = this.el.offsetHeight || h;
      const top = r.bottom - GAP - mh;
      const right = { x: r.right - GAP - mw, y: top, w: mw, h: mh };
      const other = { x: r.left + GAP, y: top, w: mw, h: mh };
      left = overlaps(node, right) && !overlaps(node, other);
    }
    this.el.classList.toggle("left", left);
  }

  /** The drawing's nodes (or its groups in a large drawing) painted once on a canvas of their own. */
  _nodes(c, k, w, h, dpr) {
    const out = document.createElement("canvas");
    out.width = Math.round(w * dpr);
    out.height = Math.round(h * dpr);
    const ctx = out.getContext("2d");
    ctx.setTransform(dpr * k, 0, 0, dpr * k, -c.x * dpr * k, -c.y * dpr * k);
    ctx.fillStyle = COLORS.node;
    const least = 1.5 / k; // a node is at least a pixel and a half
    for (const b of this._boxes()) ctx.fillRect(b.x, b.y, Math.max(least, b.w), Math.max(least, b.h));
    return out;
  }

  /** Boxes to paint: each node's, or each group's of a large drawing. */
  *_boxes() {
    const d = this.drawing;
    if (!d) return;
    if (d.nodes.size + d.parts.size <= MAX_NODES || !d.near) {
      for (const id of d.nodes.keys()) {
        const b = d.box(id);
        if (b) yield b;
      }
      for (const id of d.parts.keys()) {
        const b = d.box(id);
        if (b) yield b;
      }
      return;
    }
    for (const item of d.near.groups) {
      const b = item.box;
      if (b) yield { x: b.x0, y: b.y0, w: b.x1 - b.x0, h: b.y1 - b.y0 };
    }
  }

  /** Centre the view on the point of the drawing under the pointer. */
  _go(e) {
    const c = this._content();
    const v = this.pz.box;
    if (!c || !v) return;
    const r = this.canvas.getBoundingClientRect();
    const k = (this._k || 1) * (r.width / (parseFloat(this.canvas.style.width) || r.width || 1));
    const x = c.x + (e.clientX - r.left) / k;
    const y = c.y + (e.clientY - r.top) / k;
    this.pz.set({ ...v, x: x - v.w / 2, y: y - v.h / 2 });
  }
}

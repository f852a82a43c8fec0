/**
 * Pan (drag), zoom (wheel, pinch, buttons) and fit for one <svg>.
 * `box` is the part of the drawing on screen, in the drawing's units. It is shown with a CSS
 * transform on the <svg> (drawn at one pixel per unit), not by changing its viewBox: a viewBox
 * change makes Chromium lay out the whole drawing again (~25 ms at 1,000 nodes), a transform
 * does not (~0.3 ms). The drawing itself is never laid out again.
 */

export const MAX_FIT = 1.8; // "fit" shows the drawing at most this large (pixels per drawing unit; maxFit)
const GLIDE_MS = 220; // a pan that follows the current node slides this long
const MAX_ZOOM = 4; // zooming in goes at least this far (pixels per drawing unit)

export class PanZoom {
  constructor(host) {
    this.host = host;
    this.svg = null;
    this.home = null; // the drawing's own viewBox: "fit"
    this.box = null;
    this.pointers = new Map();
    this.W = 0; // the host's size as last measured (measureHost)
    this.H = 0;
    this.dragged = false;
    this._pinch = null;
    this.onView = null; // called with (box, from) whenever the view moves (from: where a glide starts)
    this.layers = []; // elements over the svg that move with it (live_layer.js)
    this.fitBox = null; // what "fit" shows (default: home)
    this.maxFit = MAX_FIT; // a tiny graph is not blown up past this (classroom mode allows more)
    host.addEventListener("wheel", (e) => this._wheel(e), { passive: false });
    host.addEventListener("pointerdown", (e) => this._down(e));
    host.addEventListener("pointermove", (e) => this._move(e));
    host.addEventListener("pointerup", (e) => this._up(e));
    host.addEventListener("pointercancel", (e) => this._up(e));
  }

  /**
   * Take over a freshly mounted svg. `content` is the box of the graph itself (what "fit" shows;
   * default the svg's viewBox, kept in `full` for export); `box` restores a previous view. The
   * host's size is the one measured last (measureHost, called before the svg came in): placed
   * absolutely, the svg does not change it, and measuring again would make the browser style and
   * lay out the new drawing at once (~30 ms for a large one), and again once the view is placed.
   */
  attach(svg, box = null, content = null) {
    this.svg = svg;
    this.layers = [];
    const vb = svg.viewBox.baseVal;
    this.full = vb && vb.width ? { x: vb.x, y: vb.y, w: vb.width, h: vb.height } : { x: 0, y: 0, w: 100, h: 100 };
    this.home = this._capped(content || this.full);
    svg.setAttribute("width", String(this.full.w));
    svg.setAttribute("height", String(this.full.h));
    this.set(box || this.home);
  }

  /**
   * Read the host's size now (at a mount, a resize, or before a step changes the drawing): placing
   * the drawing reads this copy, since reading the host's size after the drawing's states have
   * changed would make the browser style the whole drawing an extra time.
   */
  measureHost() {
    this.W = this.host.clientWidth;
    this.H = this.host.clientHeight;
  }

  /** A tiny graph is not blown up past maxFit pixels per unit: widen its box around its centre. */
  _capped(b) {
    const W = this.W;
    const H = this.H;
    const most = this.maxFit;
    if (!W || !H || Math.min(W / b.w, H / b.h) <= most) return b;
    const w = Math.max(b.w, W / most);
    const h = Math.max(b.h, H / most);
    return { x: b.x + b.w / 2 - w / 2, y: b.y + b.h / 2 - h / 2, w, h };
  }

  set(b) {
    this._still();
    this.box = { ...b };
    this.apply();
  }

  /** Like set, but slides there (a CSS transition) unless the user prefers reduced motion. */
  glide(b) {
    const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (reduce || !this.svg || !this._near(b)) {
      this.set(b);
      return;
    }
    const from = this.box;
    this.box = { ...b };
    for (const el of [this.svg, ...this.layers]) el.style.transition = `transform ${GLIDE_MS}ms ease-out`;
    this.apply(from);
    clearTimeout(this._glideTimer);
    this._glideTimer = setTimeout(() => {
      this._still();
      this.onView?.(this.onScreen(), null);
    }, GLIDE_MS + 40);
  }

  /** Is box b within a screen's width and height of the view now (a glide, not a jump)? */
  _near(b) {
    const a = this.box;
    if (!a) return false;
    return Math.abs(b.x + b.w / 2 - (a.x + a.w / 2)) <= a.w && Math.abs(b.y + b.h / 2 - (a.y + a.h / 2)) <= a.h;
  }

  /** End a glide: dragging and zooming follow the pointer at once. */
  _still() {
    clearTimeout(this._glideTimer);
    for (const el of this.svg ? [this.svg, ...this.layers] : []) if (el.style.transition) el.style.transition = "";
  }

  /**
   * Place the svg so that `box` fills the host (aspect kept, centred). Also after a resize.
   * from: the box a glide starts at (shown on the way).
   */
  apply(from = null) {
    if (!this.svg || !this.box) return;
    const W = this.W || 1;
    const H = this.H || 1;
    const b = this.box;
    const s = Math.min(W / b.w, H / b.h);
    const tx = W / 2 - (b.x + b.w / 2 - this.full.x) * s;
    const ty = H / 2 - (b.y + b.h / 2 - this.full.y) * s;
    this.svg.style.transform = `translate(${tx}px, ${ty}px) scale(${s})`;
    for (const el of this.layers) el.style.transform = this.svg.style.transform;
    this.onView?.(this.onScreen(), from && this.onScreen(from));
  }

  /** The part of the drawing the host shows at box b (default: now): wider than b on one axis. */
  onScreen(b = this.box) {
    if (!b) return null;
    const W = this.W || 1;
    const H = this.H || 1;
    const s = Math.min(W / b.w, H / b.h);
    return { x: b.x + b.w / 2 - W / s / 2, y: b.y + b.h / 2 - H / s / 2, w: W / s, h: H / s };
  }

  /**
   * Fit: the box fitBox() answers (the whole drawing while it can be read so, else a readable part
   * of it: graph.js), or the whole drawing.
   */
  fit() {
    if (!this.home) return;
    this.set((this.fitBox && this.fitBox()) || this.home);
  }

  /** Zoom by factor f (>1 zooms in) around the point (cx, cy) in client pixels, or the centre. */
  zoom(f, cx, cy) {
    if (!this.svg || !this.box) return;
    const r = this.host.getBoundingClientRect();
    const p = this._toSvg(cx ?? r.left + r.width / 2, cy ?? r.top + r.height / 2);
    // Out to an eighth of the fitted scale; in to 40 times it, and in any case to MAX_ZOOM pixels
    // per unit (a long drawing fitted may be a thousand times too small to read).
    const scale = (b) => Math.min((this.W || 1) / b.w, (this.H || 1) / b.h);
    const fitted = scale(this.home);
    const now = scale(this.box);
    const to = Math.min(Math.max(now * f, fitted / 8), Math.max(fitted * 40, MAX_ZOOM));
    const k = now / to;
    this.set({ x: p.x - (p.x - this.box.x) * k, y: p.y - (p.y - this.box.y) * k, w: this.box.w * k, h: this.box.h * k });
  }

  _scale() {
    // drawing units per client pixel (the box is fitted: the larger ratio wins)
    const r = this.host.getBoundingClientRect();
    return Math.max(this.box.w / (r.width || 1), this.box.h / (r.height || 1));
  }

  _toSvg(cx, cy) {
    const r = this.host.getBoundingClientRect();
    const s = this._scale();
    const ox = this.box.x + this.box.w / 2 - (r.left + r.width / 2) * s;
    const oy = this.box.y + this.box.h / 2 - (r.top + r.height / 2) * s;
    return { x: ox + cx * s, y: oy + cy * s };
  }

  _wheel(e) {
    if (!this.svg) return;
    e.preventDefault();
    this.zoom(Math.exp(-e.deltaY * 0.0015), e.clientX, e.clientY);
  }

  _down(e) {
    if (!this.svg || (e.button !== undefined && e.button !== 0)) return;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    this.dragged = false;
    this._start = { x: e.clientX, y: e.clientY };
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      this._pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) };
    }
  }

  _move(e) {
    const prev = this.pointers.get(e.pointerId);
    if (!prev || !this.svg) return;
    const cur = { x: e.clientX, y: e.clientY };
    this.pointers.set(e.pointerId, cur);
    if (this.pointers.size === 2 && this._pinch) {
      const [a, b] = [...this.pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (this._pinch.d > 0) this.zoom(d / this._pinch.d, (a.x + b.x) / 2, (a.y + b.y) / 2);
      this._pinch.d = d;
      this.dragged = true;
      return;
    }
    if (!this.dragged && Math.hypot(cur.x - this._start.x, cur.y - this._start.y) < 4) return;
    if (!this.dragged) {
      try {
        this.host.setPointerCapture(e.pointerId);
      } catch {
        /* a pointer the browser no longer tracks: dragging works without capture */
      }
    }
    this.dragged = true;
    const s = this._scale();
    this.set({ ...this.box, x: this.box.x - (cur.x - prev.x) * s, y: this.box.y - (cur.y - prev.y) * s });
  }

  _up(e) {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this._pinch = null;
  }
}

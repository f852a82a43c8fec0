/**
 * The graph view: mounts the drawing of the view a frame is on (drawing.js), shows the timeline's
 * state at each frame on it, keeps the current node in view (panzoom.js) and answers the pointer:
 * picking and hovering nodes and edges (every copy of a node marked together), opening a closed
 * part's box and closing an open loop's frame. Per frame only the elements the timeline lists as
 * changed are touched, and the layout is never recomputed. In classroom mode the nodes can show
 * their data and grad inside (node_values.js).
 */

import { Drawing } from "./drawing.js";
import { MAX_VALUES, READABLE_PX } from "./drawing_geometry.js";
import { num3, shortText } from "./format.js";
import { follow, keepReadable, readableNow, startBox } from "./graph_placement.js";
import { parseSvg, translateDrawing } from "./graph_svg.js";
import { t } from "./i18n.js";
import { NodeValues } from "./node_values.js";
import { Minimap } from "./minimap.js";
import { MAX_FIT, PanZoom } from "./panzoom.js";
import { PartIndex } from "./parts.js";

export class GraphView {
  /**
   * host: the element that holds the svg; on.pick / on.hover get {kind, id} or null; on.openPart /
   * on.closePart get (view index, part id) when a box or a frame's title is clicked. The overview
   * (minimap.js) goes into the element marked data-minimap beside the host, when there is one.
   */
  constructor(host, on = {}) {
    this.host = host;
    this.on = on;
    this.panzoom = new PanZoom(host);
    const mapEl = host.parentElement && host.parentElement.querySelector("[data-minimap]");
    this.minimap = mapEl ? new Minimap(mapEl, this.panzoom) : null;
    // A large drawing is drawn near the view only: each move of the view says where that is (while
    // a frame is rendered, once at its end: the view may move more than once on the way).
    this.panzoom.onView = (box, from) => {
      this.minimap?.update();
      if (this._rendering) this._viewAt = [box, from];
      else this._showView(box, from);
    };
    // Fit shows the whole drawing only while its labels stay readable; else the step's neighbourhood.
    this.panzoom.fitBox = () => startBox(this, this.focus);
    this.focus = undefined; // the node (or box) the view follows
    this._rendering = false;
    this.svgs = [];
    this.cache = new Map(); // view -> Drawing
    this.view = -1;
    this.drawing = null;
    this.selected = null;
    this.readablePx = READABLE_PX;
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
    // A view whose text was readable stays so when the host shrinks (the class card coming in above
    // it), with the step's node in it; a view the user zoomed out stays as it is.
    this._resize = new ResizeObserver(() => {
      const readable = readableNow(this);
      this.panzoom.measureHost();
      this.panzoom.apply();
      if (!readable || readableNow(this)) return;
      keepReadable(this);
      if (this.focus !== undefined) follow(this, this.focus, false);
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
    this.focus = undefined;
    this.minimap?.setDrawing(null);
    if (resp) this.host.replaceChildren();
    else this.host.replaceChildren(Object.assign(document.createElement("p"), { className: "muted empty", textContent: t("graph_empty") }));
  }

  /**
   * The smallest text of the drawing at least `px` tall on screen (classroom mode asks for more;
   * null: the normal size); the next render starts afresh at that scale.
   */
  setReadable(px = null) {
    this.readablePx = px ?? READABLE_PX;
    // a small graph as much larger than usual as its labels are asked to be (a projector's scale)
    const most = MAX_FIT * (this.readablePx / READABLE_PX);
    if (most !== this.panzoom.maxFit) this.view = -1; // mounted again: "fit" is worked out anew
    this.panzoom.maxFit = most;
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
        this._showView(box, from);
      }
      this._viewAt = null;
    }
  }

  /** A large drawing is drawn near the view, and seen whole its steps go on a layer over it. */
  _showView(box, from) {
    const d = this.drawing;
    if (!d || !d.near || !box) return;
    d.viewAt(box, from, (this.panzoom.W || 1) / box.w);
    this.panzoom.layers = d.live.svg ? [d.live.svg] : [];
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
    const agg = this._paint(tl, k, prev, full, hide, view);
    if (d.parts.size) this._iteration(tl, k, agg);
    // A new run, or another drawing mounted (a training iteration): start at a readable scale
    // around the current node, or the first node coming up when the frame has none (zero_grad).
    // A node hidden in a box: its box.
    const fresh = this.fresh || mounted;
    let focus = frame && frame.node !== undefined ? frame.node : fresh ? this._nextNode(tl, k, view) : undefined;
    if (focus !== undefined && !d.nodes.has(focus) && agg) focus = agg.boxAt(k) ?? focus;
    if (this.focusPart && d.parts.has(this.focusPart)) {
      // a part just opened or closed: show it, or the current node when it is drawn inside it (or
      // the box inside it that holds the node: a loop opens onto its chunks, a stack onto its layers)
      const around = d.nodes.has(focus) ? this.index.chain(focus) : d.parts.has(focus) ? this.index.chain(null, focus) : [];
      if (!around.includes(this.focusPart)) focus = this.focusPart;
      this.focusPart = null;
    }
    if (this.showValues && !fresh) keepReadable(this);
    if (focus !== undefined) {
      this.focus = focus;
      follow(this, focus, fresh);
      this.fresh = false;
    } else if (fresh) {
      this.panzoom.set(startBox(this, undefined));
      this.fresh = false;
    }
    const current = frame && frame.node !== undefined ? d.box(focus) : null;
    if (d.live) d.setCurrent(current);
    this.minimap?.setCurrent(current);
  }

  /**
   * The states of frame k on the mounted drawing: every element (`full`), else those that changed
   * since frame prev; the values inside the nodes first. Gives the drawing's boxes and segments
   * at each frame (Aggregates), or null when it has none.
   */
  _paint(tl, k, prev, full, hide, view) {
    const d = this.drawing;
    if (full) translateDrawing(d.svg); // the language may have changed since it was drawn
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
    return agg;
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
        if (frame.dataset.here === undefined) frame.dataset.here = "";
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
    // (as large as the smallest label: the zoom makes that readable, the values with it)
    if (!d.values) d.values = new NodeValues(d.nodes, d.edges, d.valueLayer, (id, box) => d.grown(id, box), d.minFont);
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
    if (this.drawing) this.drawing.overview(false);
    d.overview(false);
    const apart = d.measuredApart; // (its groups far from the view set aside before it comes in)
    if (apart) d.measure();
    if (d.near) d.near.hideAll();
    // A large drawing comes into the document once the host has its new size: the browser lays it
    // out once, with the view placed, not once more when the host is measured.
    this.host.replaceChildren(...(apart ? [] : [d.svg]));
    d.measure();
    // Classroom mode writes the edges' text as large as the nodes' smallest label (present.css); set
    // once, before a large drawing joins the page (a change restyles every element of it).
    if (!d.svg.style.getPropertyValue("--gv-font")) d.svg.style.setProperty("--gv-font", `${d.minFont}px`);
    this.panzoom.attach(d.svg, keep, this.showValues ? d.roomForValues() : d.content);
    const home = this.panzoom.home;
    // (set only when they change: each new value makes the browser lay the page out again)
    let resized = false;
    const setVar = (name, value) => {
      if (this.host.style.getPropertyValue(name) === value) return;
      this.host.style.setProperty(name, value);
      resized = true;
    };
    if (home && home.w) setVar("--gv-aspect", String(Math.min(3, home.h / home.w)));
    // On a phone the box is as tall as the drawing needs at a readable scale (the CSS caps it).
    if (home && home.h) setVar("--gv-readable-h", `${Math.round(home.h * d.readableScale(this.readablePx) + 8)}px`);
    if (resized) this.panzoom.measureHost(); // the host may have grown to the drawing's size
    if (apart) this.host.replaceChildren(d.svg);
    this.drawing = d;
    this.minimap?.setDrawing(d, this.showValues ? d.roomForValues() : d.content);
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

  /** The box of the graph itself (with room for values inside the nodes when shown), or null. */
  slideBox() {
    const d = this.drawing;
    if (!d) return null;
    return (this.showValues ? d.roomForValues() : d.content) || this.panzoom.full;
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

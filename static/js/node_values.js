/**
 * Values inside the nodes (classroom mode): each tensor node of a drawing gets a last line
 * "data 2 │ grad −20", like micrograd's data | grad boxes. Nothing is laid out again: the node's
 * outline grows by one line (scaled, so edges keep their ends), its own lines move up by half a
 * line, and it widens only into the free room beside it, the roomier side first (at most half the
 * gap to the next node on each side, so two neighbours never meet); a line still too wide is drawn
 * smaller, or, when the values must stay as large as the labels (classroom mode: `least`), on two
 * lines (data above grad).
 */

const SVGNS = "http://www.w3.org/2000/svg";
const MIN_FONT = 0.6; // a line shrinks at most to this part of the node's font
const MARGIN = 3; // drawing units kept free between two nodes
const MAX_WIDEN = 1.0; // a node widens at most by this part of its own width

export class NodeValues {
  /**
   * nodes, edges: Map id -> the <g> of each node and edge of a mounted drawing; layer: where the
   * lines go (above the edges, so an arrowhead never hides a number); grown(id, box) is told each
   * node's new box; least: the smallest font a line is written in (drawing units; 0: shrink freely).
   */
  constructor(nodes, edges, layer, grown = () => {}, least = 0) {
    this.least = least;
    this.nodes = nodes;
    this.edges = edges;
    this.layer = layer;
    this.grown = grown;
    this.lines = new Map(); // id -> the node's line and geometry, or null (no data | grad box)
    this.boxes = null; // id -> outline box (drawing units, before any growth)
  }

  /** Show data and grad text in node id. */
  set(id, data, grad) {
    const v = this._line(id);
    if (!v) return;
    v.line.style.visibility = "";
    if (v.dataText === data && v.gradText === grad) return;
    v.dataText = data;
    v.gradText = grad;
    v.d.textContent = data;
    v.gr.textContent = grad;
    this._fit(v);
  }

  /** Hide node id's line (the node is not drawn at this frame: its op has not run yet). */
  hide(id) {
    const v = this.lines.get(id);
    if (v) v.line.style.visibility = "hidden";
  }

  /** Put every node back as it was drawn. */
  clear() {
    for (const v of this.lines.values()) {
      if (!v) continue;
      v.shape.removeAttribute("transform");
      v.shape.removeAttribute("vector-effect");
      for (const t of v.texts) t.removeAttribute("transform");
      v.line.remove();
    }
    this.lines.clear();
  }

  _outline(g) {
    return g.querySelector(":scope > :is(polygon, ellipse, path)");
  }

  _measureAll() {
    // Boxes in each node's own group's coordinates (an open loop's drawing is moved as a whole):
    // only nodes and edges of the same group are compared.
    this.boxes = new Map();
    this.group = new Map();
    for (const [id, g] of this.nodes) {
      const shape = this._outline(g);
      if (shape) this.boxes.set(id, shape.getBBox());
      this.group.set(id, g.parentElement);
    }
    // The ends of the edges: a node does not widen over the side its edges come in by.
    this.ends = [];
    for (const g of this.edges.values()) {
      const path = g.querySelector(":scope > path");
      if (!path) continue;
      const len = path.getTotalLength();
      const a = path.getPointAtLength(0);
      const z = path.getPointAtLength(len);
      this.ends.push({ x: a.x, y: a.y, group: g.parentElement }, { x: z.x, y: z.y, group: g.parentElement });
    }
  }

  /** Does an edge end at the left / right side of a box? */
  _edgeSides(box, group) {
    const near = 6;
    const out = { left: false, right: false };
    for (const p of this.ends) {
      if (p.group !== group) continue;
      if (p.y < box.y - near || p.y > box.y + box.height + near) continue;
      if (Math.abs(p.x - box.x) <= near + box.width * 0.15) out.left = true;
      if (Math.abs(p.x - box.x - box.width) <= near + box.width * 0.15) out.right = true;
    }
    return out;
  }

  /** The room free to the left and to the right of a box that is `grow` taller (half the gaps). */
  _room(id, box, grow) {
    let left = box.width * MAX_WIDEN;
    let right = left;
    const y0 = box.y - grow / 2;
    const y1 = box.y + box.height + grow / 2;
    const group = this.group.get(id);
    for (const [other, b] of this.boxes) {
      if (other === id || this.group.get(other) !== group || b.y > y1 + MARGIN || b.y + b.height < y0 - MARGIN) continue;
      if (b.x + b.width <= box.x) left = Math.min(left, (box.x - b.x - b.width - MARGIN) / 2);
      else if (b.x >= box.x + box.width) right = Math.min(right, (b.x - box.x - box.width - MARGIN) / 2);
    }
    return { left: Math.max(0, left), right: Math.max(0, right) };
  }

  _line(id) {
    if (this.lines.has(id)) return this.lines.get(id);
    const g = this.nodes.get(id);
    const shape = g && this._outline(g);
    const texts = g ? [...g.querySelectorAll(":scope > text")] : [];
    if (!shape || texts.length < 2) {
      this.lines.set(id, null); // a Python number (one line) has no data | grad box
      return null;
    }
    if (!this.boxes) this._measureAll();
    const box = this.boxes.get(id);
    // (monospace digits read larger than the labels: a tenth smaller, unless that is below `least`)
    const fs = Math.max(this.least, 0.9 * (Number(texts[0].getAttribute("font-size")) || 10));
    const grow = fs * 1.3;
    const line = document.createElementNS(SVGNS, "text");
    line.setAttribute("class", "nval");
    line.dataset.node = String(id);
    line.setAttribute("text-anchor", "middle");
    const d = document.createElementNS(SVGNS, "tspan");
    d.setAttribute("class", "nv-d");
    const sep = document.createElementNS(SVGNS, "tspan");
    sep.setAttribute("class", "nv-sep");
    sep.textContent = " │ ";
    const gr = document.createElementNS(SVGNS, "tspan");
    gr.setAttribute("class", "nv-g");
    line.append(d, sep, gr);
    // Above the edges of its own group: the layer, or the end of an open loop's drawing.
    ((g.parentElement && g.parentElement.closest("g.unit")) || this.layer).appendChild(line);
    shape.setAttribute("vector-effect", "non-scaling-stroke");
    const last = Number(texts[texts.length - 1].getAttribute("y")) || box.y + box.height / 2;
    const v = {
      id, g, shape, texts, line, d, sep, gr, fs, grow, box, last,
      room: this._room(id, box, grow), sides: this._edgeSides(box, g.parentElement), round: shape.tagName === "ellipse",
    };
    this.lines.set(id, v);
    return v;
  }

  /** Widen the outline into the free room for the line, then shrink the line (or break it) if it still does not fit. */
  _fit(v) {
    const { box, fs } = v;
    v.line.setAttribute("font-size", String(fs));
    this._lines(v, 1);
    let len = v.line.getComputedTextLength();
    const inner = v.round ? 0.78 : 0.92; // an ellipse is narrower off its middle
    let w = this._widen(v, len, inner);
    let lines = 1;
    if (len > w.fits && this.least) {
      lines = 2;
      this._lines(v, 2);
      len = Math.max(v.d.getComputedTextLength(), v.gr.getComputedTextLength());
      w = this._widen(v, len, inner);
    }
    const { left, right, width } = w;
    const grow = v.grow * lines;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const nx = cx + (right - left) / 2;
    const sx = width / box.width;
    const sy = (box.height + grow) / box.height;
    v.shape.setAttribute("transform", `translate(${nx} ${cy}) scale(${sx} ${sy}) translate(${-cx} ${-cy})`);
    for (const t of v.texts) t.setAttribute("transform", `translate(${nx - cx} ${-grow / 2})`);
    // the first line of values one line below the node's own lines (moved up by half the growth)
    const first = v.last - grow / 2 + v.grow;
    v.line.setAttribute("x", String(nx));
    v.line.setAttribute("y", String(first));
    if (lines === 2) {
      v.d.setAttribute("x", String(nx));
      v.d.setAttribute("y", String(first));
      v.gr.setAttribute("x", String(nx));
      v.gr.setAttribute("y", String(first + v.grow));
    } else if (len > w.fits) {
      v.line.setAttribute("font-size", String(Math.max(fs * MIN_FONT, (fs * w.fits) / len)));
    }
    this.grown(v.id, { x: nx - width / 2, y: box.y - grow / 2, w: width, h: box.height + grow });
  }

  /** The line as one ("data │ grad") or as two lines (data above grad). */
  _lines(v, n) {
    // (the separator stays in the text, hidden on two lines: the line reads the same either way)
    if (n === 1) {
      v.sep.removeAttribute("display");
      for (const t of [v.d, v.gr]) {
        t.removeAttribute("x");
        t.removeAttribute("y");
      }
    } else {
      v.sep.setAttribute("display", "none");
    }
  }

  /**
   * How far the outline widens for a line `len` long (into a side no edge comes in by first, over
   * it the arrowheads would be hidden; else the roomier side first) and the room the line has then.
   */
  _widen(v, len, inner) {
    const { box, fs, room } = v;
    const extra = Math.max(0, (len + fs) / inner - box.width);
    let left;
    let right;
    const leftFirst = v.sides.left !== v.sides.right ? !v.sides.left : room.left >= room.right;
    if (leftFirst) {
      left = Math.min(extra, room.left);
      right = Math.min(extra - left, room.right);
    } else {
      right = Math.min(extra, room.right);
      left = Math.min(extra - right, room.left);
    }
    const width = box.width + left + right;
    return { left, right, width, fits: width * inner - fs * 0.6 };
  }
}

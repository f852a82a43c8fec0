/**
 * Values inside the nodes (classroom mode): each tensor node of a drawing gets a last line
 * "data 2 │ grad −20", like micrograd's data | grad boxes. The node's outline grows by one line
 * (scaled about its centre; edges keep their ends) and its own lines move up by half a line, so
 * nothing is laid out again; a line too wide for the node is drawn smaller.
 */

const SVGNS = "http://www.w3.org/2000/svg";
const MAX_GROW_X = 1.3; // the outline widens at most this much (more would reach the next rank)
const MIN_FONT = 0.65; // ... and the line shrinks at most to this part of the node's font

export class NodeValues {
  /** nodes: Map id -> the node's <g> in a mounted drawing. */
  constructor(nodes) {
    this.nodes = nodes;
    this.lines = new Map(); // id -> {g, shape, texts, line, data, grad, fs, box, ...} or null (no room)
  }

  /** Show data and grad text in node id ("" hides nothing: the line stays with what it had). */
  set(id, data, grad) {
    const v = this._line(id);
    if (!v || (v.dataText === data && v.gradText === grad)) return;
    v.dataText = data;
    v.gradText = grad;
    v.d.textContent = data;
    v.gr.textContent = grad;
    this._fit(v);
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

  _line(id) {
    if (this.lines.has(id)) return this.lines.get(id);
    const g = this.nodes.get(id);
    const shape = g && g.querySelector(":scope > :is(polygon, ellipse, path)");
    const texts = g ? [...g.querySelectorAll(":scope > text")] : [];
    if (!shape || texts.length < 2) {
      this.lines.set(id, null); // a Python number (one line) has no data | grad box
      return null;
    }
    const box = shape.getBBox();
    const fs = 0.9 * (Number(texts[0].getAttribute("font-size")) || 10); // monospace digits read larger
    const grow = fs * 1.3;
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    const sy = (box.height + grow) / box.height;
    shape.setAttribute("vector-effect", "non-scaling-stroke");
    shape.setAttribute("transform", `translate(${cx} ${cy}) scale(1 ${sy}) translate(${-cx} ${-cy})`);
    for (const t of texts) t.setAttribute("transform", `translate(0 ${-grow / 2})`);
    const last = Number(texts[texts.length - 1].getAttribute("y")) || cy;
    const line = document.createElementNS(SVGNS, "text");
    line.setAttribute("class", "nval");
    line.setAttribute("x", String(cx));
    line.setAttribute("y", String(last + grow / 2));
    line.setAttribute("text-anchor", "middle");
    line.setAttribute("font-size", String(fs));
    const d = document.createElementNS(SVGNS, "tspan");
    d.setAttribute("class", "nv-d");
    const sep = document.createElementNS(SVGNS, "tspan");
    sep.setAttribute("class", "nv-sep");
    sep.textContent = " │ ";
    const gr = document.createElementNS(SVGNS, "tspan");
    gr.setAttribute("class", "nv-g");
    line.append(d, sep, gr);
    g.appendChild(line);
    const v = { g, shape, texts, line, d, gr, fs, box, cx, cy, sy, round: shape.tagName === "ellipse" };
    this.lines.set(id, v);
    return v;
  }

  /** Widen the outline up to MAX_GROW_X for the line, then shrink the line if it still does not fit. */
  _fit(v) {
    v.line.setAttribute("font-size", String(v.fs));
    const len = v.line.getComputedTextLength();
    const inner = v.box.width * (v.round ? 0.78 : 0.92); // an ellipse is narrower off its middle
    const sx = Math.min(MAX_GROW_X, Math.max(1, (len + v.fs) / inner));
    v.shape.setAttribute("transform",
      `translate(${v.cx} ${v.cy}) scale(${sx} ${v.sy}) translate(${-v.cx} ${-v.cy})`);
    const room = inner * sx - v.fs * 0.6;
    if (len > room) v.line.setAttribute("font-size", String(Math.max(v.fs * MIN_FONT, (v.fs * room) / len)));
  }
}

/**
 * Marks the course views put on the drawing the graph panel shows: a data-lens attribute on
 * node and edge groups (CSS in lenses.css styles it) and, for the gradient heat, a stroke colour
 * per edge. The drawing is replaced when another view of the run is mounted or the run changes,
 * so the views mark again on every "frame" event; clear() takes every mark away.
 */

import { shapeBox } from "../svg_geometry.js";

const host = () => document.querySelector("[data-testid=graph]");

/**
 * The <g> of node or edge `key` ("n3", "e2") in the mounted drawing, or null. A large drawing
 * keeps the elements far from the view out of the document: the drawing finds them (graph.js).
 */
export function element(key) {
  const svg = host() && host().querySelector("svg");
  if (!svg) return null;
  const g = svg.gvElement ? svg.gvElement(key) : svg.querySelector(`g#${key}`);
  if (g) return g;
  for (const el of svg.querySelectorAll("g.node > title, g.edge > title")) {
    if (el.textContent.trim() === key) return el.parentNode;
  }
  return null;
}

/** Put mark `name` on nodes (ids) and edges (ids); returns how many elements were found. */
export function mark(name, nodes = [], edges = []) {
  let found = 0;
  for (const [prefix, ids] of [["n", nodes], ["e", edges]]) {
    for (const id of ids) {
      const g = element(`${prefix}${id}`);
      if (!g) continue;
      const have = (g.dataset.lens || "").split(" ").filter(Boolean);
      if (!have.includes(name)) have.push(name);
      g.dataset.lens = have.join(" ");
      found++;
    }
  }
  return found;
}

/** A small label `text` above the top right corner of each node (ids), part of mark `name`. */
export function badge(name, nodes, text) {
  for (const id of nodes) {
    const g = element(`n${id}`);
    if (!g || g.querySelector(`:scope > text.lens-badge[data-for="${name}"]`)) continue;
    // from graphviz's numbers: a node far from the view is not laid out (near_view.js)
    const box = shapeBox(g) || g.getBBox();
    const t = document.createElementNS("http://www.w3.org/2000/svg", "text");
    t.setAttribute("class", "lens-badge");
    t.dataset.for = name;
    t.setAttribute("x", String(box.x + box.width));
    t.setAttribute("y", String(box.y - 2));
    t.setAttribute("text-anchor", "end");
    t.textContent = text;
    g.appendChild(t);
  }
}

/** Remove mark `name` (or every mark, and every heat colour, when name is null). */
export function clear(name = null) {
  const svg = host() && host().querySelector("svg");
  if (!svg) return;
  // every element of the drawing, those far from the view too
  const all = svg.gvElements ? [...svg.gvElements()] : [...svg.querySelectorAll("g.node, g.edge")];
  const badges = name === null ? "text.lens-badge" : `text.lens-badge[data-for="${name}"]`;
  for (const g of all) for (const t of g.querySelectorAll(`:scope > ${badges}`)) t.remove();
  for (const g of all.filter((el) => el.dataset.lens !== undefined)) {
    const keep = name === null ? [] : g.dataset.lens.split(" ").filter((x) => x && x !== name);
    if (keep.length) g.dataset.lens = keep.join(" ");
    else delete g.dataset.lens;
  }
  if (name === null || name === "heat") {
    for (const g of all.filter((el) => el.dataset.heat !== undefined)) {
      for (const p of g.querySelectorAll(":scope > :is(path, polygon)")) {
        p.style.removeProperty("stroke");
        p.style.removeProperty("stroke-width");
        p.style.removeProperty("fill");
      }
      delete g.dataset.heat;
    }
  }
}

/** Colour edge `id` (stroke, and its arrow head) with `color`, `width` drawing units wide. */
export function paintEdge(id, color, width) {
  const g = element(`e${id}`);
  if (!g) return false;
  g.dataset.heat = "1";
  for (const p of g.querySelectorAll(":scope > path")) {
    p.style.setProperty("stroke", color);
    p.style.setProperty("stroke-width", String(width));
  }
  for (const p of g.querySelectorAll(":scope > polygon")) {
    p.style.setProperty("stroke", color);
    p.style.setProperty("fill", color);
  }
  return true;
}

/** Replace host's children with `children`, leaving out null and false (absent parts). */
export function fill(host, ...children) {
  host.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

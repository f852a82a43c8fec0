/**
 * A graphviz SVG made ready for the page: parsed as inert XML, sanitized (safe_svg.js) and brought
 * into this document with the drawing's own styles (the look of each state, data-s="...") and the
 * arrow-head markers of the backward pass inside it, so an exported drawing keeps its look; and a
 * large drawing's elements put into groups.
 */

import { STRINGS, getLang, t } from "./i18n.js";
import { parseSafeSvg } from "./safe_svg.js";

export const SVGNS = "http://www.w3.org/2000/svg";
export const BUCKET = 128; // elements per group in a large drawing (see inBuckets)

// Lives inside the <svg>, so an exported drawing keeps its look. The current node's glow pulses
// in six steps per swell and for twelve seconds only: the browser paints the whole drawing again
// for every change of it, so a smooth endless pulse kept a page idle on a large drawing busy (a
// sixth to a quarter of the main thread at 15,000 nodes; in steps: ~5 %; once over: nothing).
export const GRAPH_CSS = `
g[data-s=hidden] { visibility: hidden; }
g.node:is([data-s=fwd],[data-s=pending],:not([data-s])) > :is(polygon,ellipse,path)[stroke="#ea580c"] { stroke: #8f5a00; stroke-dasharray: 4 2; }
g.node[data-s=new] > :is(polygon,ellipse,path) { stroke: #a0427a; stroke-width: 3.5; }
g.node[data-s=cur] > :is(polygon,ellipse,path) { stroke: #d55e00; stroke-width: 5; }
g.node[data-s=cur] { animation: gv-pulse 1.2s steps(6, jump-none) 10 alternate; filter: drop-shadow(0 0 5px #f0a060); }
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
export function inBuckets(group) {
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

// Graphviz writes the drawing's words in English (its layout is cached per structure, whatever
// the language): the legend under it, in 9-point text (no other text has that size), its entries in
// the order of the catalogue's dl_* keys (app/drawing/dot_text.py draws it from them), and a 0-d
// tensor's shape in its node, "scalar" or "u: scalar" (the catalogue's dn_scalar, which
// dot_text.py writes too), and on an edge out of a node of several outputs the output it carries,
// "output 1 · [2]" (de_output). The page writes them in its language, an exported drawing included.
const LEGEND_KEYS = Object.keys(STRINGS.en).filter((k) => k.startsWith("dl_"));
const SHAPE_KEY = "dn_scalar";
const SHAPE_WORD = STRINGS.en[SHAPE_KEY];
const OUTPUT_KEY = "de_output";
const OUTPUT_WORD = `${STRINGS.en[OUTPUT_KEY]} `;

/** The elements of `svg` that hold a word of the drawing, marked with their keys (so that
 * i18n.js apply() rewrites those in the document when the language changes); found once. */
function drawingWords(svg) {
  if (svg.gvWords) return svg.gvWords;
  const words = [];
  const legend = svg.querySelectorAll(':scope > g > text[font-size="9.00"]');
  if (legend.length === LEGEND_KEYS.length) {
    legend.forEach((tx, i) => {
      tx.setAttribute("data-i18n", LEGEND_KEYS[i]);
      words.push(tx);
    });
  }
  // (a node's second line: its first is a name, which may be a variable called scalar)
  for (const tx of svg.querySelectorAll("g.node > text:nth-of-type(n+2)")) {
    const text = tx.textContent;
    if (!text.endsWith(SHAPE_WORD) || (text.length > SHAPE_WORD.length && !text.endsWith(`: ${SHAPE_WORD}`))) continue;
    // "u: scalar": the name stays as it is, the word goes into a tspan of its own
    const word = document.createElementNS(SVGNS, "tspan");
    word.setAttribute("data-i18n", SHAPE_KEY);
    tx.replaceChildren(text.slice(0, -SHAPE_WORD.length), word);
    words.push(word);
  }
  for (const tx of svg.querySelectorAll("g.edge > text")) {
    const text = tx.textContent;
    if (!text.startsWith(OUTPUT_WORD) || !/^\d/.test(text.slice(OUTPUT_WORD.length))) continue;
    const word = document.createElementNS(SVGNS, "tspan"); // "output" in a tspan, " 1 · [2]" as it is
    word.setAttribute("data-i18n", OUTPUT_KEY);
    tx.replaceChildren(word, text.slice(OUTPUT_WORD.length - 1));
    words.push(word);
  }
  svg.gvWords = words;
  return words;
}

/** Write the words of `svg` (its legend, the shapes in its nodes) in the page's language, those
 * of its groups out of the document too (near_view.js). */
export function translateDrawing(svg) {
  const lang = getLang();
  if (svg.gvLang === lang) return;
  for (const el of drawingWords(svg)) el.textContent = t(el.getAttribute("data-i18n"));
  svg.gvLang = lang;
}

/** The svg element of graphviz's SVG text, in this document with the drawing's styles; null if none.
 * The text is parsed as XML and sanitized (safe_svg.js): nothing in it runs or loads. */
export function parseSvg(text) {
  const node = parseSafeSvg(text);
  if (!node) return null;
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
  translateDrawing(node);
  return node;
}

/**
 * A drawing's SVG text as inert nodes of this document. The text arrives from the network (or an
 * offline file), so it is never handed to the HTML parser: DOMParser reads it as XML into a
 * document of its own, where nothing runs, loads or fires, and one pass over its elements keeps
 * only what graphviz writes (an allow-list of elements and attributes: no event handlers, scripts,
 * foreign objects, images, styles, no link but to a '#fragment', no paint from a URL). The survivors
 * are then moved into this document (adopted, not copied: a large drawing has tens of thousands of
 * elements).
 */

const SVGNS = "http://www.w3.org/2000/svg";
const XLINKNS = "http://www.w3.org/1999/xlink";
const XMLNS = "http://www.w3.org/2000/xmlns/";
const XMLNS_XML = "http://www.w3.org/XML/1998/namespace";

// What graphviz's SVG output holds (with gradients for gradient fills and <a> for URL attributes).
const ELEMENTS = new Set(["svg", "g", "title", "desc", "path", "polygon", "polyline", "ellipse", "circle", "rect",
  "line", "text", "tspan", "a", "defs", "linearGradient", "radialGradient", "stop"]);
const ATTRIBUTES = new Set(["id", "class", "transform", "d", "points", "fill", "fill-opacity", "fill-rule", "stroke",
  "stroke-width", "stroke-dasharray", "stroke-opacity", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit",
  "cx", "cy", "r", "rx", "ry", "x", "y", "x1", "y1", "x2", "y2", "dx", "dy", "fx", "fy", "width", "height",
  "viewBox", "preserveAspectRatio", "version", "font-family", "font-size", "font-weight", "font-style",
  "text-anchor", "text-decoration", "dominant-baseline", "baseline-shift", "opacity", "offset", "stop-color",
  "stop-opacity", "gradientUnits", "gradientTransform", "target"]);
const DATA = /^data-[a-z0-9-]+$/;
// The attributes whose value the browser reads as CSS that may name a URL ("url(...)", perhaps
// written with CSS escapes): only a reference inside the drawing may stay.
const PAINT = new Set(["fill", "stroke", "stop-color"]);
const RISKY = /url|\\|\(/i;
const LOCAL_PAINT = /^\s*url\(\s*#[\w.:-]+\s*\)\s*$/;
const FRAGMENT = /^#[\w.:-]*$/;

function keepAttribute(attr) {
  const ns = attr.namespaceURI;
  const name = attr.localName;
  if (ns === null) {
    if (ATTRIBUTES.has(name)) return !PAINT.has(name) || !RISKY.test(attr.value) || LOCAL_PAINT.test(attr.value);
    if (name === "href") return FRAGMENT.test(attr.value);
    return name.startsWith("data-") && DATA.test(name);
  }
  if (ns === XLINKNS) return name === "href" && FRAGMENT.test(attr.value);
  if (ns === XMLNS) return name === "xmlns" || name === "xlink";
  return ns === XMLNS_XML && name === "space";
}

/** Drop from `el` every attribute that is not on the allow-list (or whose value is not). */
function cleanAttributes(el) {
  const attrs = el.attributes;
  for (let i = attrs.length - 1; i >= 0; i--) {
    const attr = attrs[i];
    if (!keepAttribute(attr)) el.removeAttributeNode(attr);
  }
}

/**
 * Keep only allowed elements and attributes under `root` (the <svg> element of a DOMParser
 * document), in one pass over its elements: an element that is not allowed goes with everything
 * inside it. (Comments stay: they are inert.) Returns how many elements were removed, or -1 when
 * `root` is not an SVG <svg> element.
 */
export function sanitizeSvg(root) {
  if (root.namespaceURI !== SVGNS || root.localName !== "svg") return -1;
  cleanAttributes(root);
  const drop = [];
  for (const el of root.querySelectorAll("*")) {
    if (el.namespaceURI === SVGNS && ELEMENTS.has(el.localName)) cleanAttributes(el);
    else drop.push(el);
  }
  for (const el of drop) el.remove();
  return drop.length;
}

/**
 * The <svg> element of `text`, sanitized and adopted into this document; null when the text is not
 * a well-formed SVG document.
 */
export function parseSafeSvg(text) {
  if (!text) return null;
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || doc.getElementsByTagNameNS("*", "parsererror").length) return null;
  if (sanitizeSvg(root) < 0) return null;
  return document.adoptNode(root);
}

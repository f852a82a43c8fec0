/**
 * A drawing's SVG text as inert nodes of this document. The text arrives from the network (or an
 * offline file), so it is never handed to the HTML parser: DOMParser reads it as XML into a
 * document of its own, where nothing runs, loads or fires, and one pass over its elements keeps
 * only what graphviz writes (an allow-list of elements and attributes: no event handlers, scripts,
 * foreign objects, images, styles, or links but to a '#fragment'). The survivors are then moved
 * into this document (adopted, not copied: a large drawing has tens of thousands of elements).
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
// A value that may reach CSS or a URL: only a reference inside the drawing ("#id", "url(#id)").
const RISKY = /url\s*\(|\\|javascript:|expression\s*\(/i;
const LOCAL_URL = /^\s*url\(\s*#[\w.:-]+\s*\)\s*$/;
const FRAGMENT = /^#[\w.:-]*$/;

function keepAttribute(attr) {
  const ns = attr.namespaceURI;
  if (ns === XMLNS) return attr.localName === "xmlns" || attr.localName === "xlink";
  if (ns === XMLNS_XML) return attr.localName === "space";
  if (ns === XLINKNS || (ns === null && attr.localName === "href")) {
    return attr.localName === "href" && FRAGMENT.test(attr.value);
  }
  if (ns !== null || !(ATTRIBUTES.has(attr.localName) || DATA.test(attr.localName))) return false;
  return !RISKY.test(attr.value) || LOCAL_URL.test(attr.value);
}

/** Drop from `el` every attribute that is not on the allow-list (or whose value is). */
function cleanAttributes(el) {
  const attrs = el.attributes;
  for (let i = attrs.length - 1; i >= 0; i--) {
    const attr = attrs[i];
    if (!keepAttribute(attr)) el.removeAttributeNode(attr);
  }
}

/**
 * Keep only allowed elements and attributes under `root` (an element of a DOMParser document), in
 * one pass: an element that is not allowed goes with everything inside it, as do comments and
 * processing instructions. Returns how many nodes were removed.
 */
export function sanitizeSvg(root) {
  const doc = root.ownerDocument;
  const drop = [];
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_COMMENT
    | NodeFilter.SHOW_PROCESSING_INSTRUCTION, (node) => {
    if (node.nodeType === Node.ELEMENT_NODE && node.namespaceURI === SVGNS && ELEMENTS.has(node.localName)) {
      return NodeFilter.FILTER_ACCEPT;
    }
    drop.push(node);
    return NodeFilter.FILTER_REJECT; // its subtree is not walked: it goes whole
  });
  if (!ELEMENTS.has(root.localName) || root.namespaceURI !== SVGNS) return -1;
  cleanAttributes(root);
  for (let el = walker.nextNode(); el; el = walker.nextNode()) cleanAttributes(el);
  for (const node of drop) node.remove();
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
  if (!root || root.localName !== "svg" || root.namespaceURI !== SVGNS) return null;
  if (doc.getElementsByTagNameNS("*", "parsererror").length) return null;
  if (sanitizeSvg(root) < 0) return null;
  return document.adoptNode(root);
}

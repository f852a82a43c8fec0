/**
 * The page's icons as inline SVG (a font glyph such as ⏸ may be missing from the reader's fonts and
 * show as an empty box). Each is drawn with the text colour (currentColor) on a 24×24 grid and is
 * hidden from assistive technology: the element that holds it carries the name (title, aria-label).
 */

const SVGNS = "http://www.w3.org/2000/svg";

// [path data, filled?]
const ICONS = {
  first: ["M6 5v14 M18 6l-9 6 9 6z", true],
  prev: ["M15 6l-6 6 6 6", false],
  play: ["M8 5l11 7-11 7z", true],
  pause: ["M8 5h3v14H8z M13 5h3v14h-3z", true],
  next: ["M9 6l6 6-6 6", false],
  last: ["M18 5v14 M6 6l9 6-9 6z", true],
  plus: ["M12 5v14 M5 12h14", false],
  minus: ["M5 12h14", false],
  fit: ["M4 9V4h5 M15 4h5v5 M20 15v5h-5 M9 20H4v-5", false],
  present: ["M3 4h18v12H3z M12 16v4 M8 20h8", false],
  open: ["M9 6l6 6-6 6", false],
  check: ["M5 12.5l4.5 4.5L19 7", false],
  cross: ["M6 6l12 12 M18 6L6 18", false],
  bigger: ["M3 19l5-14 5 14 M5 14h6 M17 8v8 M13 12h8", false],
  smaller: ["M3 19l5-14 5 14 M5 14h6 M14 12h7", false],
  values: ["M3 6h18v12H3z M12 6v12", false],
  predict: ["M9 9a3 3 0 1 1 4 2.8c-.8.4-1 1-1 1.7v.5 M12 17.5v.5", false],
  info: ["M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z M12 11v6 M12 7.5v.5", false],
};

/** An <svg> icon element (class "icon", data-icon=name). */
export function icon(name) {
  const [d, filled] = ICONS[name] || ICONS.info;
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.dataset.icon = name;
  const path = document.createElementNS(SVGNS, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", filled ? "currentColor" : "none");
  path.setAttribute("stroke", "currentColor");
  path.setAttribute("stroke-width", filled ? "1.5" : "2.2");
  path.setAttribute("stroke-linecap", "round");
  path.setAttribute("stroke-linejoin", "round");
  svg.appendChild(path);
  return svg;
}

/** Put icon `name` at the start of el (replacing the icon it had); the rest of its content stays. */
export function setIcon(el, name) {
  const old = el.querySelector(":scope > svg.icon");
  if (old && old.dataset.icon === name) return;
  const fresh = icon(name);
  if (old) old.replaceWith(fresh);
  else el.prepend(fresh);
}

/** Fill every element under root marked data-icon="name". */
export function fillIcons(root = document) {
  for (const el of root.querySelectorAll("[data-icon]:not(svg)")) setIcon(el, el.dataset.icon);
}

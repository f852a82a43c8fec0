/** h("div", {class: "x", "data-testid": "y"}, child, "text", ...) → an element. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** el("rect", {x: 1, width: 4}, "text") → an SVG element (null and undefined attributes left out). */
export function el(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A value shown as monospace text with an optional heat map beside it. */
export function valueBox(text, heat) {
  return h("div", { class: "valbox" }, h("code", { class: "val" }, text), heat);
}

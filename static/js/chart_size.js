/**
 * Charts drawn at the size they are shown. A chart's drawing units are the CSS pixels of its box
 * (.chart-box), and its text takes the box's font size (12 px, 16 px and up in classroom mode): so
 * its text is as large as asked whatever width the panel has, which a fixed viewBox scaled to the
 * panel's width never was. The chart is drawn again when its box changes width (a panel shown,
 * classroom mode, a resized window) or its font size changes (classroom mode's − / +).
 */

import { on } from "./state.js";

// A box not laid out (a panel hidden): drawn at this size, then again when it is shown.
const UNSHOWN = { width: 380, font: 12 };
const boxes = new Map(); // box → {draw, width, font} as last drawn
let observer = null;
let pending = null; // boxes whose size changed, drawn at the next frame
let ruler = null; // a canvas context that measures text

/** The box's width and font size now (CSS px); null when it is not laid out. */
function measure(box) {
  // (the layout's width, not clientWidth: that one rounds 389.6 up to 390, a chart 0.1 % too wide)
  const width = Math.floor(box.getBoundingClientRect().width);
  if (!box.isConnected || width <= 0) return null;
  return { width, font: parseFloat(getComputedStyle(box).fontSize) || UNSHOWN.font };
}

/** How wide `text` is written at `font` px in the page's sans-serif (mono: its monospace). */
function textWidth(text, font, mono = false) {
  ruler = ruler || document.createElement("canvas").getContext("2d");
  const family = getComputedStyle(document.documentElement).getPropertyValue(mono ? "--mono" : "--sans");
  ruler.font = `${font}px ${family.trim() || (mono ? "monospace" : "sans-serif")}`;
  return Math.ceil(ruler.measureText(String(text)).width);
}

function render(box, entry, size) {
  const svg = entry.draw({ ...size, text: (s, mono) => textWidth(s, size.font, mono) });
  // one drawing unit per CSS pixel (the stylesheet only keeps it within a box that narrowed since)
  svg.setAttribute("width", String(size.width));
  svg.setAttribute("height", String(svg.viewBox.baseVal.height));
  const old = box.querySelector(":scope > svg.chart");
  if (old) old.replaceWith(svg);
  else box.prepend(svg);
  entry.width = size.width;
  entry.font = size.font;
}

/** Draw the boxes whose width or font size is no longer the one they were drawn at. */
function refresh(list) {
  for (const box of list) {
    const entry = boxes.get(box);
    if (!entry) continue;
    if (!box.isConnected) {
      forget(box);
      continue;
    }
    const size = measure(box);
    if (size && (size.width !== entry.width || size.font !== entry.font)) render(box, entry, size);
  }
}

function forget(box) {
  boxes.delete(box);
  observer.unobserve(box);
}

function start() {
  // Drawn at the next frame, not in the observer's callback: a chart drawn again changes its box's
  // height, which the observer would report again within the same frame.
  observer = new ResizeObserver((entries) => {
    if (!pending) {
      pending = new Set();
      requestAnimationFrame(() => {
        const list = pending;
        pending = null;
        refresh(list);
      });
    }
    for (const e of entries) pending.add(e.target);
  });
  // Classroom mode on or off, or its text size: the charts shown take the new size at once.
  on("present", () => refresh([...boxes.keys()]));
}

/**
 * Draw a chart in `box`: `draw(size)` returns its <svg class="chart">, drawn for
 * size = {width, font, text(s, mono)} (CSS px; text(s) is how wide s is written at that font). It
 * takes the place of the box's chart, before the rest of the box (a legend), and is drawn again
 * whenever the box's width or font size changes.
 */
export function sizedChart(box, draw) {
  if (!observer) start();
  const known = boxes.has(box);
  const entry = { draw, width: 0, font: 0 };
  boxes.set(box, entry);
  render(box, entry, measure(box) || UNSHOWN);
  if (!known) observer.observe(box);
}

import { t } from "./i18n.js";

/**
 * Export of the current drawing (with the current step's colours and gradient labels) as an
 * SVG file or a PNG image. The graph's CSS lives inside the <svg>, so a clone looks the same.
 */

/** A standalone SVG document string of the given <svg> element (whole drawing: box = its home viewBox). */
export function svgText(svg, box) {
  const clone = svg.cloneNode(true);
  const vb = box || { x: svg.viewBox.baseVal.x, y: svg.viewBox.baseVal.y, width: svg.viewBox.baseVal.width, height: svg.viewBox.baseVal.height };
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  clone.removeAttribute("style"); // the page's pan/zoom transform
  clone.removeAttribute("width");
  clone.removeAttribute("height");
  if (vb && vb.width) {
    clone.setAttribute("viewBox", `${vb.x} ${vb.y} ${vb.width} ${vb.height}`);
    clone.setAttribute("width", String(Math.round(vb.width)));
    clone.setAttribute("height", String(Math.round(vb.height)));
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`;
}

/** Render the SVG to a PNG Blob (scale: device pixels per SVG unit). */
export function pngBlob(svg, box, scale = 2) {
  const text = svgText(svg, box);
  const vb = box || svg.viewBox.baseVal;
  // Keep the canvas within what browsers can allocate.
  scale = Math.min(scale, 8000 / Math.max(vb.width || 1, vb.height || 1));
  const w = Math.max(1, Math.round((vb.width || 800) * scale));
  const hgt = Math.max(1, Math.round((vb.height || 600) * scale));
  return new Promise((resolve, reject) => {
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = w;
      canvas.height = hgt;
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, w, hgt);
      ctx.drawImage(img, 0, 0, w, hgt);
      URL.revokeObjectURL(url);
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png");
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error("the drawing could not be rendered"));
    };
    img.src = url;
  });
}

/** Offer a Blob as a download. */
export function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// A slide: 16:9, the drawing above and the step's explanation below it.
export const SLIDE = { w: 1920, h: 1080, pad: 48, font: 30, line: 40, head: 36, maxLines: 9 };
const SVGNS = "http://www.w3.org/2000/svg";

/** Text cut into lines of at most `chars` characters (at spaces where there are any; CJK anywhere). */
export function wrapText(text, chars) {
  const out = [];
  // a value written on the line below its "… =" or "…:" goes back beside it
  const joined = text.replace(/([=:：])[ \t]*\n+(?=[^\n]{1,40}(\n|$))/g, "$1 ");
  for (const para of joined.split(/\n+/)) {
    let rest = para.replace(/\s+/g, " ").trim();
    while (rest.length > chars) {
      let cut = rest.lastIndexOf(" ", chars);
      if (cut < chars * 0.5) cut = chars;
      out.push(rest.slice(0, cut).trim());
      rest = rest.slice(cut).trim();
    }
    if (rest) out.push(rest);
  }
  return out;
}

/** Characters of `font` px that fit in `width` px (a CJK character counts as two). */
function charsIn(width, font, sample) {
  const wide = (sample.match(/[\u3000-\u9fff\uff00-\uffef]/g) || []).length / Math.max(1, sample.length);
  return Math.max(10, Math.floor(width / (font * (0.55 + 0.45 * wide))));
}

/**
 * The slide as an SVG document: `title` (the step) and `text` (its explanation, in the page's
 * language) below the drawing `svg` (a copy of the whole drawing) shown at its box `box`.
 */
export function slideSvg(svg, box, title, text) {
  const S = SLIDE;
  const inner = S.w - 2 * S.pad;
  let lines = wrapText(text, charsIn(inner, S.font, text));
  if (lines.length > S.maxLines) lines = [...lines.slice(0, S.maxLines - 1), `${lines[S.maxLines - 1].slice(0, -1)}…`];
  const textH = S.head + 16 + lines.length * S.line;
  const graphH = S.h - 3 * S.pad - textH;
  const doc = document.createElementNS(SVGNS, "svg");
  doc.setAttribute("xmlns", SVGNS);
  doc.setAttribute("width", String(S.w));
  doc.setAttribute("height", String(S.h));
  doc.setAttribute("viewBox", `0 0 ${S.w} ${S.h}`);
  const bg = document.createElementNS(SVGNS, "rect");
  for (const [k, v] of Object.entries({ width: S.w, height: S.h, fill: "#ffffff" })) bg.setAttribute(k, String(v));
  doc.appendChild(bg);
  const graph = svg.cloneNode(true);
  graph.removeAttribute("style"); // the page's pan and zoom
  // graphviz's own legend (outside the box, yet inside the slide's room for the drawing)
  for (const el of graph.querySelectorAll("g.graph > :is(polygon, text)")) el.remove();
  for (const [k, v] of Object.entries({ x: S.pad, y: S.pad, width: inner, height: graphH, preserveAspectRatio: "xMidYMid meet" })) {
    graph.setAttribute(k, String(v));
  }
  graph.setAttribute("viewBox", `${box.x} ${box.y} ${box.w} ${box.h}`);
  doc.appendChild(graph);
  const words = document.createElementNS(SVGNS, "text");
  words.setAttribute("class", "slide-text");
  words.setAttribute("font-family", "system-ui, 'Segoe UI', Roboto, 'Noto Sans CJK SC', 'Noto Sans SC', sans-serif");
  words.setAttribute("fill", "#0f172a");
  const top = S.h - S.pad - textH;
  const head = document.createElementNS(SVGNS, "tspan");
  for (const [k, v] of Object.entries({ x: S.pad, y: top + S.head, "font-size": S.head, "font-weight": 700 })) head.setAttribute(k, String(v));
  head.textContent = title;
  words.appendChild(head);
  lines.forEach((line, i) => {
    const t = document.createElementNS(SVGNS, "tspan");
    for (const [k, v] of Object.entries({ x: S.pad, y: top + S.head + 16 + (i + 1) * S.line - 8, "font-size": S.font })) t.setAttribute(k, String(v));
    t.textContent = line;
    words.appendChild(t);
  });
  doc.appendChild(words);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}`;
}

/** An SVG document string drawn on a canvas of w × h pixels, as a PNG Blob. */
export function svgToPng(text, w, h) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = w;
      canvas.height = h;
      const ctx = canvas.getContext("2d");
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, w, h);
      ctx.drawImage(img, 0, 0, w, h);
      URL.revokeObjectURL(url);
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png");
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error("the slide could not be rendered"));
    };
    img.src = url;
  });
}

/** "Backward pass 1 (line 11) · Step 5 / 67": the pass and the step as the timeline shows them. */
function slideTitle() {
  const label = document.querySelector("[data-testid=step-label]");
  const [i, n] = (label ? label.textContent : "").split("/").map((x) => x.trim());
  const chapter = document.querySelector("#chapter");
  const pass = chapter && !chapter.hidden && chapter.selectedOptions[0] ? chapter.selectedOptions[0].textContent : "";
  const step = i && n ? t("slide_step", { i, n }) : "";
  return [pass, step].filter(Boolean).join(" · ");
}

/**
 * Export slide: the graph at the step shown with the step's explanation below it, as a PNG and an
 * SVG, drawn in the page (nothing is sent anywhere). graph: the GraphView; name: the files' name.
 */
export async function exportSlide(graph, name) {
  const svg = graph.svg();
  const box = graph.slideBox();
  if (!svg || !box) return;
  const explain = document.querySelector("#explain");
  const text = explain ? explain.innerText : "";
  const doc = slideSvg(svg, box, slideTitle(), text);
  download(await svgToPng(doc, SLIDE.w, SLIDE.h), `${name}.png`);
  download(new Blob([doc], { type: "image/svg+xml" }), `${name}.svg`);
}

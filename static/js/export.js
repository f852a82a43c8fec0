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

/**
 * The decision boundary of a 2-D classifier as a picture: each grid cell coloured by its
 * predicted class (paler where the network is unsure), the data points on top.
 * Data: a BoundaryResponse (app/schemas/mlp.py) from POST /api/mlp/boundary.
 */

export const CLASS_COLORS = [
  [37, 99, 235],
  [220, 38, 38],
  [22, 163, 74],
  [147, 51, 234],
  [234, 88, 12],
  [8, 145, 178],
  [202, 138, 4],
  [219, 39, 119],
];

/** Draw frame `index` of `data` on `canvas` (a square picture; CSS sizes it). */
export function drawBoundary(canvas, data, index) {
  const ctx = canvas.getContext("2d");
  const size = canvas.width;
  ctx.clearRect(0, 0, size, size);
  const frame = data.frames[index];
  if (!frame) return;
  const g = data.grid;
  const cell = size / g;
  for (let r = 0; r < g; r += 1) {
    for (let c = 0; c < g; c += 1) {
      const k = frame.classes[r][c];
      const conf = frame.confidence[r][c];
      const [R, G, B] = CLASS_COLORS[k % CLASS_COLORS.length];
      // Confidence 1/classes (a guess) → almost white; 1 → the class colour at 45%.
      const floor = 1 / Math.max(2, data.classes);
      const a = 0.08 + 0.37 * Math.max(0, (conf - floor) / (1 - floor));
      ctx.fillStyle = `rgba(${R},${G},${B},${a.toFixed(3)})`;
      // Row 0 is the bottom of the picture; whole-pixel edges so translucent cells never overlap.
      const x0 = Math.round(c * cell);
      const y0 = Math.round(size - (r + 1) * cell);
      ctx.fillRect(x0, y0, Math.round((c + 1) * cell) - x0, Math.round(size - r * cell) - y0);
    }
  }
  const [x0, x1] = data.x_range;
  const [y0, y1] = data.y_range;
  const px = (x) => ((x - x0) / (x1 - x0)) * size;
  const py = (y) => size - ((y - y0) / (y1 - y0)) * size;
  const rad = Math.max(2, size / 110);
  data.points.forEach(([x, y], i) => {
    const [R, G, B] = CLASS_COLORS[data.labels[i] % CLASS_COLORS.length];
    ctx.beginPath();
    ctx.arc(px(x), py(y), rad, 0, 2 * Math.PI);
    ctx.fillStyle = `rgb(${R},${G},${B})`;
    ctx.fill();
    ctx.lineWidth = 0.8;
    ctx.strokeStyle = "#fff";
    ctx.stroke();
  });
}

/**
 * Turning numbers and tensor Values (app/schemas/common.py: {shape, dtype, data, summary}) into text
 * and small heat maps. No state.
 */

/**
 * How num writes a number: each place that writes numbers its own way is a named style of the one
 * formatter. A style's fields (all optional):
 *   sig        significant digits (4)
 *   fixed      decimals kept at 1 and above, trailing zeros dropped (else `sig` digits throughout)
 *   small, large   the exponent form below `small` (`atSmall`: at it too) and from `large` up
 *   expDigits  digits after the point in the exponent form; trim: "1e-5", not "1.000e-5" (true);
 *              plus: keep "e+" (true); minus: the exponent's minus sign ("-")
 *   decimals   exactly this many decimals (after `scale`, then `suffix`): 97.5%
 *   group      whole numbers with digit groups: 1,536
 *   coerce     read strings as numbers first; missing / nan: the text for null and for NaN
 */
export const STYLES = {
  // At least 4 significant digits (4 decimals above 1): 0.3333, -0.001822, 12.3457, -1.234e-5. Four
  // significant digits are what a guess is judged by (predict.js: 1e-3 relative), so a number typed
  // as the page shows it is right.
  value: { sig: 4, fixed: 4, small: 1e-4, large: 1e6, expDigits: 3 },
  // Inside a node, where room is short: 0.999, -1.66e-6, 1200, 1.23e5.
  node: { sig: 3, small: 1e-3, large: 1e5, expDigits: 2, plus: false },
  // A chart's axis ends: 0.5, 120, 1.0e+3.
  tick: { sig: 3, small: 1e-3, large: 1e3, expDigits: 1, trim: false },
  // A relative error: 1.2e−4, 0.05, "—" when there is none.
  error: { sig: 4, fixed: 4, small: 1e-3, atSmall: true, large: 1e3, expDigits: 1, minus: "−",
    coerce: true, missing: "—" },
  // The training view's losses and norms: `sig` digits, never an exponent JS would not write itself.
  digits: { sig: 4, small: 0, large: Infinity, coerce: true, missing: "—", nan: "—" },
  percent: { decimals: 1, scale: 100, suffix: "%", missing: "—" },
  tenths: { decimals: 1 },
  count: { group: true },
};

/** x as text in a style of STYLES (its name, or a style object such as {...STYLES.digits, sig: 6}). */
export function num(x, style = "value") {
  const o = typeof style === "string" ? STYLES[style] : style && typeof style === "object" ? style : STYLES.value;
  if (x === null || x === undefined) return o.missing ?? "None";
  if (typeof x === "boolean" && !o.coerce) return x ? "True" : "False";
  if (o.coerce) x = Number(x);
  if (typeof x !== "number") return String(x);
  if (Number.isNaN(x)) return o.nan ?? "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (o.group) return Number.isInteger(x) ? x.toLocaleString("en-US") : String(x);
  if (o.decimals !== undefined) return `${(x * (o.scale ?? 1)).toFixed(o.decimals)}${o.suffix ?? ""}`;
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a < o.small || (o.atSmall && a === o.small) || a >= o.large) return exponent(x, o);
  if (o.fixed === undefined || a < 1) return String(Number(x.toPrecision(o.sig ?? 4)));
  const s = x.toFixed(o.fixed).replace(/\.?0+$/, "");
  return s === "-0" ? "0" : s;
}

function exponent(x, o) {
  let s = x.toExponential(o.expDigits);
  if (o.trim !== false) s = s.replace(/\.?0+e/, "e");
  if (o.plus === false) s = s.replace("e+", "e");
  return o.minus ? s.replace("e-", `e${o.minus}`) : s;
}

/** num in the node style (3 significant digits, for the labels inside a node). */
export function num3(x) {
  return num(x, "node");
}

/** Nested list (or scalar) → text like [[1, 2], [3, 4]]. */
export function nested(data) {
  if (Array.isArray(data)) return `[${data.map(nested).join(", ")}]`;
  return num(data);
}

/** All numbers of a nested list, in order. */
export function flat(data, out = []) {
  if (Array.isArray(data)) for (const d of data) flat(d, out);
  else out.push(data);
  return out;
}

export function shapeText(shape) {
  return `[${(shape || []).join(", ")}]`;
}

export function numel(shape) {
  return (shape || []).reduce((a, b) => a * b, 1);
}

/** A Value (or a bare nested list) as text; summaries as min/max/mean. */
export function valueText(v, maxLen = 400) {
  if (v === null || v === undefined) return "None";
  if (!isValue(v)) return clip(nested(v), maxLen);
  if (v.data !== null && v.data !== undefined) return clip(nested(v.data), maxLen);
  if (v.summary) {
    const s = v.summary;
    return `${shapeText(v.shape)} min ${num(s.min)} · max ${num(s.max)} · mean ${num(s.mean)} · ‖·‖ ${num(s.norm)}`;
  }
  return shapeText(v.shape);
}

/**
 * A Value for a narrow table cell: a summarized (large) tensor as "min … max" and its mean on a
 * second line (the shape is shown beside it already), else valueText clipped to maxLen.
 */
export function compactText(v, maxLen = 40, meanWord = "mean") {
  if (isValue(v) && (v.data === null || v.data === undefined) && v.summary) {
    const s = v.summary;
    return `${num(s.min)} … ${num(s.max)}\n${meanWord} ${num(s.mean)}`;
  }
  return valueText(v, maxLen);
}

/**
 * Very short text for an edge label: a scalar, a short vector, or a shape with a norm (numbers
 * written by `fmt`: num, or num3 where room is shorter still).
 */
export function shortText(v, fmt = num) {
  if (!v) return "";
  const data = isValue(v) ? v.data : v;
  if (data !== null && data !== undefined) {
    const xs = flat(data);
    if (xs.length === 1) return fmt(xs[0]);
    if (xs.length <= 3) return `[${xs.map((x) => fmt(x)).join(", ")}]`;
    // The edge already shows the shape: the label gives the gradient's size (its norm).
    const norm = Math.sqrt(xs.reduce((a, b) => a + (Number(b) || 0) ** 2, 0));
    return `‖${fmt(norm)}‖`;
  }
  if (v.summary) return `‖${fmt(v.summary.norm)}‖`;
  return shapeText(v.shape);
}

export function isValue(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && "shape" in v;
}

function clip(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** Element-wise a + b of two nested lists of the same shape (for "before + contribution"). */
export function diff(after, before) {
  if (Array.isArray(after)) return after.map((a, i) => diff(a, Array.isArray(before) ? before[i] : before));
  return (Number(after) || 0) - (Number(before) || 0);
}

/** A diverging colour for x in [-m, m]: blue (negative), white, red (positive). */
export function heatColor(x, m) {
  if (!m || !Number.isFinite(x)) return "rgb(245,245,245)";
  const t = Math.max(-1, Math.min(1, x / m));
  const k = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? `rgb(255,${k},${k})` : `rgb(${k},${k},255)`;
}

/**
 * A heat map of a Value with 2..64 elements (1-D as one row, 2-D as a grid) as a DOM
 * element, or null when it does not apply.
 */
export function heatMap(v, { maxCells = 64, maxRows = 16 } = {}, doc = document) {
  if (!isValue(v) || v.data === null || v.data === undefined) return null;
  const shape = v.shape || [];
  if (shape.length < 1 || shape.length > 2 || numel(shape) < 2 || numel(shape) > maxCells) return null;
  if (shape.length === 2 && shape[0] > maxRows) return null;
  const rows = shape.length === 1 ? [v.data] : v.data;
  const m = Math.max(...flat(v.data).map((x) => Math.abs(Number(x) || 0)));
  const table = doc.createElement("table");
  table.className = "heat";
  for (const r of rows) {
    const tr = doc.createElement("tr");
    for (const x of r) {
      const td = doc.createElement("td");
      td.style.background = heatColor(Number(x), m);
      td.title = num(x);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  return table;
}

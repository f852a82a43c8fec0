/**
 * The server's limits (GET /api/limits), asked for once: the MLP form's bounds, and the words for a
 * limit that a message names as "(limit: max_ops)", in the reader's language.
 */

import { fetchLimits } from "./api.js";
import { num } from "./format.js";
import { t } from "./i18n.js";

let limits = null;
let pending = null;

/** The limits (null until they arrived, or when the server could not say). */
export function current() {
  return limits;
}

/** Ask the server once; resolves to the limits or null. */
export function load() {
  if (!pending) {
    pending = fetchLimits().then((res) => {
      limits = res.ok ? res.data : null;
      return limits;
    });
  }
  return pending;
}

/** A number as the limit phrases write it: whole numbers with digit groups, bytes in MB. */
function amount(name, v) {
  if (name === "max_tensor_bytes") return String(Math.round(v / 2 ** 20));
  return num(v, "count");
}

/** A limit named in words with its value in the page's language, e.g. "the time limit of 5 s" (lim_timeout_s). */
export function limitPhrase(name) {
  const v = limits && limits.run ? limits.run[name] : undefined;
  const key = `lim_${name}`;
  const known = t(key) !== key;
  if (!known) return t("lim_unknown", { name });
  return t(key, { v: v === undefined ? "…" : amount(name, v) });
}

const LIMIT_NOTE = /\(limit: ([a-z_]+)\)/g;

/** A server message with each "(limit: name)" said in words in the current language. */
export function sayLimits(message) {
  return String(message || "").replace(LIMIT_NOTE, (m, name) => t("limit_note", { what: limitPhrase(name) }));
}

/** The most training steps the server allows for `layers` hidden layers and `accumulate` micro-batches. */
export function maxSteps(layers, accumulate) {
  const table = limits && limits.mlp ? limits.mlp.max_steps : null;
  if (!table) return null;
  const row = table[Math.max(0, Math.min(table.length - 1, layers))];
  return row ? row[Math.max(0, Math.min(row.length - 1, accumulate - 1))] : null;
}

/** The runner limit that sets maxSteps(layers, accumulate). */
export function maxStepsLimit(layers, accumulate) {
  const table = limits && limits.mlp ? limits.mlp.max_steps_limit : null;
  const row = table ? table[Math.max(0, Math.min(table.length - 1, layers))] : null;
  return row ? row[Math.max(0, Math.min(row.length - 1, accumulate - 1))] : null;
}

/** The bounds of a numeric MLP form field ({min, max, min_open, max_open}) or null. */
export function fieldRange(name) {
  return limits && limits.mlp ? limits.mlp.fields[name] || null : null;
}

/** For tests: set the limits without asking the server. */
export function setLimits(value) {
  limits = value;
  pending = Promise.resolve(value);
}

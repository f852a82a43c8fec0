/**
 * Share links: the program, the expression's variables and the current step, in the URL hash
 * as base64url-encoded UTF-8 JSON (#s=...). No server storage.
 */

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(s) {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/**
 * The hash ("#s=...") for {source, variables, step, extra}: extra holds what panels restore (e.g. the
 * MLP form's settings, so the decision boundary comes back too).
 */
export function encodeShare({ source, variables, step, extra }) {
  const payload = { v: 1, source, step };
  if (variables && Object.keys(variables).length) payload.variables = variables;
  if (extra && Object.keys(extra).length) payload.extra = extra;
  return `#s=${toBase64Url(JSON.stringify(payload))}`;
}

/** {source, variables, step, extra} from a hash, or null when it holds none (or is damaged). */
export function decodeShare(hash) {
  const m = /^#?s=([A-Za-z0-9_-]+)$/.exec(hash || "");
  if (!m) return null;
  try {
    const p = JSON.parse(fromBase64Url(m[1]));
    if (typeof p.source !== "string") return null;
    const obj = (x) => (x && typeof x === "object" && !Array.isArray(x) ? x : {});
    return { source: p.source, variables: obj(p.variables), step: Number(p.step) || 0, extra: obj(p.extra) };
  } catch {
    return null;
  }
}

/** The full link for the current page location. */
export function shareUrl(loc, data) {
  return `${loc.origin}${loc.pathname}${encodeShare(data)}`;
}

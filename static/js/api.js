/**
 * HTTP calls to the gradviz API. Every function resolves to {ok, status, data} or
 * {ok: false, status, error: {type, message, line, col}}; it never throws.
 */

async function call(url, init) {
  let res;
  try {
    res = await fetch(url, init);
  } catch (err) {
    return { ok: false, status: 0, error: { type: "NetworkError", message: String(err.message || err), line: null, col: null } };
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok) return { ok: true, status: res.status, data: body };
  const error = (body && body.error) || { type: "HTTPError", message: `HTTP ${res.status}`, line: null, col: null };
  return { ok: false, status: res.status, error };
}

/** GET /api/examples → [{id, title: {en, zh}, source, variables?}] */
export function fetchExamples() {
  return call("/api/examples");
}

/** Extra fields of every run request, set by panels (e.g. fold: "module" | "op", see fold.js). */
export const runOptions = {};

/** POST /api/run → RunResponse (see app/schemas.py). */
export function runProgram(source, variables) {
  const body = { source, ...runOptions };
  if (variables && Object.keys(variables).length) body.variables = variables;
  return call("/api/run", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

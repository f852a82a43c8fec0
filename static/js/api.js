/**
 * HTTP calls to the gradviz API. Every function resolves to {ok, status, data} or
 * {ok: false, status, error: {type, message, line, col}}; it never throws.
 */

import { offline, offlineCall } from "./offline.js";

export async function call(url, init) {
  if (offline) return offlineCall(url, init); // an offline copy answers from the run it holds
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
  const out = { ok: false, status: res.status, error };
  if (res.status === 503) out.retryAfter = Math.max(1, Math.min(60, Number(res.headers.get("Retry-After")) || 2));
  return out;
}

const BUSY_RETRIES = 5;

/**
 * `request()` again while the server answers 503 (busy), after the seconds it asks for, at most
 * BUSY_RETRIES times. `waiting(seconds)` is told each second of the wait (0 when it is over);
 * `cancelled()` true stops waiting (a newer request replaced this one).
 */
export async function retryWhileBusy(request, waiting, cancelled) {
  let res = await request();
  for (let i = 0; i < BUSY_RETRIES && !res.ok && res.status === 503 && !cancelled(); i++) {
    for (let left = res.retryAfter; left > 0; left--) {
      if (cancelled()) return res;
      waiting(left);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    waiting(0);
    if (cancelled()) return res;
    res = await request();
  }
  return res;
}

function post(url, body) {
  return call(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

/** GET /api/examples → [{id, title: {en, zh}, source, variables?}] */
export function fetchExamples() {
  return call("/api/examples");
}

/** GET /api/health → {status, sandbox?} */
export function fetchHealth() {
  return call("/api/health");
}

/** GET /api/limits → Limits (app/schemas/meta.py) */
export function fetchLimits() {
  return call("/api/limits");
}

/**
 * POST /api/run → RunResponse. variables: the expression's inputs (null: none); fold: the graph
 * level; direction: "down" draws top to bottom (a phone).
 */
export function runProgram(source, variables, fold = "auto", direction = "auto") {
  const body = { source, fold, direction };
  if (variables && Object.keys(variables).length) body.variables = variables;
  return post("/api/run", body);
}

/**
 * POST /api/run/extras → ExtrasResponse: what the answer of the run of `source` left for later (the
 * check by hand, the course views but the heat). fingerprint: the run's (409 if it differs).
 */
export function runExtras(source, variables, fingerprint) {
  const body = { source, fingerprint };
  if (variables && Object.keys(variables).length) body.variables = variables;
  return post("/api/run/extras", body);
}

/**
 * POST /api/open → OpenResponse: view `view` of the run of `source` with the parts `open` open
 * (oldest first), its nodes' values and its drawing. fingerprint: the run's (409 if it differs).
 * had: the parts open in the drawing the page shows now (the answer leaves out what it shows).
 */
export function openParts(source, variables, view, open, direction, fingerprint, had = null) {
  const body = { source, view, open, direction, fingerprint };
  if (had) body.had = had;
  if (variables && Object.keys(variables).length) body.variables = variables;
  return post("/api/open", body);
}

/**
 * POST /api/offline/opened → {answers, left}: the answers of POST /api/open a page saved as one
 * file holds for its boxes, each opened (or closed) on its own. held: offline.js's heldOf(resp).
 */
export function openedParts(source, variables, held) {
  const body = { source, ...held };
  if (variables && Object.keys(variables).length) body.variables = variables;
  return post("/api/offline/opened", body);
}

// What the drawing reads of a node and an edge (LayoutNodeIn / LayoutEdgeIn in app/schemas/layout.py).
const NODE_KEYS = ["id", "kind", "name", "shape", "requires_grad", "is_param", "is_output", "is_saved", "is_constant",
  "var", "module", "label", "sym", "part"];
const PART_KEYS = ["id", "kind", "label", "type_name", "parent", "view", "size", "key", "iterations"];
const EDGE_KEYS = ["id", "source", "target", "shape", "needs_grad"];

function only(obj, keys) {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

/**
 * POST /api/layout: the run's views drawn again ("down": top to bottom), with the parts they show
 * open, or (`atLevel`) with the parts the `fold` level opens among those the answer holds.
 */
export function fetchLayout(resp, fold, direction = "auto", atLevel = false) {
  return post("/api/layout", {
    nodes: resp.graph.nodes.map((n) => only(n, NODE_KEYS)),
    edges: resp.graph.edges.map((e) => only(e, EDGE_KEYS)),
    parts: (resp.parts || []).map((p) => ({ ...only(p, PART_KEYS), first: p.span[0] })),
    views: resp.views.map((v) => ({ nodes: v.nodes, edges: v.edges, open: atLevel ? null : v.open || [], links: v.links || [] })),
    fold,
    direction,
  });
}

/** POST /api/mlp/program → MlpProgram (the form's program and its facts). */
export function fetchMlpProgram(config) {
  return post("/api/mlp/program", config);
}

/** POST /api/mlp/boundary → BoundaryResponse. */
export function fetchBoundary(body) {
  return post("/api/mlp/boundary", body);
}

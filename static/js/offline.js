/**
 * The page as one HTML file (written by `gradviz render`, a notebook, or the "Save as HTML" button):
 * the run it plays travels inside it (<script id="offline-data">, see app/offline.py), and every API
 * call the page makes is answered from that data, so it plays from file:// on a train. Editing and
 * running programs need gradviz itself; the page says so and keeps the program read-only.
 *
 * On a served page the slot is empty (`offline` is null) and nothing here changes anything; the
 * button builds the file from GET /offline (the page with its modules inlined) and the run shown.
 */

import { getLang, setLang, t } from "./i18n.js";

const FORMAT = 1;
const DATA_OPEN = '<script type="application/json" id="offline-data">';

function readData() {
  if (typeof document === "undefined") return null;
  const el = document.getElementById("offline-data");
  if (!el) return null;
  try {
    const data = JSON.parse(el.textContent);
    if (data === null) return null;
    if (!data || data.format !== FORMAT || !data.answer || !data.program) return { broken: true };
    return data;
  } catch {
    return { broken: true };
  }
}

/** The data of an offline copy, or null on a served page. */
export const offline = readData();

/** An offline copy opens in the language it was saved in (unless its address asks for one). */
export function offlineLanguage() {
  if (offline && (offline.lang === "en" || offline.lang === "zh") && !new URLSearchParams(location.search).get("lang")) {
    setLang(offline.lang);
  }
}
offlineLanguage(); // before the modules that write strings while they load (main.js asks again after initLang)

function fail(message, type = "Offline") {
  return { ok: false, status: 0, error: { type, message, line: null, col: null } };
}

function sameInputs(a, b) {
  return JSON.stringify(a || {}) === JSON.stringify(b || {});
}

/** Each view's drawing at `key` ("<level>|<direction>"), or null when the file has none. */
function drawnViews(key) {
  const layouts = offline.layouts || {};
  const ids = layouts.keys && layouts.keys[key];
  if (!ids) return null;
  return ids.map((k, i) => ({ index: i, svg: layouts.svgs[k], ...((layouts.folded || {})[key] || [])[i] }));
}

/** The answer an API call gets in an offline copy (the same shape as api.js's answers). */
export function offlineCall(url, init) {
  if (offline.broken) return fail(t("offline_bad"));
  const body = init && init.body ? JSON.parse(init.body) : {};
  switch (url) {
    case "/api/run": {
      if (body.source !== offline.program.source || !sameInputs(body.variables, offline.program.variables)) {
        return fail(t("offline_run"));
      }
      // the run it holds, drawn at the level and in the direction asked for (when the file has it)
      const answer = structuredClone(offline.answer);
      const views = drawnViews(`${body.fold || "auto"}|${body.direction || "auto"}`);
      if (views) answer.views.forEach((v, i) => Object.assign(v, views[i]));
      return { ok: true, status: 200, data: answer };
    }
    case "/api/layout": {
      const views = drawnViews(`${body.fold || "auto"}|${body.direction || "auto"}`);
      return views ? { ok: true, status: 200, data: { views } } : fail(t("offline_layout"));
    }
    case "/api/open": {
      // the boxes were opened (or closed) one at a time when the file was written; a phone's
      // top-to-bottom drawing falls back to the one the file has
      const answers = (offline.opened && offline.opened.answers) || {};
      const open = Array.isArray(body.open) ? body.open : [];
      const got = answers[openKey(body.view, body.direction || "auto", open)] || answers[openKey(body.view, "auto", open)]
        || sameSet(answers, body.view, open);
      return got ? { ok: true, status: 200, data: structuredClone(got) } : fail(t("offline_open"));
    }
    case "/api/health":
      return { ok: true, status: 200, data: { status: "ok" } };
    case "/api/limits":
      return offline.limits ? { ok: true, status: 200, data: offline.limits } : fail(t("offline_only"));
    case "/api/examples":
      return { ok: true, status: 200, data: [] };
    default:
      return fail(t("offline_only"));
  }
}

/**
 * How an offline copy finds an answer of POST /api/open: the reader of the keys app/offline.py's
 * open_key writes (the answers of POST /api/offline/opened, and of `gradviz render`). It stays here
 * only because the file looks answers up with no server; the format is app/offline.py's.
 */
export function openKey(view, direction, open) {
  return `${view}|${direction}|${open.join(",")}`;
}

/**
 * What POST /api/offline/opened needs of the run the page shows (app/schemas/offline.py): its
 * views' open sets, its parts, and the ids of the nodes, edges and backward steps it holds.
 */
export function heldOf(resp) {
  return {
    fingerprint: resp.fingerprint || "",
    views: resp.views.map((v) => ({ open: v.open || [] })),
    parts: (resp.parts || []).map((p) => ({ id: p.id, view: p.view, parent: p.parent ?? null })),
    nodes: resp.graph.nodes.map((n) => n.id),
    edges: resp.graph.edges.map((e) => e.id),
    backward: resp.backward.map((p) => ({ index: p.index, steps: p.steps.map((st) => st.index) })),
  };
}

/** The answer held for the open set `open` of `view` in another order, or undefined. */
function sameSet(answers, view, open) {
  const want = [...open].sort().join(",");
  for (const [key, got] of Object.entries(answers)) {
    const [v, , ids] = key.split("|");
    if (Number(v) === view && ids.split(",").filter(Boolean).sort().join(",") === want) return got;
  }
  return undefined;
}

/** The program an offline copy opens with, or null. */
export function offlineProgram() {
  if (!offline) return null;
  if (offline.broken) return { source: "", variables: null, broken: true };
  const vars = offline.program.variables;
  return { source: offline.program.source, variables: vars && Object.keys(vars).length ? vars : null, step: offline.step };
}

const STYLE = `
html.offline [data-testid=run], html.offline [data-testid=share], html.offline [data-testid=examples],
html.offline [data-testid=export-html], html.offline #mlp-panel, html.offline .sharebar { display: none !important; }
html.offline #vars input { pointer-events: none; }
`;

/** Mark the page as an offline copy: the notice, a read-only program, no Run. */
export function enterOffline(notice, textarea) {
  document.documentElement.classList.add("offline");
  const style = document.createElement("style");
  style.textContent = STYLE;
  document.head.appendChild(style);
  textarea.readOnly = true;
  notice.hidden = false;
  offlineLang(notice);
}

/** The notice in the current language. */
export function offlineLang(notice) {
  const txt = notice.querySelector(".txt");
  if (txt) txt.textContent = t(offline && offline.broken ? "offline_bad" : "offline_notice");
}

/** Inputs of an offline copy cannot change (there is nothing to run them). */
export function freezeInputs(root) {
  for (const el of root.querySelectorAll("input, select, textarea")) el.disabled = true;
}

/**
 * The page as one HTML file playing `resp`: the shell from GET /offline with the run in its slot.
 * `layouts(fold, direction)` draws the views again (POST /api/layout); every level and direction
 * the page can show is put in, so the file never needs the server. `openedFor(held)` asks
 * POST /api/offline/opened with heldOf(resp): each box of the drawing is put in opened (or closed)
 * on its own, as the server plans it (app/offline.py's plan_opened).
 */
export async function buildHtml({ resp, source, variables, frame, title, layoutsFor, openedFor, limits }) {
  const res = await fetch(`/offline?lang=${getLang()}`);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const shell = await res.text();
  const svgs = [];
  const index = new Map();
  const keys = {};
  const folded = {};
  for (const level of ["auto", "module", "op"]) {
    for (const direction of ["auto", "down"]) {
      const got = await layoutsFor(level, direction);
      if (!got.ok) throw new Error(got.error.message);
      const key = `${level}|${direction}`;
      keys[key] = got.data.views.map((v) => {
        if (!index.has(v.svg)) {
          index.set(v.svg, svgs.length);
          svgs.push(v.svg);
        }
        return index.get(v.svg);
      });
      folded[key] = got.data.views.map((v) => ({ folded: v.folded, folds: v.folds, open: v.open, segments: v.segments,
        undrawn: v.undrawn }));
    }
  }
  const answer = structuredClone(resp);
  // The answer's own drawings: the automatic level, read from left to right (as a run answers).
  answer.views.forEach((v, i) => Object.assign(v, { svg: svgs[keys["auto|auto"][i]], ...folded["auto|auto"][i] }));
  let opened = { answers: {}, left: 0 };
  if (openedFor) {
    const got = await openedFor(heldOf(resp));
    if (!got.ok) throw new Error(got.error.message);
    opened = got.data;
  }
  const data = { format: FORMAT, program: { source, variables: variables || {} }, answer, lang: getLang(), step: frame, title,
    layouts: { svgs, keys, folded }, limits, opened };
  const json = JSON.stringify(data).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  const start = shell.indexOf(DATA_OPEN) + DATA_OPEN.length;
  const end = shell.indexOf("</script>", start);
  if (start < DATA_OPEN.length || end < 0) throw new Error("the page has no data slot");
  return shell.slice(0, start) + json + shell.slice(end);
}

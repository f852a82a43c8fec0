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

/** How an offline copy finds an answer of POST /api/open (app/offline.py writes the same keys). */
export function openKey(view, direction, open) {
  return `${view}|${direction}|${open.join(",")}`;
}

/**
 * The open sets of each view an offline copy can show, as [view, open part ids] in the order the
 * page asks for them, most wanted first: each view as saved, each box a drawing shows opened on its
 * own, then each open part closed with the parts inside it (app/offline.py's open_states, the same).
 */
export function openStates(resp) {
  const parts = resp.parts || [];
  const parent = new Map(parts.map((p) => [p.id, p.parent ?? null]));
  const inside = (pid, q) => {
    for (let at = q; at !== null && at !== undefined; at = parent.get(at)) if (at === pid) return true;
    return false;
  };
  const bases = resp.views.map((view) => [...(view.open || [])]);
  const saved = bases.map((base, v) => [v, base]);
  const known = parts.filter((p) => p.view < bases.length);
  const opened = known.filter((p) => !bases[p.view].includes(p.id)).map((p) => [p.view, [...bases[p.view], p.id]]);
  const closed = known.filter((p) => bases[p.view].includes(p.id))
    .map((p) => [p.view, bases[p.view].filter((q) => !inside(p.id, q))]);
  return [...saved, ...opened, ...closed];
}

/** The open sets one box further from `open`: each box an answer's drawing shows inside the part
 * opened last (a loop's chunks), opened as well (app/offline.py's nested_states). */
export function nestedStates(opened, view, open) {
  const drawn = new Set((opened.views && opened.views[0] && opened.views[0].open) || []);
  const last = open.length ? open[open.length - 1] : null;
  return (opened.parts || []).filter((p) => last !== null && p.parent === last && !open.includes(p.id) && !drawn.has(p.id))
    .map((p) => [view, [...open, p.id]]);
}

/**
 * An answer of POST /api/open without the nodes, edges and backward steps `resp` already holds
 * (merge.js keeps what the page knows and adds what is new; app/offline.py's only_new).
 */
export function onlyNew(opened, resp) {
  const nodes = new Set(resp.graph.nodes.map((n) => n.id));
  const edges = new Set(resp.graph.edges.map((e) => e.id));
  const steps = new Map(resp.backward.map((p) => [p.index, new Set(p.steps.map((st) => st.index))]));
  return {
    ...opened,
    graph: { ...opened.graph, nodes: opened.graph.nodes.filter((n) => !nodes.has(n.id)), edges: opened.graph.edges.filter((e) => !edges.has(e.id)) },
    backward: opened.backward.map((p) => ({ ...p, steps: p.steps.filter((st) => !(steps.get(p.index) || new Set()).has(st.index)) })),
  };
}

/**
 * The answers of POST /api/open for the first `most` of openStates(resp), within `budget` bytes and
 * about `seconds` (each is a run of the program on the server): {answers, left}.
 */
async function openedFor(resp, openFor, budget = 12_000_000, most = 24, seconds = 10) {
  const states = openStates(resp);
  const answers = {};
  let left = 0;
  let used = 0;
  if (states.length <= resp.views.length) return { answers, left };
  const until = performance.now() + seconds * 1000;
  const queue = [...states];
  const seen = new Set(states.map(([v, o]) => openKey(v, "auto", o)));
  for (let k = 0; k < queue.length; k++) {
    const [view, open] = queue[k];
    if (Object.keys(answers).length >= most || performance.now() > until) {
      left += 1;
      continue;
    }
    const got = await openFor(view, open);
    if (!got.ok) throw new Error(got.error.message);
    const data = onlyNew(got.data, resp);
    const size = JSON.stringify(data).length;
    if (used + size > budget) {
      left += 1;
      continue;
    }
    used += size;
    answers[openKey(view, "auto", open)] = data;
    // the boxes this drawing shows (a loop's chunks), each opened in turn, are states too
    for (const more of nestedStates(got.data, view, open)) {
      const key = openKey(more[0], "auto", more[1]);
      if (!seen.has(key)) {
        seen.add(key);
        queue.push(more);
      }
    }
  }
  return { answers, left };
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
 * the page can show is put in, so the file never needs the server. `openFor(view, open)` asks
 * POST /api/open: each box of the drawing is put in opened (or closed) on its own.
 */
export async function buildHtml({ resp, source, variables, frame, title, layoutsFor, openFor, limits }) {
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
  const opened = openFor ? await openedFor(resp, openFor) : { answers: {}, left: 0 };
  const data = { format: FORMAT, program: { source, variables: variables || {} }, answer, lang: getLang(), step: frame, title,
    layouts: { svgs, keys, folded }, limits, opened };
  const json = JSON.stringify(data).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
  const start = shell.indexOf(DATA_OPEN) + DATA_OPEN.length;
  const end = shell.indexOf("</script>", start);
  if (start < DATA_OPEN.length || end < 0) throw new Error("the page has no data slot");
  return shell.slice(0, start) + json + shell.slice(end);
}

/**
 * Wiring: builds the modules, runs programs, moves the player, keeps panels in step.
 * Everything else lives in its own module; this file only connects them (through state.js's bus).
 */

import { fetchExamples, fetchHealth, fetchLayout, openedParts, openParts, retryWhileBusy, runProgram } from "./api.js";
import { ProgramChooser } from "./chooser.js";
import { download, exportSlide, pngBlob, svgText } from "./export.js";
import { mergeView } from "./merge.js";
import { GraphView } from "./graph.js";
import { apply as applyI18n, getLang, initLang, setLang, t } from "./i18n.js";
import { fillIcons } from "./icons.js";
import * as limits from "./limits.js";
import { Controls } from "./panels/controls.js";
import { DetailsPanel } from "./panels/details.js";
import { Editor } from "./panels/editor.js";
import { ExplainPanel } from "./panels/explain.js";
import { GradCheckPanel } from "./panels/gradcheck.js";
import { OutputPanels } from "./panels/output.js";
import { PredictPanel } from "./panels/predict.js";
import { VarsPanel } from "./panels/vars.js";
import { mergeRun, withExtras } from "./extras.js";
import { buildHtml, enterOffline, freezeInputs, offline, offlineLang, offlineLanguage, offlineProgram } from "./offline.js";
import { Player } from "./player.js";
import { PartIndex } from "./parts.js";
import { Classroom } from "./present.js";
import { startLiveClass } from "./class/index.js";
import { SandboxNotice } from "./sandbox.js";
import { decodeShare, encodeShare, shareUrl } from "./share.js";
import { emit, on, state } from "./state.js";
import { buildTimeline } from "./timeline.js";
import { openingFrame } from "./training_model.js";
import "./training.js"; // the training view and the MLP form: they listen on the bus before the first run
import "./lenses/panel.js"; // the course views: they listen on the bus too
import "./panels/why.js"; // the "Why?" answer: it listens on the bus too

const $ = (sel) => document.querySelector(sel);
initLang();
offlineLanguage();
applyI18n();
fillIcons();

const player = new Player();
const editor = new Editor($("[data-testid=source]"), $("#gutter"), $("#errmark"), { onRun: () => run() });
const output = new OutputPanels($("[data-testid=error]"), $("[data-testid=console]"), editor);
const graph = new GraphView($("[data-testid=graph]"), {
  pick: (sel) => {
    state.selected = sel;
    state.hovered = null; // the click wins over the element the pointer happens to be on
    graph.select(sel);
    emit("select", sel);
  },
  hover: (sel) => {
    state.hovered = sel;
    emit("hover", sel);
  },
  openPart: (view, part) => emit("open-part", view, part),
  closePart: (view, part) => emit("close-part", view, part),
});
const explain = new ExplainPanel($("#explain"));
const details = new DetailsPanel($("#details"));
const gradcheck = new GradCheckPanel($("[data-testid=grad-check]"), $("#gradcheck"));
const vars = new VarsPanel($("#vars"), {
  onEdit: (name, v) => {
    state.variables = { ...state.variables, [name]: v };
    emit("rerun");
  },
});
const predict = new PredictPanel($("[data-testid=predict-panel]"), $("#predict"));
// Moving on while a prediction is open reveals it first (a clicker's "next" does both in turn).
player.setGate(() => predict.pending() && (predict.reveal(), true));
// "user-step": the user moved the timeline (keys, buttons, slider): the step explanation is wanted.
const controls = new Controls(document, player, () => emit("user-step"));
const classroom = new Classroom({ graph, player, predict });
startLiveClass({ classroom, predict, openProgram: (program) => openProgram(program).then(() => chooser.sync()) });
const chooser = new ProgramChooser($("[data-testid=examples]"), editor, { open: (program) => openProgram(program) });
const notice = new SandboxNotice($("[data-testid=sandbox-notice]"));
const runBtn = $("[data-testid=run]");
const layout = $("main.layout");
const narrow = window.matchMedia("(max-width: 600px)");

// ---- running ---------------------------------------------------------------------------------
const DEFAULTS = [2.0, -3.0, 10.0, 0.5, 4.0, -1.0];
let runSeq = 0;

function setBusy(busy) {
  state.running = busy;
  runBtn.disabled = busy;
  runBtn.textContent = t(busy ? "running" : "run");
  layout.setAttribute("aria-busy", String(busy));
}

/**
 * Run the editor's program; resolves when the page shows the result. `frame`: where to stand
 * (null: the start, or a training run's first iteration). Inputs belong to the expression that
 * declared them: a program runs with none; an expression's free names get the values the table
 * holds for them, else starting values (the table can change them).
 */
async function run(frame = null) {
  const seq = ++runSeq;
  const source = editor.value;
  state.source = source;
  setBusy(true);
  emit("run-start", source);
  const given = state.inputsFor === source ? state.variables : null;
  // A busy server (503) is asked again after the time it names; the Run button counts down.
  const waiting = (left) => { if (seq === runSeq) runBtn.textContent = left ? t("busy_retry", { n: left }) : t("running"); };
  const replaced = () => seq !== runSeq;
  let res = await retryWhileBusy(() => runProgram(source, given, state.fold, direction()), waiting, replaced);
  if (seq === runSeq && res.ok && needsInputs(res.data, given)) {
    state.variables = startingInputs(res.data.free_names, state.variables);
    state.inputsFor = source;
    res = await retryWhileBusy(() => runProgram(source, state.variables, state.fold, direction()), waiting, replaced);
  }
  if (seq !== runSeq) return; // a newer run replaced this one
  setBusy(false);
  if (!res.ok) {
    state.response = null;
    state.timeline = null;
    state.ranSource = null;
    graph.load(null);
    output.show(res.error, "");
    gradcheck.render(state);
    vars.build(state);
    controls.build(null);
    player.load(0);
    emit("error", res.error);
    emit("run-end", { ok: false, error: res.error });
    return;
  }
  show(res.data, source, frame);
}

function show(resp, source, frame) {
  if (resp.mode === "expression" && resp.free_names.length) {
    const mine = {};
    for (const name of resp.free_names) mine[name] = state.variables[name];
    state.variables = mine;
    state.inputsFor = source;
  } else {
    state.variables = {};
    state.inputsFor = null;
  }
  state.response = resp;
  state.ranSource = source;
  state.openOrder = {};
  state.selected = null;
  state.hovered = null;
  state.timeline = buildTimeline(resp);
  graph.load(resp);
  output.show(resp.error, resp.stdout, resp.stdout_truncated);
  vars.build(state);
  controls.build(state.timeline);
  predict.reset();
  emit("run", resp, { frame });
  const start = frame ?? Math.max(0, openingFrame(resp, state.timeline));
  player.load(state.timeline.length, start);
  if (resp.error) emit("error", resp.error);
  emit("run-end", { ok: true, error: resp.error });
}

/** The answer needs the expression's inputs: it ran without them (or without some). */
function needsInputs(resp, given) {
  if (resp.mode !== "expression" || !resp.free_names.length) return false;
  return given === null || resp.free_names.some((name) => !given[name]);
}

function startingInputs(names, known) {
  const out = {};
  names.forEach((name, i) => {
    out[name] = known[name] || { value: DEFAULTS[i % DEFAULTS.length], requires_grad: true };
  });
  return out;
}

/** A phone reads a graph top to bottom. */
function direction() {
  return narrow.matches ? "down" : "auto";
}

/** The inputs the shown run ran with (an expression's free names), or null. */
function ranInputs() {
  return state.inputsFor === state.ranSource ? state.variables : null;
}

/**
 * The answer's drawings changed (another level, a part opened): same run, same frames, so the
 * timeline is updated for the nodes whose data changed rather than built again from every frame.
 */
function redrawn(resp) {
  state.timeline = state.timeline ? state.timeline.reopened(resp) : buildTimeline(resp);
  graph.load(resp);
  repaint();
  emit("relayout", resp);
}

on("rerun", () => run());
on("goto", (k) => {
  player.pause();
  player.goTo(k);
});
// Another graph level: the program runs again at that level (runs are deterministic, so the frames
// stay the same and the player stays where it is).
on("graph-level", async (level) => {
  state.fold = level;
  const resp = state.response;
  if (!resp || state.running) return;
  setBusy(true);
  const res = await runProgram(state.ranSource, ranInputs(), level, direction());
  setBusy(false);
  if (resp !== state.response) return;
  if (!res.ok || res.data.fingerprint !== resp.fingerprint) {
    output.note(t("relayout_failed", { msg: res.ok ? t("run_changed") : output.said(res.error) }));
    return;
  }
  mergeRun(resp, res.data);
  state.openOrder = {};
  redrawn(resp);
});

// ---- opening and closing parts ---------------------------------------------------------------
// The views' open parts, oldest first (when opening more would show too much, the oldest close).
state.openOrder = {};

async function changeParts(view, part, open) {
  const resp = state.response;
  if (!resp || !resp.views[view] || state.running) return;
  const shown = resp.views[view].open || [];
  let order = state.openOrder[view] || [...shown];
  if (open) {
    order = [...order.filter((q) => q !== part), part];
  } else {
    const gone = new Set([part, ...new PartIndex(resp).inside(part)]);
    order = order.filter((q) => !gone.has(q));
  }
  setBusy(true);
  const t0 = performance.now();
  const res = await retryWhileBusy(() => openParts(state.ranSource, ranInputs(), view, order, direction(),
    resp.fingerprint, shown), () => {}, () => resp !== state.response);
  setBusy(false);
  if (resp !== state.response) return;
  if (!res.ok) return output.note(t("open_failed", { msg: output.said(res.error) }));
  mergeView(resp, view, res.data);
  const now = new Set(resp.views[view].open);
  state.openOrder[view] = order.filter((q) => now.has(q));
  graph.focusPart = part; // the drawing starts around the part just opened or closed
  const t1 = performance.now();
  redrawn(resp);
  state.lastOpen = { fetch: t1 - t0, draw: performance.now() - t1 }; // for the page's own benchmark
}

on("open-part", (view, part) => changeParts(view, part, true));
on("close-part", (view, part) => changeParts(view, part, false));

// ---- the player moves -----------------------------------------------------------------------
/** Show the frame the player stands on (prev: the frame shown before, -1 to draw everything). */
function paint(k, prev) {
  state.frame = k;
  predict.prepare(state);
  if (state.timeline && state.timeline.length) graph.render(state.timeline, k, prev, state.concealed);
  controls.update(k);
  explain.render(state);
  gradcheck.render(state);
  details.render(state);
  vars.update(state);
  predict.render(state);
}

function repaint() {
  paint(state.frame, -1);
}

player.onChange((k, prev) => {
  paint(k, prev);
  emit("frame", k, prev);
});
on("select", () => details.render(state));
on("hover", () => details.render(state));
on("conceal", () => repaint());
on("present", () => {
  if (state.timeline) repaint();
});

document.addEventListener("keydown", (e) => {
  const el = e.target;
  const tag = el && el.tagName;
  if (tag === "TEXTAREA" || tag === "INPUT" || tag === "SELECT" || (el && el.isContentEditable)) return;
  if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return; // the button's own click
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (!state.present && (e.key === "PageDown" || e.key === "PageUp")) return; // the page scrolls
  if (classroom.key(e.key) || player.key(e.key)) {
    e.preventDefault();
    emit("user-step");
  }
});

// ---- examples and the user's own program ------------------------------------------------------
/** Open a program from the chooser: {source, variables} (an example's inputs, or none). */
function openProgram({ source, variables }) {
  editor.value = source;
  state.variables = JSON.parse(JSON.stringify(variables || {}));
  state.inputsFor = variables ? source : null;
  return run();
}

runBtn.addEventListener("click", () => run());

// ---- language ----------------------------------------------------------------------------------
$("[data-testid=lang]").addEventListener("click", () => {
  setLang(getLang() === "en" ? "zh" : "en");
  applyI18n();
  chooser.lang();
  controls.lang(state.timeline);
  vars.build(state);
  output.lang();
  notice.lang();
  if (offline) offlineLang($("[data-testid=offline-notice]"));
  if (!state.response) graph.load(null);
  if (state.timeline) repaint();
  else explain.render(state);
  emit("lang", getLang());
});

// ---- graph tools -------------------------------------------------------------------------------
$("#fit").addEventListener("click", () => graph.panzoom.fit());
$("#zoom-in").addEventListener("click", () => graph.panzoom.zoom(1.25));
$("#zoom-out").addEventListener("click", () => graph.panzoom.zoom(0.8));

function homeBox() {
  const h = graph.panzoom.full; // the whole drawing, legend included
  return h ? { x: h.x, y: h.y, width: h.w, height: h.h } : null;
}

$("[data-testid=export-svg]").addEventListener("click", () => {
  const svg = graph.svg();
  if (svg) download(new Blob([svgText(svg, homeBox())], { type: "image/svg+xml" }), `gradviz-step-${state.frame + 1}.svg`);
});
$("[data-testid=export-png]").addEventListener("click", async () => {
  const svg = graph.svg();
  if (!svg) return;
  try {
    download(await pngBlob(svg, homeBox()), `gradviz-step-${state.frame + 1}.png`);
  } catch (err) {
    output.note(String(err.message || err));
  }
});

$("[data-testid=export-slide]").addEventListener("click", () => {
  exportSlide(graph, `gradviz-slide-${state.frame + 1}`).catch((err) => output.note(String(err.message || err)));
});

$("[data-testid=export-html]").addEventListener("click", async (e) => {
  const resp = state.response;
  if (!resp || state.ranSource === null) return;
  const btn = e.currentTarget;
  btn.disabled = true;
  btn.textContent = t("export_html_busy");
  try {
    const source = state.ranSource;
    const html = await buildHtml({ // the file has no server to ask: it holds what every panel shows
      resp: await withExtras(resp), source, variables: state.inputsFor === source ? state.variables : {}, frame: state.frame,
      title: null, limits: limits.current(), layoutsFor: (level, direction) => fetchLayout(resp, level, direction, true),
      openedFor: (held) => openedParts(source, ranInputs(), held),
    });
    download(new Blob([html], { type: "text/html" }), "gradviz.html");
  } catch (err) {
    output.note(t("export_html_failed", { msg: String(err.message || err) }));
  } finally {
    btn.disabled = false;
    btn.textContent = t("export_html");
  }
});

// ---- share -------------------------------------------------------------------------------------
// Panels add what they need to restore (the MLP form's settings) through "share" and "shared".
$("[data-testid=share]").addEventListener("click", async () => {
  const source = state.ranSource ?? editor.value;
  const data = { source, variables: state.inputsFor === source ? state.variables : {}, step: state.frame, extra: {} };
  emit("share", data.extra);
  const url = shareUrl(location, data);
  history.replaceState(null, "", encodeShare(data));
  const box = $("[data-testid=share-link]");
  box.value = url;
  box.hidden = false;
  box.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(url);
    copied = true;
  } catch {
    copied = false;
  }
  $("#share-note").textContent = copied ? t("share_copied") : t("share_ready");
});

async function restoreFromHash() {
  const shared = decodeShare(location.hash);
  if (!shared) return false;
  editor.value = shared.source;
  chooser.sync();
  state.variables = shared.variables;
  state.inputsFor = Object.keys(shared.variables).length ? shared.source : null;
  const waits = [];
  emit("shared", shared.extra, waits); // a panel that must fetch something first adds its promise
  await Promise.all(waits);
  await run(shared.step);
  return true;
}
window.addEventListener("hashchange", () => restoreFromHash());

// ---- start -------------------------------------------------------------------------------------
/** The examples the server put into the page, else GET /api/examples. */
async function loadExamples() {
  try {
    const embedded = JSON.parse(document.getElementById("examples-data").textContent);
    if (Array.isArray(embedded) && embedded.length) return embedded;
  } catch {
    /* not embedded (or not valid): ask the API */
  }
  const res = await fetchExamples();
  return res.ok ? res.data : [];
}

async function start() {
  limits.load();
  if (offline) {
    // An offline copy: open the run it holds (its API answers come from the file, see offline.js).
    enterOffline($("[data-testid=offline-notice]"), $("[data-testid=source]"));
    on("run", () => freezeInputs($("#vars")));
    const program = offlineProgram();
    if (program.broken) {
      layout.setAttribute("aria-busy", "false");
      return;
    }
    await openProgram(program);
    if (program.step !== null && program.step !== undefined && state.timeline) player.goTo(Math.min(program.step, state.timeline.length - 1));
    return;
  }
  fetchHealth().then((res) => notice.show(res.ok ? res.data : null));
  state.examples = await loadExamples();
  chooser.fill(state.examples);
  if (await restoreFromHash()) return;
  const first = chooser.startProgram();
  if (first) await openProgram(first);
  else layout.setAttribute("aria-busy", "false");
}

start();

/**
 * Wiring: builds the modules, runs programs, moves the player, keeps panels in step.
 * Everything else lives in its own module; this file only connects them.
 */

import { fetchExamples, runProgram } from "./api.js";
import { download, pngBlob, svgText } from "./export.js";
import { apply as applyI18n, getLang, initLang, pick, setLang, t } from "./i18n.js";
import { GraphView } from "./graph.js";
import { Controls } from "./panels/controls.js";
import { DetailsPanel } from "./panels/details.js";
import { Editor } from "./panels/editor.js";
import { ExplainPanel } from "./panels/explain.js";
import { OutputPanels } from "./panels/output.js";
import { VarsPanel } from "./panels/vars.js";
import { Player } from "./player.js";
import { decodeShare, encodeShare, shareUrl } from "./share.js";
import { emit, on, state } from "./state.js";
import { buildTimeline } from "./timeline.js";

const $ = (sel) => document.querySelector(sel);

initLang();
applyI18n();

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
});
const explain = new ExplainPanel($("#explain"));
const details = new DetailsPanel($("#details"));
const vars = new VarsPanel($("#vars"), {
  onEdit: (name, v) => {
    state.variables = { ...state.variables, [name]: v };
    run();
  },
});
// "user-step": the user moved the timeline (keys, buttons, slider): the step explanation is wanted.
const controls = new Controls(document, player, () => emit("user-step"));
const examplesSel = $("[data-testid=examples]");
const runBtn = $("[data-testid=run]");

// ---- running ---------------------------------------------------------------------------------
let runSeq = 0;

/** Run the editor's program; resolves when the page shows the result (frame: where to stand). */
async function run(frame = 0, autofilled = false) {
  const seq = ++runSeq;
  const source = editor.value;
  state.source = source;
  state.running = true;
  runBtn.disabled = true;
  runBtn.textContent = t("running");
  document.body.classList.add("busy");
  const res = await runProgram(source, state.variables);
  if (seq !== runSeq) return; // a newer run replaced this one
  state.running = false;
  runBtn.disabled = false;
  runBtn.textContent = t("run");
  document.body.classList.remove("busy");
  if (!res.ok) {
    state.response = null;
    state.timeline = null;
    graph.load(null);
    $("[data-testid=graph]").replaceChildren(emptyNote());
    output.show(res.error, "");
    vars.build(state);
    controls.build(null);
    player.load(0);
    emit("error", res.error);
    document.body.dataset.runs = String(seq);
    return;
  }
  const resp = res.data;
  if (!autofilled && needsValues(resp)) {
    // An expression whose free names have no values yet: give each a starting value (editable
    // in the table) and run again, instead of stopping at "no value for a".
    resp.free_names.forEach((name, i) => {
      if (!state.variables[name]) state.variables[name] = { value: DEFAULTS[i % DEFAULTS.length], requires_grad: true };
    });
    return run(frame, true);
  }
  state.response = resp;
  state.ranSource = source;
  state.selected = null;
  state.hovered = null;
  if (resp.mode === "expression") {
    for (const name of resp.free_names || []) {
      const v = resp.variables[name];
      if (!state.variables[name] && v) state.variables[name] = { value: v.value, requires_grad: v.requires_grad };
    }
  }
  state.timeline = buildTimeline(resp);
  graph.load(resp);
  output.show(resp.error, resp.stdout);
  vars.build(state);
  controls.build(state.timeline);
  emit("run", resp);
  player.load(state.timeline.length, frame);
  if (resp.error) emit("error", resp.error);
  document.body.dataset.runs = String(seq); // tests and benchmarks wait on this
}

const DEFAULTS = [2.0, -3.0, 10.0, 0.5, 4.0, -1.0];

function needsValues(resp) {
  return resp.mode === "expression" && resp.error && resp.error.type === "NameError" &&
    (resp.free_names || []).some((name) => !state.variables[name]);
}

function emptyNote() {
  const p = document.createElement("p");
  p.className = "muted empty";
  p.textContent = t("graph_empty");
  return p;
}

// ---- the player moves -----------------------------------------------------------------------
player.onChange((k, prev) => {
  state.frame = k;
  if (state.timeline && state.timeline.length) graph.render(state.timeline, k, prev);
  controls.update(k);
  explain.render(state);
  details.render(state);
  vars.update(state);
  emit("frame", k, prev);
});
on("select", () => details.render(state));
on("hover", () => details.render(state));

document.addEventListener("keydown", (e) => {
  const el = e.target;
  const tag = el && el.tagName;
  if (tag === "TEXTAREA" || tag === "INPUT" || tag === "SELECT" || (el && el.isContentEditable)) return;
  if (tag === "BUTTON" && (e.key === " " || e.key === "Enter")) return; // the button's own click
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (player.key(e.key)) {
    e.preventDefault();
    emit("user-step");
  }
});

// ---- examples ----------------------------------------------------------------------------------
function fillExamples() {
  const opts = [new Option(t("examples_pick"), "")];
  for (const ex of state.examples) opts.push(new Option(pick(ex.title), ex.id));
  examplesSel.replaceChildren(...opts);
  examplesSel.value = state.exampleId || "";
}

function loadExample(id) {
  const ex = state.examples.find((x) => x.id === id);
  if (!ex) return Promise.resolve();
  state.exampleId = id;
  examplesSel.value = id;
  editor.value = ex.source;
  state.variables = JSON.parse(JSON.stringify(ex.variables || {}));
  return run();
}

examplesSel.addEventListener("change", () => loadExample(examplesSel.value));
runBtn.addEventListener("click", () => run());

// ---- language ----------------------------------------------------------------------------------
$("[data-testid=lang]").addEventListener("click", () => {
  setLang(getLang() === "en" ? "zh" : "en");
  applyI18n();
  fillExamples();
  controls.lang(state.timeline);
  vars.build(state);
  vars.update(state);
  explain.render(state);
  details.render(state);
  output.lang();
  if (!state.response) $("[data-testid=graph]").replaceChildren(emptyNote());
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

// ---- share -------------------------------------------------------------------------------------
$("[data-testid=share]").addEventListener("click", async () => {
  const data = { source: state.ranSource ?? editor.value, variables: state.variables, step: state.frame };
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
  state.variables = shared.variables;
  state.exampleId = null;
  examplesSel.value = "";
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
  return res.ok && Array.isArray(res.data) ? res.data : [];
}

async function start() {
  state.examples = await loadExamples();
  fillExamples();
  if (await restoreFromHash()) return;
  if (state.examples.length) await loadExample(state.examples[0].id);
}

// For tests, benchmarks and later panels (a training view): the live modules.
window.gradviz = Object.assign(window.gradviz || {}, { state, player, graph, run, on, loadExample });
start();

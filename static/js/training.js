/**
 * The training view: loss curve (and accuracy), an iteration chooser that moves the graph and
 * the step player to that iteration, gradient norms pass by pass (accumulation, zero_grad),
 * the optimizer's update of each parameter, and the decision boundary as training goes.
 * It also mounts the MLP builder form and the module/op level toggle of the graph. The optimizer
 * step and accumulation are drawn by training_update.js, the boundary by training_boundary.js.
 *
 * Plugs into the page through state.js's bus only: it listens to "run-start", "run", "run-end",
 * "frame", "error", "lang", "mlp-build", "share", "shared" and "relayout", and asks the player to
 * move with "goto".
 */

import { fetchMlpProgram } from "./api.js";
import { sizedChart } from "./chart_size.js";
import { PALETTE, lineChart } from "./charts.js";
import { h } from "./dom.js";
import { errorBody } from "./errors.js";
import { STYLES, num } from "./format.js";
import { apply, t } from "./i18n.js";
import { icon, setIcon } from "./icons.js";
import { limitPhrase } from "./limits.js";
import { MlpBuilder } from "./mlp_builder.js";
import { emit, on, state } from "./state.js";
import {
  accuracySeries,
  forgotZeroGrad,
  frameOfPass,
  isTraining,
  keptIterations,
  order,
  paramSeries,
  passAtFrame,
} from "./training_model.js";
import { boundaryForSelection, fetchBoundaryFor, playBoundary, showBoundary, stopBoundary } from "./training_boundary.js";
import { showAccumulation, showOptimizer } from "./training_update.js";
import { FoldToggle } from "./fold.js";
import { RightTabs } from "./tabs.js";

class TrainingView {
  constructor(host) {
    this.host = host;
    this.resp = null;
    this.sel = null; // chosen pass index
    this.boundary = null;
    this.bIndex = 0;
    this.bTimer = null;
    this.build = null; // {config, program} of the last Build
    this.progressTimer = null;
    this._render();
  }

  _render() {
    this.progress = h("div", { class: "train-progress", "data-testid": "train-progress", role: "status", "aria-live": "polite", hidden: true },
      h("span", { class: "spinner", "aria-hidden": "true" }), h("span", { class: "txt" }));
    this.summary = h("p", { class: "train-summary", "data-testid": "train-summary" });
    this.lossBox = h("div", { class: "chart-box", "data-testid": "loss-curve" });
    this.range = h("input", { type: "range", min: 1, max: 1, value: 1, "data-testid": "iteration", "aria-labelledby": "tr-iter-label" });
    this.iterLabel = h("output", { class: "iter-label", "data-testid": "iteration-label" });
    this.chips = h("div", { class: "iter-chips", "data-testid": "iteration-chips" });
    this.iterNote = h("p", { class: "hint iter-note" });
    this.gradBox = h("div", { class: "chart-box", "data-testid": "grad-chart" });
    this.gradNote = h("p", { class: "warn", "data-testid": "zero-grad-note", hidden: true });
    this.accum = h("div", { class: "accum", "data-testid": "accumulation" });
    this.opt = h("div", { class: "optstep", "data-testid": "optimizer-step" });
    this.canvas = h("canvas", { width: 320, height: 320, "data-testid": "boundary", class: "boundary", role: "img" });
    this.bRange = h("input", { type: "range", min: 0, max: 0, value: 0, "data-testid": "boundary-frame" });
    this.bPlay = h("button", { type: "button", class: "small", "data-testid": "boundary-play", "data-i18n-title": "tr_play",
      title: t("tr_play"), "aria-label": t("tr_play") });
    setIcon(this.bPlay, "play");
    this.failure = h("div", { class: "train-failure", "data-testid": "train-failure", role: "alert", hidden: true });
    this.bLabel = h("span", { class: "b-label", "data-testid": "boundary-label" });
    this.bFig = h("figure", { class: "boundary-fig", hidden: true },
      h("figcaption", { "data-i18n": "tr_boundary" }, t("tr_boundary")),
      this.canvas, h("div", { class: "b-controls" }, this.bPlay, this.bRange), this.bLabel);

    this.section = h("div", { class: "training", "data-testid": "training", hidden: true },
      this.progress, this.failure, this.summary,
      h("h3", { "data-i18n": "tr_loss_curve" }, t("tr_loss_curve")), this.lossBox,
      h("div", { class: "iter-row" },
        h("label", { id: "tr-iter-label", "data-i18n": "tr_iteration" }, t("tr_iteration")), this.range, this.iterLabel),
      h("div", { class: "iter-kept" }, h("span", { "data-i18n": "tr_kept" }, t("tr_kept")), this.chips),
      this.iterNote,
      h("div", { class: "train-cols" },
        h("div", {},
          h("h3", { "data-i18n": "tr_opt_title" }, t("tr_opt_title")), this.opt,
          h("h3", { "data-i18n": "tr_accum_title" }, t("tr_accum_title")), this.accum),
        this.bFig),
      h("h3", { "data-i18n": "tr_grad_chart" }, t("tr_grad_chart")), this.gradNote, this.gradBox);
    this.host.appendChild(this.section);

    this.range.addEventListener("input", () => this.choose(Number(this.range.value) - 1, true));
    this.bRange.addEventListener("input", () => {
      stopBoundary(this); // the user's choice wins over the playback
      showBoundary(this, Number(this.bRange.value));
    });
    this.bPlay.addEventListener("click", () => (this.bTimer ? stopBoundary(this) : playBoundary(this)));
  }

  // ---- progress while a run is pending ------------------------------------------------------
  startProgress() {
    this.stopProgress();
    const t0 = performance.now();
    this.section.hidden = false;
    this.progress.hidden = false;
    const tickFn = () => {
      this.progress.querySelector(".txt").textContent = t("tr_running", { s: num((performance.now() - t0) / 1000, "tenths") });
    };
    tickFn();
    this.progressTimer = setInterval(tickFn, 100);
  }

  stopProgress() {
    if (this.progressTimer) clearInterval(this.progressTimer);
    this.progressTimer = null;
    this.progress.hidden = true;
  }

  // ---- a new run ------------------------------------------------------------------------------
  load(resp) {
    this.stopProgress();
    stopBoundary(this);
    if (!isTraining(resp)) {
      this.resp = null;
      this.section.hidden = true;
      return;
    }
    this.resp = resp;
    this.ord = order(resp);
    this.series = paramSeries(resp);
    this.kept = keptIterations(resp);
    this.n = resp.iterations.length;
    this.section.hidden = false;
    this.range.max = Math.max(1, this.n);
    this.chips.replaceChildren(...this.kept.map((it) =>
      h("button", { type: "button", class: "chip", "data-testid": `iter-${it.pass + 1}`, "data-pass": it.pass,
        onclick: () => this.choose(it.pass, true) }, String(it.pass + 1))));
    this.sel = this.kept.length ? this.kept[0].pass : 0;
    fetchBoundaryFor(this);
    this.renderAll();
  }

  /** A Build whose run failed: say why, in words and in view (the rest of the view is hidden). */
  showFailure(error) {
    this.stopProgress();
    const limit = /\(limit: ([a-z_]+)\)/.exec(error.message || "");
    const text = error.type === "TimeoutError" || (limit && limit[1] === "timeout_s")
      ? t("mlp_fail_timeout", { limit: limitPhrase("timeout_s") })
      : t("mlp_fail_run", { type: error.type });
    this.failure.replaceChildren(h("p", { class: "fail-head" }, text),
      h("div", { class: "fail-detail" }, ...errorBody(error, { pre: false })));
    this.failure.hidden = false;
    this.failedError = error;
    this.section.hidden = false;
    this.section.dataset.failed = "true";
    return text;
  }

  clearFailure() {
    this.failure.hidden = true;
    this.failedError = null;
    delete this.section.dataset.failed;
  }

  renderAll() {
    if (!this.resp) return;
    this._summary();
    this._lossChart();
    this._gradChart();
    this._selection();
  }

  _summary() {
    const its = this.resp.iterations;
    const last = its.length ? its[its.length - 1].loss : null;
    const acc = accuracySeries(this.boundary);
    this.summary.textContent = acc.length
      ? t("tr_summary_acc", { n: its.length, loss: num(last, "digits"), acc: num(acc[acc.length - 1].accuracy, "percent") })
      : t("tr_summary", { n: its.length, loss: num(last, "digits") });
  }

  _lossChart() {
    const losses = this.resp.iterations.map((it) => (it.loss === null ? null : Number(it.loss)));
    const series = [{ label: "loss", values: losses, color: PALETTE[0] }];
    const acc = accuracySeries(this.boundary);
    const nSteps = Math.max(1, this.resp.optimizer_steps.length ? this._stepCount() : this.n);
    if (acc.length) {
      const per = this.n / nSteps;
      series.push({ label: t("tr_accuracy"), axis: "right", color: PALETTE[2], cls: "acc",
        values: [], points: acc.map((a) => [Math.max(0, Math.min(this.n - 1, a.step * per - 1)), a.accuracy]) });
    }
    const opts = {
      n: this.n, marker: this.sel, dots: this.kept.map((k) => k.pass), title: t("tr_loss_curve"),
      xLabel: t("tr_iteration"), right: acc.length ? { lo: 0, hi: 1, format: (x) => num(x, { ...STYLES.percent, decimals: 0 }) } : null,
      onPick: (i) => this.choose(i, true),
    };
    const legend = h("div", { class: "chart-legend" },
      h("span", { class: "key", style: `--c:${PALETTE[0]}` }, t("tr_loss")),
      acc.length ? h("span", { class: "key", style: `--c:${PALETTE[2]}` }, t("tr_accuracy")) : null);
    this.lossBox.replaceChildren(legend);
    sizedChart(this.lossBox, (size) => lineChart(series, { ...opts, ...size }));
  }

  _stepCount() {
    // Steps in the whole run: the boundary knows (its last frame is the final step); else passes.
    if (this.boundary && this.boundary.frames && this.boundary.frames.length) {
      return this.boundary.frames[this.boundary.frames.length - 1].step;
    }
    const groupSize = this.ord.group.get(this.kept.length ? this.kept[0].pass : 0)?.length || 1;
    return Math.max(1, Math.round(this.n / groupSize));
  }

  _gradChart() {
    const series = this.series.map((s, i) => ({ label: s.label, values: s.grad, color: PALETTE[i % PALETTE.length] }));
    const opts = {
      n: this.n, marker: this.sel, title: t("tr_grad_chart"), xLabel: t("tr_iteration"),
      scale: { log: "auto", logRatio: 30, zero: true }, onPick: (i) => this.choose(i, true),
    };
    const legend = h("div", { class: "chart-legend" },
      this.series.map((s, i) => h("span", { class: "key", style: `--c:${PALETTE[i % PALETTE.length]}` }, s.label)));
    this.gradBox.replaceChildren(legend);
    sizedChart(this.gradBox, (size) => lineChart(series, { ...opts, ...size }));
    const forgot = forgotZeroGrad(this.resp, this.ord, this.series);
    this.gradNote.hidden = !forgot;
    this.gradNote.textContent = forgot ? t("tr_no_zero_grad") : "";
  }

  /** Choose iteration `pass` (0-based); move the player there when its graph was kept. */
  choose(pass, movePlayer) {
    if (!this.resp) return;
    this.sel = Math.max(0, Math.min(this.n - 1, pass));
    if (movePlayer) {
      const k = frameOfPass(state.timeline, this.sel);
      if (k >= 0) emit("goto", k);
    }
    this._lossChart();
    this._gradChart();
    this._selection();
  }

  _selection() {
    const it = this.resp.iterations[this.sel];
    if (!it) return;
    this.range.value = this.sel + 1;
    this.iterLabel.textContent = `${t("tr_iteration_of", { i: this.sel + 1, n: this.n })} · ${t("tr_loss_is", { loss: num(it.loss, "digits") })}`;
    for (const c of this.chips.children) c.classList.toggle("on", Number(c.dataset.pass) === this.sel);
    const kept = it.view !== null && it.view !== undefined;
    this.iterNote.textContent = kept ? t("tr_inspect") : t("tr_not_kept");
    this.iterNote.dataset.kept = String(kept);
    showOptimizer(this);
    showAccumulation(this);
    boundaryForSelection(this);
  }

  _chooseParam(i) {
    this.paramSel = i;
    showOptimizer(this);
    showAccumulation(this);
  }

  onFrame(k) {
    if (!this.resp || !state.timeline) return;
    const p = passAtFrame(state.timeline, k);
    if (p === null || p === this.sel) return;
    this.sel = p;
    this._lossChart();
    this._gradChart();
    this._selection();
  }

  lang() {
    apply(this.section);
    if (this.resp) this.renderAll();
    if (this.boundary) showBoundary(this, this.bIndex);
  }
}

// ---- mount -----------------------------------------------------------------------------------------
function mount() {
  const left = document.querySelector("#mlp-panel");
  const right = document.querySelector("#training-panel") || document.querySelector("#extra-panels");
  if (!left || !right) return;
  const builderBody = h("div", { class: "mlp-body" });
  left.replaceChildren(
    h("details", { class: "panel mlp-panel", "data-testid": "mlp-panel" },
      h("summary", {}, icon("open"), h("h2", { "data-i18n": "mlp_title" }, t("mlp_title"))),
      h("p", { class: "hint", "data-i18n": "mlp_intro" }, t("mlp_intro")),
      builderBody));
  const builder = new MlpBuilder(builderBody);
  const panel = h("div", { class: "panel training-panel" }, h("h2", { "data-i18n": "tr_title" }, t("tr_title")));
  right.prepend(panel);
  const view = new TrainingView(panel);
  panel.hidden = true;
  // On a wide screen the right column shows the step explanation or this view (tabs.js).
  const tabs = new RightTabs(document.querySelector("#right-col"), document.querySelector("[data-testid=right-tabs]"));
  const showPanel = () => {
    panel.hidden = view.section.hidden;
    tabs.available(!panel.hidden);
  };
  const fold = new FoldToggle(document.querySelector(".graph-tools"));
  const parts = { left, panel, view, builder, tabs, fold, showPanel };
  listenForRuns(parts);
  listenForPage(parts);
}

/** The view follows the runs: a Build's progress and failure, a training run's results. */
function listenForRuns({ panel, view, builder, tabs, fold, showPanel }) {
  const stacked = window.matchMedia("(max-width: 1000px)");
  let building = false; // a Build's run is under way

  on("mlp-build", (b) => {
    view.build = b;
    building = true;
    view.clearFailure();
    view.startProgress();
    showPanel();
    tabs.select("training"); // the progress of the run is shown there
    // Stacked (a phone): the results appear far below the form; go where they will be.
    if (stacked.matches) panel.scrollIntoView({ block: "start" });
  });
  // Any run while a training view is shown (an edited loop): show progress too.
  on("run-start", () => {
    if (view.resp && !view.progressTimer) view.startProgress();
  });
  on("run", (resp, how) => {
    if (view.build && state.ranSource !== view.build.program.source && !sameShape(state.ranSource, view.build)) view.build = null;
    view.clearFailure();
    view.load(resp);
    showPanel();
    // A training run opens on what training did (a level change or a shared step keeps the tab).
    // An example that opens a course view is about its steps: it opens on the step explanation.
    const course = (state.examples || []).some((e) => e.lens && e.source === state.ranSource);
    if (view.resp && how.frame === null) tabs.select(course ? "step" : "training");
    fold.load(resp);
  });
  on("run-end", ({ ok, error }) => {
    if (building && !ok) {
      const text = view.showFailure(error);
      builder.failed(text);
      showPanel();
      tabs.select("training");
      view.failure.scrollIntoView({ block: "nearest" });
    } else if (building && stacked.matches) {
      panel.scrollIntoView({ block: "start" }); // the page above it changed height meanwhile
    }
    building = false;
  });
  on("error", () => {
    view.stopProgress();
    if (!view.resp && view.failure.hidden) view.section.hidden = true;
    showPanel();
  });
}

/** The view follows the rest of the page: the graph level, the player, the language, share links. */
function listenForPage({ left, view, builder, tabs, fold }) {
  on("relayout", (resp) => fold.load(resp));
  on("user-step", () => tabs.select("step"));
  on("frame", (k) => view.onFrame(k));
  on("lang", () => {
    apply(left);
    builder.relabel();
    view.lang();
    fold.lang();
    if (view.failedError) builder.failed(view.showFailure(view.failedError));
  });
  // A share link of a built network carries the form's settings: the boundary comes back with it.
  on("share", (extra) => {
    if (view.build && view.resp) extra.mlp = view.build.config;
  });
  on("shared", (extra, waits) => {
    if (!extra.mlp) return;
    waits.push(fetchMlpProgram(extra.mlp).then((res) => {
      if (res.ok) view.build = { config: extra.mlp, program: res.data };
    }));
  });
}

/** An edited program still built from the form (the boundary checks the parameters' shapes). */
function sameShape(source, build) {
  return typeof source === "string" && source.includes("nn.Linear(") && build.program.task === "classification";
}

mount();

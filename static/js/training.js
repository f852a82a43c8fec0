/**
 * The training view: loss curve (and accuracy), an iteration chooser that moves the graph and
 * the step player to that iteration, gradient norms pass by pass (accumulation, zero_grad),
 * the optimizer's update of each parameter, and the decision boundary as training goes.
 * It also mounts the MLP builder form and the module/op level toggle of the graph.
 *
 * Plugs into the page through state.js's bus only: it listens to "run-start", "run", "run-end",
 * "frame", "error", "lang", "mlp-build", "share", "shared" and "relayout", and asks the player to
 * move with "goto".
 */

import { fetchBoundary, fetchMlpProgram } from "./api.js";
import { drawBoundary } from "./boundary.js";
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
  frameForPass,
  frameOfPass,
  headOf,
  isTraining,
  keptIterations,
  normOf,
  order,
  paramSeries,
  passAtFrame,
  workedUpdate,
} from "./training_model.js";
import { FoldToggle } from "./fold.js";
import { RightTabs } from "./tabs.js";

const fmt = (x, sig = 4) => num(x, { ...STYLES.digits, sig });
const pct = (x) => num(x, "percent");

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
      this._stopBoundary(); // the user's choice wins over the playback
      this._showBoundary(Number(this.bRange.value));
    });
    this.bPlay.addEventListener("click", () => (this.bTimer ? this._stopBoundary() : this._playBoundary()));
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
    this._stopBoundary();
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
    this._fetchBoundary();
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
      ? t("tr_summary_acc", { n: its.length, loss: fmt(last), acc: pct(acc[acc.length - 1].accuracy) })
      : t("tr_summary", { n: its.length, loss: fmt(last) });
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
    const chart = lineChart(series, {
      n: this.n, marker: this.sel, dots: this.kept.map((k) => k.pass), title: t("tr_loss_curve"),
      xLabel: t("tr_iteration"), right: acc.length ? { lo: 0, hi: 1, format: (x) => num(x, { ...STYLES.percent, decimals: 0 }) } : null,
      onPick: (i) => this.choose(i, true),
    });
    const legend = h("div", { class: "chart-legend" },
      h("span", { class: "key", style: `--c:${PALETTE[0]}` }, t("tr_loss")),
      acc.length ? h("span", { class: "key", style: `--c:${PALETTE[2]}` }, t("tr_accuracy")) : null);
    this.lossBox.replaceChildren(chart, legend);
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
    const chart = lineChart(series, {
      n: this.n, marker: this.sel, title: t("tr_grad_chart"), xLabel: t("tr_iteration"),
      scale: { log: "auto", logRatio: 30, zero: true }, onPick: (i) => this.choose(i, true),
    });
    const legend = h("div", { class: "chart-legend" },
      this.series.map((s, i) => h("span", { class: "key", style: `--c:${PALETTE[i % PALETTE.length]}` }, s.label)));
    this.gradBox.replaceChildren(chart, legend);
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
    this.iterLabel.textContent = `${t("tr_iteration_of", { i: this.sel + 1, n: this.n })} · ${t("tr_loss_is", { loss: fmt(it.loss) })}`;
    for (const c of this.chips.children) c.classList.toggle("on", Number(c.dataset.pass) === this.sel);
    const kept = it.view !== null && it.view !== undefined;
    this.iterNote.textContent = kept ? t("tr_inspect") : t("tr_not_kept");
    this.iterNote.dataset.kept = String(kept);
    this._optimizer();
    this._accumulation();
    this._boundaryForSelection();
  }

  _optimizer() {
    const j = this.ord.stepOfPass.get(this.sel);
    const step = this.resp.optimizer_steps.find((s) => s.index === j);
    if (!step) {
      this.opt.replaceChildren(h("p", { class: "muted" }, t("tr_opt_none")));
      return;
    }
    const labels = this.series.map((s) => s.label);
    const name = (p, i) => p.name || labels[i] || `#${i + 1}`;
    const ps = Math.min(this.paramSel || 0, step.params.length - 1);
    // One compact row per parameter (norms); the chosen one's numbers below, with a worked update.
    const rows = step.params.map((p, i) => h("tr", {
      "data-param": i, class: i === ps ? "on" : "", tabindex: 0,
      onclick: () => this._chooseParam(i),
      onkeydown: (e) => {
        if (e.key === "Enter") this._chooseParam(i);
      },
    },
    h("th", { scope: "row" }, name(p, i), h("small", {}, ` [${(p.before?.shape || []).join(", ")}]`)),
    h("td", {}, h("code", {}, `${fmt(normOf(p.before), 3)} → ${fmt(normOf(p.after), 3)}`)),
    h("td", {}, h("code", {}, fmt(normOf(p.grad), 3)))));
    const chosen = step.params[ps];
    const list = (v) => {
      const xs = headOf(v, 4).map((x) => fmt(x));
      return `[${xs.join(", ")}${headOf(v).length > 4 || (v && v.summary) ? ", …" : ""}]`;
    };
    const w = chosen ? workedUpdate(step, chosen) : null;
    let worked = null;
    if (w && w.before !== undefined) {
      const key = step.optimizer.startsWith("Adam") ? "tr_worked_adam" : "tr_worked_other";
      worked = w.lr !== null
        ? t("tr_worked", { p: fmt(w.before, 6), lr: w.lr, g: fmt(w.grad, 6), a: fmt(w.after, 6) })
        : t(key, { p: fmt(w.before, 6), a: fmt(w.after, 6) });
    }
    this.opt.replaceChildren(
      h("p", { class: "rule" }, h("code", { "data-testid": "optimizer-rule" }, `${step.optimizer}: ${step.rule}`)),
      h("div", { class: "table-wrap" }, h("table", { class: "params" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, t("tr_param")),
          h("th", { scope: "col" }, `‖p‖ ${t("tr_before")} → ${t("tr_after")}`),
          h("th", { scope: "col" }, `‖${t("tr_grad")}‖`))),
        h("tbody", {}, rows))),
      chosen ? h("dl", { class: "pvals", "data-testid": "param-values" },
        h("dt", {}, `${name(chosen, ps)} ${t("tr_before")}`), h("dd", {}, h("code", {}, list(chosen.before))),
        h("dt", {}, `${t("tr_grad")}`), h("dd", {}, h("code", {}, list(chosen.grad))),
        h("dt", {}, `${t("tr_after")}`), h("dd", {}, h("code", {}, list(chosen.after)))) : null,
      worked ? h("p", { class: "worked", "data-testid": "worked-update" }, worked) : null);
  }

  _chooseParam(i) {
    this.paramSel = i;
    this._optimizer();
    this._accumulation();
  }

  _accumulation() {
    const group = this.ord.group.get(this.sel) || [this.sel];
    // The parameter chosen in the optimizer table (matched by name), else the first one.
    const j = this.ord.stepOfPass.get(this.sel);
    const step = this.resp.optimizer_steps.find((q) => q.index === j);
    const chosen = step && step.params[Math.min(this.paramSel || 0, step.params.length - 1)];
    const s = this.series.find((q) => chosen && q.label === chosen.name) || this.series[0];
    if (!s) {
      this.accum.replaceChildren();
      return;
    }
    const items = group.map((p, k) =>
      h("li", { class: p === this.sel ? "cur" : "" }, `${t("tr_accum_pass", { k: k + 1 })}: ‖${s.label}.grad‖ = ${fmt(s.grad[p])}`));
    const hasStep = this.ord.stepOfPass.has(this.sel);
    if (hasStep) items.push(h("li", { class: "used" }, `→ ${t("tr_accum_used")}`));
    const next = group[group.length - 1] + 1;
    if (hasStep && next < this.n) {
      items.push(h("li", { class: "reset" }, this.ord.zeroBefore.has(next) ? `→ ${t("tr_accum_reset")}` : `→ ${t("tr_accum_kept")}`));
    }
    this.accum.replaceChildren(h("ol", {}, items));
  }

  // ---- the decision boundary --------------------------------------------------------------------
  async _fetchBoundary() {
    const b = this.build;
    const source = state.ranSource ?? (b ? b.program.source : null);
    // The same program again (e.g. drawn at another graph level): the frames are the same.
    if (this.boundary && b && source === this.boundarySource) {
      this.bFig.hidden = false;
      return;
    }
    this.boundary = null;
    this.boundarySource = null;
    this.bFig.hidden = true;
    if (!b || b.program.task !== "classification" || b.program.input_size !== 2) return;
    const seq = (this.bSeq = (this.bSeq || 0) + 1);
    this.bFig.hidden = false;
    this.bLabel.textContent = t("tr_boundary_loading");
    const res = await fetchBoundary({ config: b.config, source, grid: 40, frames: 24 });
    const data = res.ok ? res.data : null;
    if (seq !== this.bSeq) return;
    if (!data || !data.frames || !data.frames.length) {
      this.bFig.hidden = true;
      return;
    }
    this.boundary = data;
    this.boundarySource = source;
    this.bRange.max = data.frames.length - 1;
    this._summary();
    this._lossChart();
    this._boundaryForSelection();
    this._playBoundary(); // show training at work once, then stop on the chosen iteration
  }

  _boundaryForSelection() {
    if (!this.boundary || this.bTimer) return;
    const i = frameForPass(this.boundary, this.ord.stepOfPass, this.sel, this.n, this._stepCount());
    if (i >= 0) this._showBoundary(i);
  }

  _showBoundary(i) {
    const data = this.boundary;
    if (!data) return;
    this.bIndex = i;
    this.bRange.value = i;
    drawBoundary(this.canvas, data, i);
    const f = data.frames[i];
    this.bLabel.textContent = t("tr_boundary_step", { s: f.step, acc: pct(f.accuracy) });
    this.canvas.setAttribute("aria-label", `${t("tr_boundary")}: ${this.bLabel.textContent}`);
    this.canvas.dataset.step = String(f.step);
  }

  _playBoundary() {
    if (!this.boundary) return;
    this._stopBoundary();
    let i = 0;
    setIcon(this.bPlay, "pause");
    this.bPlay.dataset.i18nTitle = "tr_pause";
    this.bPlay.title = t("tr_pause");
    this.bPlay.setAttribute("aria-label", t("tr_pause"));
    const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (reduce) {
      this._showBoundary(this.boundary.frames.length - 1);
      this._stopBoundary();
      return;
    }
    const next = () => {
      this._showBoundary(i);
      i += 1;
      if (i >= this.boundary.frames.length) {
        this._stopBoundary();
        return;
      }
      this.bTimer = setTimeout(next, 120);
    };
    this.bTimer = setTimeout(next, 0);
  }

  _stopBoundary() {
    if (this.bTimer) clearTimeout(this.bTimer);
    this.bTimer = null;
    setIcon(this.bPlay, "play");
    this.bPlay.dataset.i18nTitle = "tr_play";
    this.bPlay.title = t("tr_play");
    this.bPlay.setAttribute("aria-label", t("tr_play"));
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
    if (this.boundary) this._showBoundary(this.bIndex);
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
  on("relayout", (resp) => fold.load(resp));
  on("user-step", () => tabs.select("step"));
  on("error", () => {
    view.stopProgress();
    if (!view.resp && view.failure.hidden) view.section.hidden = true;
    showPanel();
  });
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

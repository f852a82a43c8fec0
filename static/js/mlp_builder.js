/**
 * The MLP builder form. Build asks the server for the equivalent PyTorch-style program
 * (POST /api/mlp/program), writes it into the editor and presses Run, so the learner sees
 * the code behind the form and can edit it. The training view (training.js) takes over
 * when the run's response arrives.
 *
 * The form's bounds are the server's (GET /api/limits): each number field gets its min and max,
 * and the steps field the most steps the server accepts for the chosen network; a value out of
 * bounds is named before anything is sent.
 *
 * It plugs into the page through the DOM hooks every user has: the editor
 * (data-testid="source") and the Run button (data-testid="run").
 */

import { fetchMlpProgram } from "./api.js";
import { h } from "./dom.js";
import { errorTexts } from "./errors.js";
import { apply, getLang, t } from "./i18n.js";
import { fieldRange, limitPhrase, load as loadLimits, maxSteps, maxStepsLimit } from "./limits.js";
import { emit } from "./state.js";

/** Per data set: input size, output size per loss, sensible defaults. */
const DATASETS = {
  linear: { input: 1, classes: 0, loss: "mse", hidden: "", optimizer: "sgd", lr: 0.1, steps: 100, points: 100 },
  xor: { input: 2, classes: 2, loss: "cross_entropy", hidden: "8", optimizer: "adam", lr: 0.05, steps: 300, points: 200 },
  moons: { input: 2, classes: 2, loss: "cross_entropy", hidden: "16, 16", optimizer: "adam", lr: 0.01, steps: 500, points: 200 },
  circles: { input: 2, classes: 2, loss: "cross_entropy", hidden: "16, 16", optimizer: "adam", lr: 0.02, steps: 500, points: 200 },
  blobs: { input: 2, classes: 3, loss: "cross_entropy", hidden: "8", optimizer: "adam", lr: 0.02, steps: 300, points: 200 },
};

/** The output size a loss needs for k classes (0: regression). */
export function outputSize(loss, classes) {
  if (classes === 0) return 1;
  if (loss === "bce") return 1;
  return classes;
}

/** A labelled field; hint: a string key, or true for a hint the form writes itself (the steps' most). */
function field(key, input, hint) {
  let small = null;
  if (hint === true) small = h("small", { class: "mlp-hint" });
  else if (hint) small = h("small", { class: "mlp-hint", "data-i18n": hint }, t(hint));
  return h("label", { class: "mlp-field", "data-field": key },
    h("span", { class: "mlp-label", "data-i18n": `mlp_${key}` }, t(`mlp_${key}`)), input, small);
}

function select(name, options) {
  return h(
    "select",
    { name, "data-testid": `mlp-${name}` },
    options.map(([value, key]) => h("option", { value, "data-i18n": key }, t(key))),
  );
}

function number(name, value, attrs = {}) {
  return h("input", { type: "number", name, value, "data-testid": `mlp-${name}`, ...attrs });
}

export class MlpBuilder {
  /** host: the element the form goes in. */
  constructor(host) {
    this.host = host;
    this.form = this._render();
    host.replaceChildren(this.form);
    this.form.elements.dataset.value = "moons";
    this._applyDataset("moons");
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.build();
    });
    this.form.elements.dataset.addEventListener("change", () => this._applyDataset(this.form.elements.dataset.value));
    this.form.elements.loss.addEventListener("change", () => this._syncOutput());
    this.form.elements.classes.addEventListener("change", () => this._syncOutput());
    this.form.elements.optimizer.addEventListener("change", () => this._syncOptimizer());
    for (const name of ["hidden", "accumulate"]) this.form.elements[name].addEventListener("input", () => this._syncSteps());
    loadLimits().then(() => this._applyLimits());
  }

  /** Each number field's min and max as the server checks them. */
  _applyLimits() {
    for (const el of this.form.querySelectorAll("input[type=number]")) {
      const r = fieldRange(el.name);
      if (!r) continue;
      if (r.min !== null) el.min = String(r.min);
      if (r.max !== null) el.max = String(r.max_open ? r.max - 0.001 : r.max);
    }
    this._syncSteps();
  }

  /** Hidden layers as the form holds them (null when the text is not a list of numbers). */
  _layers() {
    const text = this.form.elements.hidden.value.trim();
    if (!text) return 0;
    const parts = text.split(/[,;]/).map((x) => x.trim()).filter(Boolean);
    return parts.every((x) => /^\d+$/.test(x)) ? parts.length : null;
  }

  /** The steps field's max and hint for the network chosen (the server's table). */
  _syncSteps() {
    const el = this.form.elements;
    const layers = this._layers();
    const most = maxSteps(layers ?? 0, Number(el.accumulate.value) || 1);
    const hint = this.form.querySelector('[data-field="steps"] .mlp-hint');
    if (most === null) {
      hint.textContent = "";
      return;
    }
    el.steps.max = String(most);
    hint.textContent = t("mlp_steps_max", { n: most });
  }

  /** A message for the first field whose value the server would refuse, or null. */
  check() {
    for (const el of this.form.querySelectorAll("input[type=number]")) {
      if (el.closest("[hidden]") || (el.value === "" && el.name === "batch_size")) continue;
      const v = Number(el.value);
      const r = fieldRange(el.name);
      const label = t(`mlp_${el.name}`);
      if (el.value === "" || !Number.isFinite(v)) return { el, text: t("mlp_fail_number", { field: label }) };
      if (!r) continue;
      const low = r.min !== null && (r.min_open ? v <= r.min : v < r.min);
      const high = r.max !== null && (r.max_open ? v >= r.max : v > r.max);
      if (low || high) return { el, text: t("mlp_fail_range", { field: label, min: r.min, max: r.max }) };
    }
    const layers = this._layers();
    const k = Number(this.form.elements.accumulate.value) || 1;
    const most = layers === null ? null : maxSteps(layers, k);
    if (most !== null && Number(this.form.elements.steps.value) > most) {
      return { el: this.form.elements.steps,
        text: t("mlp_fail_steps", { n: most, limit: limitPhrase(maxStepsLimit(layers, k)) }) };
    }
    return null;
  }

  /** The run of a Build failed: say so next to the Build button too. */
  failed(text) {
    this._status(text, "error");
  }

  _render() {
    const f = h(
      "form",
      { class: "mlp-form", "data-testid": "mlp-builder", novalidate: true },
      h("div", { class: "mlp-grid" },
        field("dataset", select("dataset", [
          ["linear", "mlp_ds_linear"], ["xor", "mlp_ds_xor"], ["moons", "mlp_ds_moons"],
          ["circles", "mlp_ds_circles"], ["blobs", "mlp_ds_blobs"],
        ])),
        field("classes", number("classes", 3, { min: 2, max: 8 })),
        field("n_points", number("n_points", 200, { min: 4, max: 2000 })),
        field("input_size", number("input_size", 2, { min: 1, max: 64 })),
        field("hidden", h("input", { type: "text", name: "hidden", value: "16, 16", "data-testid": "mlp-hidden",
          spellcheck: "false", autocomplete: "off" }), "mlp_hidden_hint"),
        field("activation", select("activation", [["relu", "mlp_relu"], ["tanh", "mlp_tanh"], ["sigmoid", "mlp_sigmoid"]])),
        field("output_size", number("output_size", 2, { min: 1, max: 64 })),
        field("loss", select("loss", [["cross_entropy", "mlp_loss_ce"], ["mse", "mlp_loss_mse"], ["bce", "mlp_loss_bce"]])),
        field("batch_size", number("batch_size", "", { min: 1, max: 2000, placeholder: t("mlp_batch_all"), "data-i18n-placeholder": "mlp_batch_all" }), "mlp_batch_hint"),
        field("accumulate", number("accumulate", 1, { min: 1, max: 16 }), "mlp_accumulate_hint"),
        field("optimizer", select("optimizer", [["adam", "mlp_adam"], ["sgd", "mlp_sgd"]])),
        field("lr", number("lr", 0.01, { min: 0, max: 10, step: "any" })),
        field("momentum", number("momentum", 0, { min: 0, max: 0.999, step: "any" })),
        field("steps", number("steps", 500, { min: 1 }), true),
        field("seed", number("seed", 0, { min: 0 })),
        field("style", select("style", [["module", "mlp_style_module"], ["sequential", "mlp_style_sequential"]])),
      ),
      h("label", { class: "mlp-check" },
        h("input", { type: "checkbox", name: "zero_grad", checked: true, "data-testid": "mlp-zero_grad" }),
        h("span", { "data-i18n": "mlp_zero_grad" }, t("mlp_zero_grad"))),
      h("div", { class: "mlp-actions" },
        h("button", { type: "submit", class: "primary", "data-testid": "build", "data-i18n": "mlp_build" }, t("mlp_build")),
        h("span", { class: "mlp-status", "data-testid": "mlp-status", role: "status", "aria-live": "polite" })),
    );
    return f;
  }

  _applyDataset(name) {
    const d = DATASETS[name];
    const el = this.form.elements;
    el.input_size.value = d.input;
    el.loss.value = d.loss;
    el.hidden.value = d.hidden;
    el.optimizer.value = d.optimizer;
    el.lr.value = d.lr;
    el.steps.value = d.steps;
    el.n_points.value = d.points;
    if (name !== "blobs") el.classes.value = d.classes || 2;
    else el.classes.value = 3;
    this.form.querySelector('[data-field="classes"]').hidden = name !== "blobs";
    for (const opt of el.loss.options) opt.disabled = name === "linear" ? opt.value !== "mse" : false;
    this._syncOutput();
    this._syncOptimizer();
  }

  _classes() {
    const el = this.form.elements;
    if (el.dataset.value === "linear") return 0;
    return el.dataset.value === "blobs" ? Number(el.classes.value) || 3 : 2;
  }

  _syncOutput() {
    const el = this.form.elements;
    el.output_size.value = outputSize(el.loss.value, this._classes());
  }

  _syncOptimizer() {
    const el = this.form.elements;
    this.form.querySelector('[data-field="momentum"]').hidden = el.optimizer.value !== "sgd";
  }

  /** The form as an MlpConfig (app/schemas/mlp.py). */
  config() {
    const el = this.form.elements;
    const num = (x) => Number(x.value);
    const cfg = {
      dataset: el.dataset.value,
      n_points: num(el.n_points),
      classes: num(el.classes),
      input_size: num(el.input_size),
      hidden: el.hidden.value,
      activation: el.activation.value,
      output_size: num(el.output_size),
      loss: el.loss.value,
      batch_size: el.batch_size.value === "" ? null : num(el.batch_size),
      accumulate: num(el.accumulate) || 1,
      optimizer: el.optimizer.value,
      lr: num(el.lr),
      momentum: el.optimizer.value === "sgd" ? num(el.momentum) || 0 : 0,
      steps: num(el.steps),
      seed: num(el.seed),
      zero_grad: el.zero_grad.checked,
      style: el.style.value,
      lang: getLang(), // the program's comments in the page's language
    };
    return cfg;
  }

  _status(text, kind = "") {
    const s = this.form.querySelector(".mlp-status");
    s.textContent = text;
    s.dataset.kind = kind;
    if (kind === "error") s.scrollIntoView({ block: "nearest" });
  }

  /** Build: check the form, fetch the program, write it into the editor, run it. */
  async build() {
    await loadLimits();
    const bad = this.check();
    if (bad) {
      this._status(bad.text, "error");
      bad.el.focus();
      return;
    }
    const cfg = this.config();
    this._status(t("mlp_building"));
    const res = await fetchMlpProgram(cfg);
    if (!res.ok) {
      // "steps: at most ... (limit: max_ops)": the field's name in the reader's language first
      const { main } = errorTexts(res.error); // in the page's language
      const m = /^([a-z_]+)[:：] ?(.*)$/s.exec(main);
      const field = m && this.form.elements[m[1]] ? t(`mlp_${m[1]}`) : null;
      this._status(field ? t("mlp_fail_field", { field, msg: m[2] }) : main, "error");
      return;
    }
    const body = res.data;
    this._status("");
    emit("mlp-build", { config: cfg, program: body });
    writeEditor(body.source); // the user's program now (the chooser keeps it as the draft)
    // Fold the form away so the program it wrote is in view (it keeps its values when reopened).
    const details = this.host.closest("details");
    if (details) details.open = false;
    const run = document.querySelector('[data-testid="run"]');
    if (run) run.click();
  }

  relabel() {
    apply(this.host);
    this._syncSteps();
  }
}

/** Put text into the editor the way a user would (its input listeners see the change). */
export function writeEditor(text) {
  const ed = document.querySelector('[data-testid="source"]');
  if (!ed) return;
  ed.value = text;
  ed.dispatchEvent(new Event("input", { bubbles: true }));
}

/**
 * Classroom mode (the "present" button, or P): the graph and the step explanation side by side at
 * a projector's scale (node labels at least 16 px), the editor and the tables hidden. Its tools:
 * text size (− / +, also the keys), data and grad inside the nodes, and "predict, then reveal".
 * Clicker keys (PageDown / PageUp) step like → / ←. The choices are remembered.
 */

import { emit, state } from "./state.js";

const LABEL_PX = 16; // node labels at least this tall at the normal classroom size
const SIZES = [0.85, 1, 1.15, 1.3, 1.5, 1.75];
const KEY = "gradviz.present";

function load() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

export class Classroom {
  constructor({ graph, predict }) {
    this.graph = graph;
    this.predict = predict;
    const saved = load();
    this.size = SIZES.includes(saved.size) ? saved.size : 1;
    this.values = saved.values !== false;
    this.predicting = saved.predict === true;
    const $ = (id) => document.querySelector(`[data-testid=${id}]`);
    this.el = { button: $("present"), bar: $("present-bar"), smaller: $("present-smaller"),
      larger: $("present-larger"), values: $("present-values"), predict: $("predict") };
    this.el.button.addEventListener("click", () => this.toggle());
    this.el.smaller.addEventListener("click", () => this.resize(-1));
    this.el.larger.addEventListener("click", () => this.resize(1));
    this.el.values.addEventListener("click", () => this.setValues(!this.values));
    this.el.predict.addEventListener("click", () => this.setPredict(!this.predicting));
    this._mark();
  }

  /** Switch classroom mode on or off (default: the other way). */
  toggle(on = !state.present) {
    state.present = on;
    document.documentElement.classList.toggle("present", on);
    this.el.bar.hidden = !on;
    this._apply();
  }

  /** Text one size larger (+1) or smaller (-1). */
  resize(dir) {
    const i = Math.max(0, Math.min(SIZES.length - 1, SIZES.indexOf(this.size) + dir));
    this.size = SIZES[i];
    this._apply();
  }

  setValues(on) {
    this.values = on;
    this._apply();
  }

  setPredict(on) {
    this.predicting = on;
    this._apply();
  }

  /** Keys of classroom mode; true when the key was one. */
  key(name) {
    if (name === "p" || name === "P") {
      this.toggle();
      return true;
    }
    if (!state.present) return false;
    if (name === "+" || name === "=") this.resize(1);
    else if (name === "-" || name === "_") this.resize(-1);
    else return false;
    return true;
  }

  _apply() {
    const on = state.present;
    document.documentElement.style.setProperty("--present-scale", String(this.size));
    this.graph.setReadable(on ? LABEL_PX * this.size : null);
    this.graph.setValues(on && this.values);
    this.predict.setEnabled(on && this.predicting);
    this._mark();
    try {
      localStorage.setItem(KEY, JSON.stringify({ size: this.size, values: this.values, predict: this.predicting }));
    } catch {
      /* private mode: the choices last for this page only */
    }
    emit("present", on);
  }

  _mark() {
    this.el.button.setAttribute("aria-pressed", String(state.present));
    this.el.values.setAttribute("aria-pressed", String(this.values));
    this.el.predict.setAttribute("aria-pressed", String(this.predicting));
    this.el.smaller.disabled = this.size === SIZES[0];
    this.el.larger.disabled = this.size === SIZES[SIZES.length - 1];
  }
}

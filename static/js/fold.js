/**
 * The graph's level: "module" draws each nn.Module call (nn.Linear, an activation, the loss) as
 * one box, "op" draws every grad_fn, "auto" folds only big graphs (the server's rule).
 * Changing it asks for the drawings again ("graph-level" on the bus: POST /api/layout, no new
 * run); clicking a folded box opens it (switches to the op level).
 */

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { emit, state } from "./state.js";

const MODES = ["auto", "module", "op"];

export class FoldToggle {
  constructor(tools) {
    this.mode = "auto";
    this.buttons = MODES.map((m) =>
      h("button", { type: "button", "data-testid": `fold-${m}`, "data-mode": m, "aria-pressed": String(m === "auto"),
        onclick: () => this.set(m) }, t(`fold_${m}`)));
    this.el = h("div", { class: "fold-toggle", role: "group", "data-testid": "fold-toggle", hidden: true,
      title: t("fold_hint") },
      h("span", { class: "fold-label" }, t("fold_label")), ...this.buttons);
    if (tools) tools.prepend(this.el);
    const graph = document.querySelector("[data-testid=graph]");
    if (graph) graph.addEventListener("click", (e) => this._open(e), true);
  }

  /** Show the toggle for programs with nn.Module calls; mark which level is drawn. */
  load(resp) {
    const nodes = resp ? resp.graph.nodes : [];
    this.el.hidden = !nodes.some((n) => n.module);
    const folded = !!(resp && resp.views.some((v) => v.folded));
    this.el.dataset.folded = String(folded);
    for (const b of this.buttons) b.setAttribute("aria-pressed", String(b.dataset.mode === this.mode));
  }

  /** Draw at `mode` level, standing on the same step (later runs are drawn at it too). */
  set(mode) {
    if (!MODES.includes(mode) || mode === this.mode) return;
    this.mode = mode;
    for (const b of this.buttons) b.setAttribute("aria-pressed", String(b.dataset.mode === mode));
    emit("graph-level", mode);
  }

  /** Light the folded box that holds frame k's node (the drawing lights only plain nodes). */
  mark(k) {
    const graph = document.querySelector("[data-testid=graph]");
    const resp = state.response;
    const tl = state.timeline;
    if (!graph || !resp || !tl) return;
    for (const g of graph.querySelectorAll("g.fold-cur")) g.classList.remove("fold-cur");
    const f = tl.frames[k];
    const view = resp.views.find((v) => v.index === (f ? f.view : 0));
    if (!f || f.node === undefined || !view || !view.folds.length) return;
    const box = view.folds.find((fo) => fo.nodes.includes(f.node));
    const el = box ? graph.querySelector(`g[id="${box.id}"]`) : null;
    if (el) el.classList.add("fold-cur");
  }

  _open(e) {
    const box = e.target && e.target.closest ? e.target.closest("g[id^='m'], g[data-gid^='m']") : null;
    if (!box || this.mode === "op") return;
    e.stopPropagation();
    this.set("op");
  }

  lang() {
    this.el.title = t("fold_hint");
    this.el.querySelector(".fold-label").textContent = t("fold_label");
    for (const b of this.buttons) b.textContent = t(`fold_${b.dataset.mode}`);
  }
}

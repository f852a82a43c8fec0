/**
 * The graph's level: "module" draws every part (each nn.Module call, each loop) closed, as one box,
 * "op" opens as much as can be drawn, "auto" opens what reads well (the server's budget). Changing
 * it draws the run again at that level ("graph-level" on the bus). A single box is opened by
 * clicking it, and an open loop closed by clicking its frame's title (graph.js).
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
  }

  /** Show the toggle for runs with parts to fold (module calls, loops); mark which level is drawn
   * (asked for here or elsewhere: a live class's student page draws at the teacher's level). */
  load(resp) {
    this.mode = state.fold;
    this.el.hidden = !(resp && resp.parts && resp.parts.length);
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

  lang() {
    this.el.title = t("fold_hint");
    this.el.querySelector(".fold-label").textContent = t("fold_label");
    for (const b of this.buttons) b.textContent = t(`fold_${b.dataset.mode}`);
  }
}

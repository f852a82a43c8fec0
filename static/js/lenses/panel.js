/**
 * The course views panel: five views of the same run (forward vs reverse mode, higher order,
 * two forwards compared, gradient heat, saved memory), one shown at a time. Its data is the
 * answer's `lenses` (app/worker/lenses/); an example names the view it opens (`lens`). A run's
 * answer holds the heat; the others are asked for when one of them is opened (../extras.js).
 *
 * Plugs into the page through state.js's bus only: listens to "run", "extras", "frame", "user-step",
 * "relayout" and "lang"; asks the player to move with "goto".
 */

import { h } from "../dom.js";
import { failed, needExtras, pending } from "../extras.js";
import { apply, t } from "../i18n.js";
import { emit, on, state } from "../state.js";
import { CompareLens } from "./compare.js";
import { HeatLens } from "./heat.js";
import { clear } from "./marks.js";
import { MemoryLens } from "./memory.js";
import { ModesLens } from "./modes.js";
import { OrdersLens } from "./orders.js";

const ORDER = ["modes", "orders", "compare", "heat", "memory"];
const TESTIDS = { modes: "lens-modes", orders: "lens-orders", compare: "lens-compare", heat: "lens-heat", memory: "lens-memory" };

class LensPanel {
  constructor(panel) {
    this.panel = panel;
    this.body = h("div", { class: "lens-body", "data-testid": "lens-body", "aria-live": "polite" });
    const goto = (k) => emit("goto", k);
    this.lenses = {
      modes: new ModesLens(this.body, { goto }),
      orders: new OrdersLens(this.body, { goto }),
      compare: new CompareLens(this.body, { goto }),
      heat: new HeatLens(this.body),
      memory: new MemoryLens(this.body, { goto }),
    };
    this.buttons = {};
    const bar = h("div", { class: "lens-bar", role: "group", "data-i18n-title": "ln_bar", title: t("ln_bar") },
      ORDER.map((name) => (this.buttons[name] = h("button", {
        type: "button", "data-testid": TESTIDS[name], "aria-pressed": "false", "data-i18n": `ln_${name}`,
        onclick: () => this.open(this.current === name ? null : name),
      }, t(`ln_${name}`)))));
    panel.append(h("h2", { "data-i18n": "ln_title" }, t("ln_title")), bar, this.body);
    this.current = null;
    this.resp = null;
    this.body.hidden = true;
  }

  /** Show view `name` (null: none). */
  open(name) {
    if (this.current && this.current !== name) this.lenses[this.current].off?.();
    this.current = name;
    for (const [n, b] of Object.entries(this.buttons)) b.setAttribute("aria-pressed", String(n === name));
    this.body.hidden = !name;
    this.panel.dataset.lens = name || "";
    emit("lens", name);
    if (!name || !this.resp) {
      this.body.replaceChildren();
      return;
    }
    const lens = this.lenses[name];
    if (pending(this.resp, name)) {
      const why = failed(this.resp);
      this.body.replaceChildren(h("p", { class: "hint", "data-testid": "lens-pending" },
        why ? t("extras_failed", { msg: why }) : t("ln_pending")));
      if (!why) needExtras(this.resp);
      return;
    }
    if (!lens.available(this.resp)) {
      this.body.replaceChildren(h("p", { class: "hint", "data-testid": "lens-none" }, t(`ln_none_${name}`)));
      return;
    }
    lens.render();
    lens.frame?.(state.frame, state.timeline);
  }

  load(resp, tl) {
    if (this.current) this.lenses[this.current].off?.();
    clear();
    this.resp = resp;
    this.tl = tl;
    this.later = Object.keys(this.lenses).filter((name) => pending(resp, name));
    this.ready(Object.keys(this.lenses));
    const example = (state.examples || []).find((e) => e.source === state.ranSource && e.lens);
    // the view an example opens, while its data is asked for: where it shows best is known after
    this.example = example && pending(resp, example.lens) ? example.lens : null;
    this.isShown = false;
    this.open(example ? example.lens : this.current);
    // An example opens its view where it shows best (the player is loaded after "run").
    this.opening = example ? this.openingOf(example.lens) : null;
  }

  /** Views `names` with their data loaded; a view whose data is asked for is not marked unavailable. */
  ready(names) {
    for (const name of names) {
      const lens = this.lenses[name];
      const ok = !pending(this.resp, name) && lens.available(this.resp);
      this.buttons[name].classList.toggle("unavailable", !ok && !pending(this.resp, name));
      if (ok) lens.load(this.resp, this.tl);
    }
  }

  /** The frame where view `name` shows best (its data at hand), or null. */
  openingOf(name) {
    const lens = this.lenses[name];
    return !pending(this.resp, name) && lens.available(this.resp) ? lens.opening?.(this.tl) : null;
  }

  /** The answer's extras arrived (../extras.js): the views that waited for them are drawn. */
  extras(resp) {
    if (resp !== this.resp) return;
    const waited = this.later;
    this.later = [];
    this.ready(waited);
    if (this.current && waited.includes(this.current)) this.open(this.current);
    if (this.example) {
      this.opening = this.openingOf(this.example);
      this.example = null;
      if (this.isShown && state.frame === this.startFrame) this.shown();
    }
  }

  /** The run is shown: move to where the example's view shows best, once. */
  shown() {
    this.isShown = true;
    this.startFrame = state.frame;
    const k = this.opening;
    this.opening = null;
    if (k !== null && k !== undefined && k >= 0) emit("goto", k);
  }

  frame(k) {
    // a run that failed has no timeline (its "frame" comes before the view is emptied)
    if (!this.current || !this.resp || !state.timeline || pending(this.resp, this.current)) return;
    if (!this.lenses[this.current].available(this.resp)) return;
    this.lenses[this.current].frame?.(k, state.timeline);
  }

  lang() {
    apply(this.panel);
    if (this.current) this.open(this.current);
  }
}

function mount() {
  const col = document.querySelector("#right-col");
  const before = col && col.querySelector(".p-explain");
  if (!col || !before) return;
  const panel = h("div", { class: "panel p-lenses", "data-testid": "lens-panel" });
  col.insertBefore(panel, before.previousElementSibling && before.previousElementSibling.classList.contains("p-predict") ? before.previousElementSibling : before);
  const lenses = new LensPanel(panel);
  on("run", (resp) => lenses.load(resp, state.timeline));
  on("extras", (resp) => lenses.extras(resp));
  on("frame", (k) => lenses.frame(k));
  on("run-end", ({ ok }) => {
    if (ok) lenses.shown();
  });
  // the user chose where to stand: an example's view no longer moves the player when its data arrives
  on("user-step", () => {
    lenses.example = null;
  });
  on("relayout", () => lenses.frame(state.frame));
  on("lang", () => lenses.lang());
  on("error", () => {
    if (!state.response) lenses.load(null, null);
  });
}

mount();

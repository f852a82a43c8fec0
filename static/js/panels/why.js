/**
 * The "Why?" answer: for a named tensor whose gradient is suspicious, the diagnosis the worker
 * made (the answer's `why`, app/worker/why/) in the page's language, one sentence a line, with the
 * thresholds it used, and the path from the tensor to the cause marked on the drawing.
 *
 * Any "Why?" button (the Named tensors row, the node's details, the gradient heat view) asks with
 * emit("why", name); `whyButton` makes one. Plugs into the page through state.js's bus only.
 */

import { h } from "../dom.js";
import { getLang, t } from "../i18n.js";
import { clear, mark } from "../lenses/marks.js";
import { emit, on, state } from "../state.js";

/** The diagnosis of the tensor bound to `name` in the shown run, or null. */
export function diagnosis(name) {
  const why = state.response && state.response.why;
  return (why && why.tensors && why.tensors[name]) || null;
}

/**
 * A "Why?" button for `name` (null when its gradient is not suspicious); `testid` its data-testid,
 * `named`: the button says the name too (where no row says it).
 */
export function whyButton(name, testid, named = false) {
  if (!diagnosis(name)) return null;
  return h("button", {
    type: "button", class: "why-btn", "data-testid": testid, title: t("why_ask_title", { name }),
    "aria-label": t("why_ask_title", { name }), onclick: () => emit("why", name),
  }, named ? t("why_ask_named", { name }) : t("why_ask"));
}

class WhyPanel {
  constructor(panel) {
    this.panel = panel;
    this.name = null;
    this.title = h("h2", {});
    this.answer = h("div", { class: "why-answer", "data-testid": "why-answer", "aria-live": "polite" });
    this.close = h("button", { type: "button", class: "why-close", "data-testid": "why-close", onclick: () => this.show(null) });
    panel.append(h("div", { class: "why-head" }, this.title, this.close), this.answer);
    panel.hidden = true;
  }

  /** Show the diagnosis of `name` (null: close). */
  show(name) {
    this.name = name;
    const d = name ? diagnosis(name) : null;
    clear("why");
    clear("why-cause");
    this.panel.hidden = !d;
    if (!d) return;
    this.title.textContent = `${t("why_title")} ${t("why_of", { name })}`;
    this.close.textContent = t("why_close");
    const lines = (getLang() === "zh" ? d.text.zh : d.text.en).split("\n");
    const why = state.response.why;
    this.answer.replaceChildren(
      ...lines.map((line, i) => h("p", { class: i === 0 ? "why-symptom" : i === 1 ? "why-cause" : "why-layer" }, line)),
      d.path.length ? h("p", { class: "hint" }, t("why_path", { name })) : "",
      h("p", { class: "hint why-limits" }, t("why_thresholds", { tiny: why.tiny, huge: why.huge })));
    // the end of the run: every node of the path exists there, with the gradient it ended with
    const tl = state.timeline;
    if (tl && state.frame !== tl.frames.length - 1) emit("goto", tl.frames.length - 1);
    this.marks();
    this.panel.scrollIntoView?.({ block: "nearest" });
  }

  /** Mark the path on the drawing (again after the drawing changed). */
  marks() {
    const d = this.name ? diagnosis(this.name) : null;
    if (!d) return;
    mark("why", d.path, d.edges);
    if (d.at !== null && d.at !== undefined) mark("why-cause", [d.at]);
  }
}

function mount() {
  const after = document.querySelector(".p-vars");
  if (!after) return;
  const panel = h("div", { class: "panel p-why", "data-testid": "why-panel" });
  after.after(panel);
  const why = new WhyPanel(panel);
  on("why", (name) => why.show(name));
  on("run", () => why.show(null));
  on("lang", () => why.show(why.name));
  on("frame", () => why.marks());
  on("relayout", () => why.marks());
}

mount();

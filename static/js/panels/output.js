/**
 * The error panel (type, message, line and column; marks the line in the editor) and the
 * console (what the program printed, and a note below it when the runner cut it at its limit).
 */

import { h } from "../dom.js";
import { errorBody, errorTexts } from "../errors.js";
import { num } from "../format.js";
import { t } from "../i18n.js";
import { current as currentLimits } from "../limits.js";

export class OutputPanels {
  constructor(errorHost, consoleHost, editor) {
    this.errorHost = errorHost;
    this.consoleHost = consoleHost;
    this.editor = editor;
    this.error = null;
    this.stdout = "";
    this.truncated = false;
    this.runtime = false;
    this.cutNote = h("p", { class: "hint", "data-testid": "console-cut", role: "status", hidden: true });
    consoleHost.after(this.cutNote);
  }

  /** Show a run's error (or none) and its printed output (``truncated``: the runner cut it). */
  show(error, stdout, truncated = false) {
    this.error = error || null;
    this.stdout = stdout || "";
    this.truncated = !!truncated;
    this.editor.setErrorLine(this.error ? this.error.line : null);
    this._render();
  }

  /** An error the server answered, as the page says it in its language (inside a note). */
  said(error) {
    return errorTexts(error).main;
  }

  /** A short message that is not a program error (e.g. export failed). */
  note(text) {
    this.error = { type: t("error"), message: text, line: null, col: null };
    this._render();
  }

  lang() {
    this._render();
  }

  _render() {
    const e = this.error;
    this.errorHost.hidden = !e;
    if (e) {
      const where = e.line
        ? t("error_at", { type: e.type, line: e.line, col: e.col ?? 1 })
        : t("error_noloc", { type: e.type });
      const link = e.line
        ? h("button", { type: "button", class: "linkish", onclick: () => this.editor.goTo(e.line, e.col) }, where)
        : h("b", {}, where);
      // gradviz's own words in the page's language; PyTorch's text verbatim with what it means
      this.errorHost.replaceChildren(h("p", { class: "errhead" }, link), ...errorBody(e, { noteId: "error-note" }));
    }
    this.consoleHost.textContent = this.stdout || t("console_empty");
    this.consoleHost.classList.toggle("muted", !this.stdout);
    this.cutNote.hidden = !this.truncated;
    const most = currentLimits()?.run?.max_output_chars;
    const n = most === undefined ? "…" : num(most, "count");
    this.cutNote.textContent = this.truncated ? t("console_cut", { n }) : "";
  }
}

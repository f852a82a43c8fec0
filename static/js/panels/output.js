/**
 * The error panel (type, message, line and column; marks the line in the editor) and the
 * console (what the program printed).
 */

import { h } from "../dom.js";
import { errorBody } from "../errors.js";
import { t } from "../i18n.js";

export class OutputPanels {
  constructor(errorHost, consoleHost, editor) {
    this.errorHost = errorHost;
    this.consoleHost = consoleHost;
    this.editor = editor;
    this.error = null;
    this.stdout = "";
    this.runtime = false;
  }

  /** Show a run's error (or none) and its printed output. */
  show(error, stdout) {
    this.error = error || null;
    this.stdout = stdout || "";
    this.editor.setErrorLine(this.error ? this.error.line : null);
    this._render();
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
  }
}

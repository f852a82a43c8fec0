/**
 * The program editor: a textarea with a line-number gutter and the error's line marked.
 * Tab indents (Shift+Tab dedents); Escape then Tab leaves the editor; Ctrl/Cmd+Enter runs.
 */

const INDENT = "    ";

export class Editor {
  constructor(textarea, gutter, mark, { onRun } = {}) {
    this.ta = textarea;
    this.gutter = gutter;
    this.mark = mark;
    this.onRun = onRun;
    this.errorLine = null;
    this._escaped = false;
    this._lines = 0;
    textarea.addEventListener("keydown", (e) => this._key(e));
    textarea.addEventListener("input", () => {
      this.setErrorLine(null);
      this._gutter();
    });
    textarea.addEventListener("scroll", () => this._sync());
    this._gutter();
  }

  get value() {
    return this.ta.value;
  }

  set value(text) {
    this.ta.value = text;
    this.setErrorLine(null);
    this._gutter();
  }

  _gutter() {
    const n = this.ta.value.split("\n").length;
    if (n !== this._lines) {
      this._lines = n;
      let s = "";
      for (let i = 1; i <= n; i++) s += `<div data-line="${i}">${i}</div>`;
      this.gutter.innerHTML = s;
    }
    this._paintError();
    this._sync();
  }

  _sync() {
    this.gutter.scrollTop = this.ta.scrollTop;
    this._placeMark();
  }

  /** Mark a 1-based line (or clear with null). */
  setErrorLine(line) {
    this.errorLine = line || null;
    this._paintError();
  }

  _paintError() {
    for (const el of this.gutter.querySelectorAll(".err")) el.classList.remove("err");
    if (this.errorLine) {
      const el = this.gutter.querySelector(`[data-line="${this.errorLine}"]`);
      if (el) el.classList.add("err");
    }
    this._placeMark();
  }

  _placeMark() {
    if (!this.errorLine) {
      this.mark.hidden = true;
      return;
    }
    const cs = getComputedStyle(this.ta);
    const lh = parseFloat(cs.lineHeight) || 20;
    const top = parseFloat(cs.paddingTop) || 0;
    this.mark.hidden = false;
    this.mark.style.top = `${top + (this.errorLine - 1) * lh - this.ta.scrollTop}px`;
    this.mark.style.height = `${lh}px`;
  }

  /** Put the caret at a 1-based line and column and focus the editor. */
  goTo(line, col) {
    const lines = this.ta.value.split("\n");
    let pos = 0;
    for (let i = 0; i < Math.min(line - 1, lines.length); i++) pos += lines[i].length + 1;
    pos += Math.max(0, (col || 1) - 1);
    this.ta.focus();
    this.ta.setSelectionRange(pos, pos);
  }

  _key(e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.onRun?.();
      return;
    }
    if (e.key === "Escape") {
      this._escaped = true;
      return;
    }
    if (e.key === "Tab" && !this._escaped && !e.ctrlKey && !e.altKey && !e.metaKey) {
      e.preventDefault();
      if (e.shiftKey) this._dedent();
      else this._insert(INDENT);
      return;
    }
    this._escaped = false;
  }

  _insert(text) {
    const { selectionStart: a, selectionEnd: b, value } = this.ta;
    if (a !== b && value.slice(a, b).includes("\n")) {
      // indent every selected line
      const start = value.lastIndexOf("\n", a - 1) + 1;
      const block = value.slice(start, b).replace(/^/gm, INDENT);
      this.ta.setRangeText(block, start, b, "select");
    } else {
      this.ta.setRangeText(text, a, b, "end");
    }
    this.ta.dispatchEvent(new Event("input"));
  }

  _dedent() {
    const { selectionStart: a, selectionEnd: b, value } = this.ta;
    const start = value.lastIndexOf("\n", a - 1) + 1;
    const block = value.slice(start, Math.max(b, a)).replace(/^ {1,4}/gm, "");
    this.ta.setRangeText(block, start, Math.max(b, a), "select");
    this.ta.dispatchEvent(new Event("input"));
  }
}

/**
 * The program chooser: the examples, and the user's own program ("My program (draft)").
 *
 * Nothing typed is lost: the editor's text is kept as the draft as soon as it differs from the
 * example it came from (also in localStorage, so a reload brings it back), and choosing an example
 * leaves the draft in the list to come back to. Browsing the list with the keyboard (arrow keys on
 * the closed list) opens the example the user stops on, not every example passed on the way.
 */

import { pick, t } from "./i18n.js";

const DRAFT_KEY = "gradviz.draft";
export const OWN = "own";
const SHARED = "shared";
const BROWSE_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End"]);
const SETTLE_MS = 700; // keyboard browsing: open the example when the keys rest this long

function readDraft() {
  try {
    return localStorage.getItem(DRAFT_KEY);
  } catch {
    return null;
  }
}

function writeDraft(text) {
  try {
    localStorage.setItem(DRAFT_KEY, text);
  } catch {
    /* private mode: the draft lasts for this page only */
  }
}

export class ProgramChooser {
  /** select: the <select>; editor: the Editor; open({source, variables}) runs a program. */
  constructor(select, editor, { open }) {
    this.select = select;
    this.editor = editor;
    this.open = open;
    this.examples = [];
    this.draft = readDraft();
    this.current = null; // the example id shown in the editor, or OWN
    this._timer = null;
    this._keyed = false;
    editor.ta.addEventListener("input", () => this._edited());
    select.addEventListener("keydown", (e) => {
      if (BROWSE_KEYS.has(e.key)) this._keyed = true;
      else if (e.key === "Enter") this._commit();
    });
    select.addEventListener("change", () => this._changed());
    select.addEventListener("blur", () => this._commit());
  }

  fill(examples) {
    this.examples = examples;
    this._options();
  }

  /** The program to open first: the draft left from last time, else the first example (or null). */
  startProgram() {
    if (this.draft) {
      this.current = OWN;
      this._options();
      return { source: this.draft, variables: null };
    }
    const ex = this.examples[0];
    if (!ex) return null;
    this.current = ex.id;
    this._options();
    return { source: ex.source, variables: ex.variables };
  }

  /** The editor's text came from a shared link: show which program it is (the draft stays as it was). */
  sync() {
    const text = this.editor.value;
    const ex = this.examples.find((x) => x.source === text);
    this.current = ex ? ex.id : SHARED;
    this._options();
  }

  lang() {
    this._options();
  }

  _options() {
    const opts = [];
    if (this.current === null) opts.push(new Option(t("examples_pick"), ""));
    if (this.current === SHARED) opts.push(new Option(t("shared_program"), SHARED));
    if (this.draft) opts.push(new Option(t("my_program"), OWN));
    for (const ex of this.examples) opts.push(new Option(pick(ex.title), ex.id));
    this.select.replaceChildren(...opts);
    this.select.value = this.current ?? "";
  }

  _keep(text) {
    this.draft = text;
    this.current = OWN;
    clearTimeout(this._save);
    this._save = setTimeout(() => writeDraft(text), 250);
  }

  /** The user typed: the editor holds their own program unless it is an example's text again. */
  _edited() {
    const text = this.editor.value;
    const ex = this.examples.find((x) => x.id === this.current);
    if (ex && ex.source === text) return;
    const hadDraft = !!this.draft;
    const was = this.current;
    this._keep(text);
    if (!hadDraft || was !== OWN) this._options();
  }

  _changed() {
    clearTimeout(this._timer);
    if (this._keyed) {
      this._timer = setTimeout(() => this._commit(), SETTLE_MS);
      return;
    }
    this._commit();
  }

  _commit() {
    clearTimeout(this._timer);
    this._keyed = false;
    const value = this.select.value;
    if (!value || value === this.current || value === SHARED) return;
    if (this.current === OWN) writeDraft(this.draft); // keep it safe before the editor changes
    if (value === OWN) {
      this.current = OWN;
      this.open({ source: this.draft, variables: null });
      return;
    }
    const ex = this.examples.find((x) => x.id === value);
    if (!ex) return;
    this.current = ex.id;
    if (this.select.value !== ex.id) this.select.value = ex.id;
    this._options();
    this.open({ source: ex.source, variables: ex.variables });
  }
}

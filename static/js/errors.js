/**
 * An error as the reader should see it (the answer's ErrorInfo.explain, app/error_text.py):
 * gradviz's own messages in the page's language (the English original beside the Chinese), and
 * PyTorch's or Python's texts verbatim with a sentence on what they mean. "(limit: name)" is said in
 * words; "/ops" (where the supported operations are listed) becomes a link.
 */

import { h } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { sayLimits } from "./limits.js";

/** {main, original, note}: the text to show, the verbatim text beside a translation, a sentence. */
export function errorTexts(error) {
  const e = error || {};
  const ex = e.explain || null;
  const zh = getLang() === "zh";
  const note = ex && ex.note ? (zh ? ex.note.zh : ex.note.en) : null;
  if (ex && ex.gradviz && zh && ex.zh) return { main: sayLimits(ex.zh), original: e.message || "", note };
  return { main: sayLimits(e.message), original: null, note };
}

/** Text with "/ops" as a link to the list of supported operations (in the page's language). */
export function linked(text) {
  const parts = String(text).split(/(\/ops\b)/);
  return parts.map((p) => (p === "/ops"
    ? h("a", { href: `/ops?lang=${getLang()}`, target: "_blank", rel: "noopener", "data-testid": "ops-link" }, "/ops")
    : p));
}

/** The message as DOM: the main text, the original (small) under a translation, the note. */
export function errorBody(error, { pre = true, noteId = null } = {}) {
  const { main, original, note } = errorTexts(error);
  const out = [h(pre ? "pre" : "p", { class: "errmsg" }, ...linked(main))];
  if (original) out.push(h("p", { class: "errorig" }, h("small", {}, t("error_original")), " ", h("code", {}, original)));
  if (note) out.push(h("p", noteId ? { class: "errnote", "data-testid": noteId } : { class: "errnote" }, ...linked(note)));
  return out;
}

/**
 * The page's words in its language: t(key, params) fills {name} placeholders; apply(root) fills
 * elements marked data-i18n (text), data-i18n-title (title + aria-label) and data-i18n-placeholder.
 * The words themselves are in one catalogue per language, i18n/en.js and i18n/zh.js (same keys).
 */

import { EN } from "./i18n/en.js";
import { ZH } from "./i18n/zh.js";

const STRINGS = { en: EN, zh: ZH };

const KEY = "gradviz.lang";
let current = "en";

/** The language of the first visit follows the browser; later visits use the stored choice. */
export function initLang() {
  let stored = null;
  try {
    stored = localStorage.getItem(KEY);
  } catch {
    stored = null;
  }
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === "en" || asked === "zh") current = setLang(asked);
  else if (stored === "en" || stored === "zh") current = stored;
  else current = (navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
  return current;
}

// In a page, the language is known before any module writes a string (panels built while their
// module loads read it too); elsewhere (node's tests) it stays English until set.
if (typeof location !== "undefined" && typeof navigator !== "undefined" && typeof document !== "undefined") initLang();

export function getLang() {
  return current;
}

export function setLang(lang) {
  current = lang === "zh" ? "zh" : "en";
  try {
    localStorage.setItem(KEY, current);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  return current;
}

/** The string for key in the current language, with {name} placeholders filled. */
export function t(key, params) {
  const s = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] === undefined || params[k] === null ? m : String(params[k])));
}

/** A {en, zh} object in the current language. */
export function pick(text) {
  if (!text) return "";
  if (typeof text === "string") return text;
  return text[current] || text.en || "";
}

/** Fill every marked element under root. */
export function apply(root = document) {
  document.documentElement.lang = current === "zh" ? "zh-CN" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
    el.setAttribute("aria-label", t(el.dataset.i18nTitle));
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

export { STRINGS };

/**
 * A server message in the reader's language where gradviz wrote it itself: "(limit: max_ops)" in
 * words, "not supported in gradviz: X" translated (X is code and stays as it is), and a hint beside
 * PyTorch's "Torch not compiled with CUDA enabled". Anything else is PyTorch's or Python's own text
 * and is shown as it came.
 */

import { getLang, t } from "./i18n.js";
import { sayLimits } from "./limits.js";

const NOT_SUPPORTED = "not supported in gradviz: ";
const NO_CUDA = "Torch not compiled with CUDA enabled";

/** {text, note}: the message to show, and a line beside it in the reader's language (or null). */
export function sayMessage(message) {
  const text = sayLimits(message);
  if (text.startsWith(NOT_SUPPORTED)) {
    const said = t("msg_not_supported", { what: text.slice(NOT_SUPPORTED.length) });
    return { text, note: getLang() === "en" ? null : said };
  }
  if (text === NO_CUDA) return { text, note: t("msg_no_gpu") };
  return { text, note: null };
}

/** The words of the "Why?" diagnosis (static/js/panels/why.js) in English (added to the page's words by ../en.js). */

export const WHY = {
  why_ask: "Why?",
  why_ask_named: "Why {name}?",
  why_ask_title: "Why is the gradient of {name} suspicious?",
  why_title: "Why?",
  why_of: "The gradient of {name}",
  why_close: "Close",
  why_thresholds: "Suspicious: .grad is None, 0 (all or in part), inf or NaN, tiny (mean |grad| < {tiny} × max(mean |value|, 1)) or huge (mean |grad| > {huge} × max(mean |value|, 1)).",
  why_path: "The path from {name} to the cause is highlighted on the graph.",
  why_heat: "Suspicious gradients:",
};

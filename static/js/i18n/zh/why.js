/** The words of the "Why?" diagnosis (static/js/panels/why.js) in Chinese (added to the page's words by ../zh.js). */

export const WHY = {
  why_ask: "为什么？",
  why_ask_named: "{name} 为什么？",
  why_ask_title: "为什么 {name} 的梯度可疑？",
  why_title: "为什么？",
  why_of: "{name} 的梯度",
  why_close: "关闭",
  why_thresholds: "可疑的梯度：.grad 为 None、为 0（全部或部分）、含 inf 或 NaN、过小（平均 |grad| < {tiny} × max(平均 |值|, 1)）或过大（平均 |grad| > {huge} × max(平均 |值|, 1)）。",
  why_path: "从 {name} 到原因的路径已在图上标出。",
  why_heat: "可疑的梯度：",
};

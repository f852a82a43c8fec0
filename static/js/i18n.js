/**
 * English and Chinese strings for every label, button and message.
 * t(key, params) fills {name} placeholders; apply(root) fills elements marked
 * data-i18n (text), data-i18n-title (title + aria-label) and data-i18n-placeholder.
 */

const STRINGS = {
  en: {
    app_title: "gradviz: watch autograd work",
    tagline: "computational graphs, step by step",
    examples: "Examples",
    examples_pick: "Pick an example…",
    run: "Run",
    run_hint: "Run (Ctrl+Enter)",
    running: "Running…",
    program: "Program",
    editor_hint: "Tab indents · Esc then Tab leaves the editor · Ctrl+Enter runs",
    tensors: "Named tensors",
    tab_step: "This step",
    mean_word: "mean",
    tab_training: "Training",
    tabs_label: "Show the step explanation or the training view",
    col_name: "name",
    col_value: "value",
    col_rg: "requires_grad",
    col_grad: ".grad",
    col_shape: "shape",
    not_yet: "not created yet",
    no_tensors: "Run a program to see its tensors.",
    console: "Console",
    console_empty: "(nothing printed)",
    graph: "Graph",
    graph_empty: "Run a program to draw its graph.",
    fit: "Fit",
    zoom_in: "Zoom in",
    zoom_out: "Zoom out",
    legend: "Legend",
    lg_input: "input",
    lg_param: "parameter (requires_grad)",
    lg_op: "op (grad_fn)",
    lg_output: "output",
    lg_saved: "saved for backward",
    lg_const: "Python number",
    lg_current: "current step",
    lg_done: "gradient computed",
    lg_freed: "freed (saved tensors released)",
    lg_flow: "gradient flowing back",
    timeline: "Timeline",
    first: "First step (Home)",
    prev: "Previous step (←)",
    play: "Play (space)",
    pause: "Pause (space)",
    next: "Next step (→)",
    last: "Last step (End)",
    speed: "Speed",
    step_word: "step",
    chapter: "Pass",
    ch_forward: "Forward pass",
    ch_forward_n: "Forward pass {n}",
    ch_pass: "Backward pass {n} (line {line})",
    ch_pass_noline: "Backward pass {n}",
    explain: "What happens at this step",
    details: "Details",
    details_hint: "Hover or click a node or an edge of the graph.",
    share: "Share link",
    share_copied: "Link copied to the clipboard.",
    share_ready: "Link ready: copy it from the box.",
    export_svg: "Export SVG",
    export_png: "Export PNG",
    lang_toggle: "中文",
    lang_label: "Language: switch to Chinese",
    error: "Error",
    error_at: "{type} at line {line}, column {col}",
    error_noloc: "{type}",
    error_runtime_note: "Everything that ran before the error is shown and can be stepped through.",
    // explanation texts
    ex_nothing: "Run a program: its forward ops appear one by one, then every backward step.",
    ex_op: "Forward: {name} computes {desc}.",
    ex_op_line: "Line {line}: {code}",
    ex_op_out: "Output {var}shape {shape}:",
    ex_op_inputs: "Inputs:",
    ex_leaf_new: "New leaf tensor",
    ex_step_title: "Backward pass {pass}, step {i} of {n}: {name}",
    ex_seed: "This is where backward() starts: the seed gradient ∂out/∂out =",
    ex_upstream: "Upstream gradient arriving at this node (∂L/∂output):",
    ex_fanout: "This tensor was used {n} times, so the gradients coming back from each use are added:",
    ex_rule: "Local rule for input {i} ({src}):",
    ex_with: "with the saved values",
    ex_send: "Gradient sent down to {src}: upstream × local =",
    ex_send_short: "Gradient sent down to {src}:",
    ex_no_grad: "Input {i} ({src}) needs no gradient: nothing is sent.",
    ex_leaf: "AccumulateGrad: leaf {name} receives its gradient.",
    ex_leaf_write: ".grad before + contribution = after",
    ex_retained: "retain_grad(): this non-leaf keeps its gradient in .grad.",
    ex_pass_end: "Backward pass {n} is finished.",
    ex_pass_grads: "The gradients it wrote:",
    ex_freed: "After this pass the graph's saved tensors are freed (no retain_graph=True): a second backward through it fails.",
    ex_kept: "retain_graph=True: the saved tensors are kept, so backward can run again.",
    ex_optim: "{opt}.step(): every parameter moves against its gradient: {rule}",
    ex_zero: "zero_grad(): the parameters' .grad are reset (to None), so the next backward starts fresh.",
    ex_error: "The program stopped here with an error:",
    ex_skipped: "Iterations {from} to {to} ran the same way and are left out here: their losses are in the training view.",
    none: "None",
    value: "value",
    grad: "grad",
    shape: "shape",
    dtype: "dtype",
    formula: "local rule",
    saved: "saved tensors",
    saved_freed: "released after backward",
    saved_none: "none",
    kind_leaf: "leaf tensor",
    kind_param: "parameter",
    kind_op: "op node",
    edge_title: "edge {src} → {dst}",
    edge_grad: "gradient carried back",
    edge_no_grad: "no gradient has flowed here yet",
    line: "line",
    module: "module",
    summary: "min {min} · max {max} · mean {mean} · norm {norm}",
    heat_label: "heat map",
  },
  zh: {
    app_title: "gradviz：看自动求导如何工作",
    tagline: "一步一步看计算图",
    examples: "示例",
    examples_pick: "选择一个示例…",
    run: "运行",
    run_hint: "运行（Ctrl+Enter）",
    running: "运行中…",
    program: "程序",
    editor_hint: "Tab 缩进 · 先按 Esc 再按 Tab 离开编辑器 · Ctrl+Enter 运行",
    tensors: "命名张量",
    tab_step: "当前步骤",
    mean_word: "均值",
    tab_training: "训练",
    tabs_label: "显示步骤讲解或训练视图",
    col_name: "名称",
    col_value: "值",
    col_rg: "requires_grad",
    col_grad: ".grad",
    col_shape: "形状",
    not_yet: "尚未创建",
    no_tensors: "运行程序后显示其张量。",
    console: "控制台",
    console_empty: "（没有输出）",
    graph: "计算图",
    graph_empty: "运行程序以绘制计算图。",
    fit: "适应窗口",
    zoom_in: "放大",
    zoom_out: "缩小",
    legend: "图例",
    lg_input: "输入",
    lg_param: "参数（requires_grad）",
    lg_op: "运算（grad_fn）",
    lg_output: "输出",
    lg_saved: "为反向传播保存",
    lg_const: "Python 数字",
    lg_current: "当前步骤",
    lg_done: "梯度已算出",
    lg_freed: "已释放（保存的张量已释放）",
    lg_flow: "反向流动的梯度",
    timeline: "时间轴",
    first: "第一步（Home）",
    prev: "上一步（←）",
    play: "播放（空格）",
    pause: "暂停（空格）",
    next: "下一步（→）",
    last: "最后一步（End）",
    speed: "速度",
    step_word: "步骤",
    chapter: "阶段",
    ch_forward: "前向传播",
    ch_forward_n: "第 {n} 次前向传播",
    ch_pass: "第 {n} 次反向传播（第 {line} 行）",
    ch_pass_noline: "第 {n} 次反向传播",
    explain: "这一步发生了什么",
    details: "详情",
    details_hint: "将鼠标悬停或点击图中的节点或边。",
    share: "分享链接",
    share_copied: "链接已复制到剪贴板。",
    share_ready: "链接已生成：请从文本框复制。",
    export_svg: "导出 SVG",
    export_png: "导出 PNG",
    lang_toggle: "English",
    lang_label: "语言：切换到英文",
    error: "错误",
    error_at: "{type}：第 {line} 行，第 {col} 列",
    error_noloc: "{type}",
    error_runtime_note: "出错之前运行的部分仍然显示，可以逐步查看。",
    ex_nothing: "运行程序：前向运算会逐个出现，然后是反向传播的每一步。",
    ex_op: "前向：{name} 计算 {desc}。",
    ex_op_line: "第 {line} 行：{code}",
    ex_op_out: "输出 {var}形状 {shape}：",
    ex_op_inputs: "输入：",
    ex_leaf_new: "新的叶子张量",
    ex_step_title: "第 {pass} 次反向传播，第 {i} / {n} 步：{name}",
    ex_seed: "backward() 从这里开始：初始梯度 ∂out/∂out =",
    ex_upstream: "到达此节点的上游梯度（∂L/∂输出）：",
    ex_fanout: "这个张量被使用了 {n} 次，从每次使用处传回的梯度相加：",
    ex_rule: "输入 {i}（{src}）的局部规则：",
    ex_with: "代入保存的值",
    ex_send: "传给 {src} 的梯度：上游 × 局部 =",
    ex_send_short: "传给 {src} 的梯度：",
    ex_no_grad: "输入 {i}（{src}）不需要梯度：不传递。",
    ex_leaf: "AccumulateGrad：叶子 {name} 收到它的梯度。",
    ex_leaf_write: ".grad 之前 + 本次贡献 = 之后",
    ex_retained: "retain_grad()：这个非叶子张量把梯度保存在 .grad 中。",
    ex_pass_end: "第 {n} 次反向传播结束。",
    ex_pass_grads: "它写入的梯度：",
    ex_freed: "这次传播之后，图中保存的张量被释放（没有 retain_graph=True）：再次 backward 会失败。",
    ex_kept: "retain_graph=True：保存的张量被保留，可以再次 backward。",
    ex_optim: "{opt}.step()：每个参数沿梯度的反方向移动：{rule}",
    ex_zero: "zero_grad()：参数的 .grad 被重置（为 None），下一次 backward 重新开始累加。",
    ex_error: "程序在这里出错停止：",
    ex_skipped: "第 {from} 到第 {to} 次迭代以同样的方式运行，这里省略了：它们的损失见训练视图。",
    none: "None",
    value: "值",
    grad: "梯度",
    shape: "形状",
    dtype: "数据类型",
    formula: "局部规则",
    saved: "保存的张量",
    saved_freed: "backward 之后已释放",
    saved_none: "无",
    kind_leaf: "叶子张量",
    kind_param: "参数",
    kind_op: "运算节点",
    edge_title: "边 {src} → {dst}",
    edge_grad: "反向传回的梯度",
    edge_no_grad: "这里还没有梯度流过",
    line: "行",
    module: "模块",
    summary: "最小 {min} · 最大 {max} · 平均 {mean} · 范数 {norm}",
    heat_label: "热力图",
  },
};

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

export const LANGS = Object.keys(STRINGS);
export { STRINGS };

/**
 * English and Chinese strings of folded parts: boxes, open loops' frames, the steps inside them.
 * Added to i18n.js's tables when this module is first imported.
 */

import { STRINGS } from "./i18n.js";

const EN = {
  part_loop: "loop {label} (×{n})",
  part_repeat: "layers {label}, repeated ×{n}",
  part_chunk: "iterations {a}–{b}",
  part_segment: "lines {label}",
  part_module: "{type} call {label}",
  open_part: "Open {what}",
  close_part: "Close {what}",
  folded_op: "An op inside a folded part",
  folded_step: "a node inside a folded part",
  folded_inside: "Inside {what}.",
  folded_iteration: "Iteration {i} of {n}.",
  folded_layer: "Layer {i} of {n}.",
  folded_hint: "Its values are not loaded yet: open the part to see them (the program runs again).",
  folded_open: "Open it",
  open_failed: "The part could not be opened: {msg}",
  run_changed: "running the program again gave another graph",
};

const ZH = {
  part_loop: "循环 {label}（×{n}）",
  part_repeat: "重复 {n} 次的层 {label}",
  part_chunk: "第 {a}–{b} 次迭代",
  part_segment: "第 {label} 行",
  part_module: "{type} 调用 {label}",
  open_part: "展开{what}",
  close_part: "收起{what}",
  folded_op: "折叠部分中的一个运算",
  folded_step: "折叠部分中的一个节点",
  folded_inside: "位于{what}中。",
  folded_iteration: "第 {i} 次迭代（共 {n} 次）。",
  folded_layer: "第 {i} 层，共 {n} 层。",
  folded_hint: "它的数值尚未载入：展开该部分即可查看（程序会重新运行）。",
  folded_open: "展开",
  open_failed: "无法展开该部分：{msg}",
  run_changed: "重新运行程序得到了不同的计算图",
};

Object.assign(STRINGS.en, EN);
Object.assign(STRINGS.zh, ZH);

export { EN, ZH };

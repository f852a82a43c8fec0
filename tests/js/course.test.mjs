// What course code adds to the page's logic: a tensor hook's step in the timeline (its node is
// current, it writes no .grad and asks nothing in predict mode), and gradviz's own messages said
// in the reader's language.
import assert from "node:assert/strict";
import { test } from "node:test";

import { setLang } from "../../static/js/i18n.js";
import { errorTexts } from "../../static/js/errors.js";
import { questions } from "../../static/js/predict.js";
import { Timeline } from "../../static/js/timeline.js";

const V = (data, shape = []) => ({ shape, dtype: "float32", data, summary: null });

/** x (leaf) → y = x * x, with a hook on y that doubles the gradient, then loss = y.sum(). */
function hookResponse() {
  const nodes = [
    { id: 0, kind: "leaf", name: "x", var: "x", shape: [2], dtype: "float32", value: V([1, 2], [2]),
      requires_grad: true, is_param: false, inputs: [] },
    { id: 1, kind: "op", name: "MulBackward0", var: "y", shape: [2], dtype: "float32", value: V([1, 4], [2]),
      requires_grad: true, inputs: [0, 1], formulas: ["∂", "∂"], saved: [] },
    { id: 2, kind: "op", name: "SumBackward0", var: "loss", shape: [], dtype: "float32", value: V(5),
      requires_grad: true, inputs: [2], formulas: ["∂"], saved: [] },
  ];
  const edges = [[0, 0, 1, 0], [1, 0, 1, 1], [2, 1, 2, 0]].map(([id, source, target, index]) => (
    { id, source, target, index, shape: [2], needs_grad: true }));
  const steps = [
    { index: 0, node: 2, kind: "op", received: [], upstream: V(1), sent: [{ edge: 2, grad: V([1, 1], [2]) }] },
    { index: 1, node: 1, kind: "hook", received: [], upstream: V([1, 1], [2]), sent: [],
      grad_before: V([1, 1], [2]), grad_after: V([2, 2], [2]), hook: "double", hook_line: 4, hook_col: 1 },
    { index: 2, node: 1, kind: "op", received: [{ edge: 2, grad: V([1, 1], [2]) }], upstream: V([2, 2], [2]),
      sent: [{ edge: 0, grad: V([2, 4], [2]) }, { edge: 1, grad: V([2, 4], [2]) }] },
    { index: 3, node: 0, kind: "leaf", received: [{ edge: 0, grad: V([2, 4], [2]) }, { edge: 1, grad: V([2, 4], [2]) }],
      upstream: V([4, 8], [2]), sent: [], grad_before: null, grad_after: V([4, 8], [2]) },
  ];
  const backward = [{ index: 0, root: 2, api: "backward", retain_graph: false, create_graph: false, seed: V(1),
    steps, line: 6, col: 1, view: 0, freed: true }];
  const events = [{ kind: "op", index: 1 }, { kind: "op", index: 2 }, { kind: "backward", index: 0 }];
  const views = [{ index: 0, passes: [0], nodes: [0, 1, 2], edges: [0, 1, 2], svg: "" }];
  return { variables: {}, stdout: "", graph: { nodes, edges }, backward, error: null, views, events,
    optimizer_steps: [], iterations: [] };
}

test("a hook step is a frame of its own, with its node current", () => {
  const tl = new Timeline(hookResponse());
  assert.deepEqual(tl.frames.map((f) => f.kind), ["op", "op", "step", "step", "step", "step", "pass_end"]);
  assert.equal(tl.frames[3].node, 1);
  assert.equal(tl.nodeState(1, 3), "cur", "y during its hook");
  assert.equal(tl.nodeState(1, 2), "pending");
  assert.equal(tl.nodeState(1, 4), "cur", "y's rules run next");
  assert.equal(tl.nodeState(1, 5), "done");
});

test("a hook writes no .grad and sends nothing; y's rules then send what the hook returned", () => {
  const tl = new Timeline(hookResponse());
  assert.equal(tl.gradAt(0, 3), null, "x has no .grad during the hook");
  assert.equal(tl.edgeState(0, 3), "bw", "nothing sent along x's edges yet");
  assert.deepEqual(tl.edgeGrad(0, 4).data, [2, 4]);
  assert.deepEqual(tl.gradAt(0, 5).data, [4, 8]);
  assert.deepEqual(tl.outputGrad(1, 4).data, [2, 2], "the upstream y's node used");
  assert.deepEqual(questions(tl, 3), [], "nothing to predict in a hook step");
  assert.equal(questions(tl, 4).length, 2);
});

test("gradviz's own messages in the reader's language", () => {
  // The ErrorInfo the server sends (app/error_text.py): its Chinese, and a note in both languages.
  const notSupported = {
    type: "NotSupportedError", message: "not supported in gradviz: Tensor.unfold",
    explain: { gradviz: true, zh: "gradviz 不支持：Tensor.unfold",
      note: { en: "PyTorch has this, but gradviz does not support it yet: the operations gradviz supports are listed at /ops.",
        zh: "PyTorch 有这个功能，但 gradviz 暂不支持：gradviz 支持的运算列在 /ops。" } },
  };
  const noGpu = {
    type: "AssertionError", message: "Torch not compiled with CUDA enabled",
    explain: { gradviz: false, zh: null, note: { en: "gradviz computes on the CPU: there is no GPU here.", zh: "gradviz 在 CPU 上计算：这里没有 GPU。" } },
  };
  setLang("en");
  assert.deepEqual(errorTexts(notSupported), { main: "not supported in gradviz: Tensor.unfold", original: null,
    note: notSupported.explain.note.en });
  assert.match(errorTexts(noGpu).note, /CPU/);
  setLang("zh");
  assert.deepEqual(errorTexts(notSupported), { main: "gradviz 不支持：Tensor.unfold",
    original: "not supported in gradviz: Tensor.unfold", note: notSupported.explain.note.zh });
  assert.equal(errorTexts(noGpu).main, "Torch not compiled with CUDA enabled", "PyTorch's text stays verbatim");
  assert.match(errorTexts(noGpu).note, /CPU 上计算/);
  setLang("en");
});

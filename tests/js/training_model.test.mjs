// Plain-logic tests of static/js/training_model.js (tests/js/test_js.py runs every file here).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  accuracySeries, forgotZeroGrad, frameForPass, frameOfPass, headOf, isTraining, keptIterations, lrOfRule, normOf, order,
  paramLabels, paramSeries, passAtFrame, workedUpdate,
} from "../../static/js/training_model.js";

const v = (data, shape = [data.length]) => ({ shape, dtype: "float32", data, summary: null });
const big = (head, norm) => ({ shape: [16, 16], dtype: "float32", data: null,
  summary: { min: 0, max: 1, mean: 0.5, norm, head } });

// Two micro-batch passes per step, 2 steps; zero_grad before each step's first pass.
const resp = {
  graph: { nodes: [
    { id: 0, kind: "leaf", var: "fc1.weight", shape: [2, 2], module: "fc1" },
    { id: 1, kind: "leaf", var: null, shape: [2], module: "fc1" },
  ], edges: [] },
  backward: [{ index: 0, view: 0, steps: [{ kind: "op", node: 5 }, { kind: "leaf", node: 0 }, { kind: "leaf", node: 1 }] },
             { index: 3, view: 1, steps: [{ kind: "leaf", node: 0 }] }],
  iterations: [
    { pass_index: 0, loss: 1.0, view: 0, params: { "fc1.weight": { value_norm: 1, grad_norm: 0.5 }, "#1": { value_norm: 1, grad_norm: 0.1 } } },
    { pass_index: 1, loss: 0.9, view: null, params: { "fc1.weight": { value_norm: 1, grad_norm: 1.0 }, "#7": { value_norm: 1, grad_norm: 0.2 } } },
    { pass_index: 2, loss: 0.8, view: null, params: { "fc1.weight": { value_norm: 1, grad_norm: 0.4 }, "#9": { value_norm: 1, grad_norm: 0.1 } } },
    { pass_index: 3, loss: 0.7, view: 1, params: { "fc1.weight": { value_norm: 1, grad_norm: 0.9 }, "#11": { value_norm: 1, grad_norm: 0.2 } } },
  ],
  optimizer_steps: [{ index: 0, optimizer: "SGD", rule: "p ← p − lr·g (lr=0.1)",
    params: [{ name: "fc1.weight", before: v([1, 2]), grad: v([0.5, 1]), after: v([0.95, 1.9]) }] }],
  events: [{ kind: "zero_grad" }, { kind: "backward", index: 0 }, { kind: "backward", index: 1 }, { kind: "optim", index: 0 },
           { kind: "zero_grad" }, { kind: "backward", index: 2 }, { kind: "backward", index: 3 }, { kind: "optim", index: 1 }],
};

test("isTraining", () => {
  assert.equal(isTraining(resp), true);
  assert.equal(isTraining({ iterations: [{}], optimizer_steps: [] }), false);
  // Two passes on one graph (retain_graph) are not a training loop; two micro-batches are.
  assert.equal(isTraining({ iterations: [{ view: 0 }, { view: 0 }], optimizer_steps: [] }), false);
  assert.equal(isTraining({ iterations: [{ view: 0 }, { view: 1 }], optimizer_steps: [] }), true);
  assert.equal(isTraining(null), false);
});

test("values: head and norm", () => {
  assert.deepEqual(headOf(v([[1, 2], [3, 4]], [2, 2]), 3), [1, 2, 3]);
  assert.deepEqual(headOf(big([7, 8, 9], 3)), [7, 8, 9]);
  assert.equal(normOf(v([3, 4])), 5);
  assert.equal(normOf(big([1], 12.5)), 12.5);
});

test("parameters are matched by position across iterations", () => {
  const s = paramSeries(resp);
  assert.equal(s.length, 2);
  assert.deepEqual(s[0].grad, [0.5, 1.0, 0.4, 0.9]);
  assert.deepEqual(s[1].grad, [0.1, 0.2, 0.1, 0.2]);
  assert.deepEqual(paramLabels(resp), ["fc1.weight", "fc1.bias"]);
});

test("order: steps, groups and zero_grad", () => {
  const o = order(resp);
  assert.equal(o.stepOfPass.get(0), 0);
  assert.equal(o.stepOfPass.get(1), 0);
  assert.equal(o.stepOfPass.get(3), 1);
  assert.deepEqual(o.group.get(1), [0, 1]);
  assert.ok(o.zeroBefore.has(0) && o.zeroBefore.has(2) && !o.zeroBefore.has(1));
  assert.equal(o.zeroCount, 2);
});

test("a forgotten zero_grad", () => {
  const o = order(resp);
  assert.equal(forgotZeroGrad(resp, o, paramSeries(resp)), false); // it has zero_grads
  const its = [{ params: { w: { value_norm: 1, grad_norm: 8 } } }, { params: { w: { value_norm: 0.9, grad_norm: 15 } } }];
  const answer = { backward: [], graph: { nodes: [], edges: [] } }; // what every answer has
  const manual = { ...answer, iterations: its, optimizer_steps: [], events: [] };
  assert.equal(forgotZeroGrad(manual, order(manual), paramSeries(manual)), true);
  const accum = { ...answer, iterations: its.map((it) => ({ params: { w: { value_norm: 1, grad_norm: it.params.w.grad_norm } } })),
    optimizer_steps: [], events: [] };
  assert.equal(forgotZeroGrad(accum, order(accum), paramSeries(accum)), false); // micro-batches, no update
});

test("kept iterations", () => {
  assert.deepEqual(keptIterations(resp).map((k) => k.pass), [0, 3]);
});

test("frames of passes on a timeline", () => {
  const tl = {
    passes: resp.backward,
    passStart: [3, 8],
    frames: [
      { kind: "op", view: 0 }, { kind: "op", view: 0 }, { kind: "op", view: 0 },
      { kind: "step", pass: 0, view: 0 }, { kind: "step", pass: 0, view: 0 }, { kind: "optim", view: 0 },
      { kind: "op", view: 1 }, { kind: "op", view: 1 }, { kind: "step", pass: 1, view: 1 },
    ],
  };
  assert.equal(frameOfPass(tl, 0), 2);
  assert.equal(frameOfPass(tl, 3), 7);
  assert.equal(frameOfPass(tl, 1), -1);
  assert.equal(passAtFrame(tl, 4), 0);
  assert.equal(passAtFrame(tl, 5), 0);
  assert.equal(passAtFrame(tl, 8), 3);
  assert.equal(passAtFrame(tl, 0), 0);
  // the forward ops of an iteration belong to that iteration, not to the pass before
  assert.equal(passAtFrame(tl, 6), 3);
  assert.equal(passAtFrame(tl, frameOfPass(tl, 3)), 3);
});

test("the worked SGD update", () => {
  assert.equal(lrOfRule("p ← p − lr·g (lr=0.1)"), 0.1);
  assert.equal(lrOfRule("nothing"), null);
  const w = workedUpdate(resp.optimizer_steps[0], resp.optimizer_steps[0].params[0]);
  assert.equal(w.lr, 0.1);
  assert.ok(Math.abs(w.check - 0.95) < 1e-12 && w.after === 0.95);
  const adam = workedUpdate({ optimizer: "Adam", rule: "... (lr=0.01, ε=1e-08)" }, resp.optimizer_steps[0].params[0]);
  assert.equal(adam.lr, null);
  const mom = workedUpdate({ optimizer: "SGD", rule: "b ← μ·b + g (μ=0.9); g ← b; p ← p − lr·g (lr=0.1)" },
    resp.optimizer_steps[0].params[0]);
  assert.equal(mom.lr, null);
});

test("boundary frames for passes", () => {
  const b = { frames: [{ step: 0, accuracy: 0.5 }, { step: 1, accuracy: 0.7 }, { step: 2, accuracy: 0.9 }] };
  assert.deepEqual(accuracySeries(b).map((a) => a.accuracy), [0.5, 0.7, 0.9]);
  const o = order(resp);
  assert.equal(frameForPass(b, o.stepOfPass, 0, 4, 2), 1); // after step 0 → snapshot step 1
  assert.equal(frameForPass(b, o.stepOfPass, 3, 4, 2), 2);
  assert.equal(frameForPass(null, o.stepOfPass, 0, 4, 2), -1);
});

test("every builder and training string exists in English and Chinese", async () => {
  const { TRAINING: EN } = await import("../../static/js/i18n/en/training.js");
  const { TRAINING: ZH } = await import("../../static/js/i18n/zh/training.js");
  assert.deepEqual(Object.keys(EN).sort(), Object.keys(ZH).sort());
  for (const [k, v] of Object.entries(ZH)) assert.ok(v.length > 0, k);
});

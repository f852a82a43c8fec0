// "Predict, then reveal" (static/js/predict.js) and the words for the server's limits (static/js/limits.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { num, num3, valueText } from "../../static/js/format.js";
import { setLang } from "../../static/js/i18n.js";
import { limitPhrase, maxSteps, maxStepsLimit, sayLimits, setLimits } from "../../static/js/limits.js";
import { isRight, parseGuess, questions, Score, TOLERANCE } from "../../static/js/predict.js";
import { Timeline } from "../../static/js/timeline.js";

const V = (data, shape = []) => ({ shape, dtype: "float32", data, summary: null });

/** y = a * b (a = 2, b = 3), one pass: the mul sends 3 to a and 2 to b; then b and a are written. */
function mulResponse() {
  const leaf = (id, name) => ({ id, kind: "leaf", name, var: name, shape: [], dtype: "float32", value: V(id + 2),
    requires_grad: true });
  const nodes = [leaf(0, "a"), leaf(1, "b"), { id: 2, kind: "op", name: "MulBackward0", shape: [], dtype: "float32",
    value: V(6), requires_grad: true, inputs: [0, 1], formulas: ["b", "a"], saved: [], params: {} }];
  const edges = [{ id: 0, source: 0, target: 2, index: 0, shape: [], needs_grad: true },
    { id: 1, source: 1, target: 2, index: 1, shape: [], needs_grad: true }];
  const steps = [
    { index: 0, node: 2, kind: "op", received: [], upstream: V(1), sent: [{ edge: 0, grad: V(3) }, { edge: 1, grad: V(2) }] },
    { index: 1, node: 1, kind: "leaf", received: [{ edge: 1, grad: V(2) }], upstream: V(2), sent: [], grad_before: null,
      grad_after: V(2) },
    { index: 2, node: 0, kind: "leaf", received: [{ edge: 0, grad: V(3) }], upstream: V(3), sent: [], grad_before: null,
      grad_after: { shape: [300], dtype: "float32", data: null, summary: { min: 0, max: 1, mean: 0, norm: 1, head: [] } } },
  ];
  return { variables: {}, stdout: "", graph: { nodes, edges }, error: null, optimizer_steps: [], iterations: [],
    backward: [{ index: 0, root: 2, api: "backward", retain_graph: false, create_graph: false, seed: V(1), steps, view: 0,
      freed: true }],
    views: [{ index: 0, passes: [0], nodes: [0, 1, 2], edges: [0, 1], svg: "" }],
    events: [{ kind: "op", index: 2 }, { kind: "backward", index: 0 }] };
}

test("questions: the gradients an op sends, the .grad a leaf holds; only what can be typed", () => {
  const tl = new Timeline(mulResponse());
  assert.deepEqual(questions(tl, 0), [], "a forward op asks nothing");
  const atMul = questions(tl, 1);
  assert.deepEqual(atMul.map((q) => [q.kind, q.edge, q.node, q.truth.data]), [["edge", 0, 0, 3], ["edge", 1, 1, 2]]);
  assert.deepEqual(questions(tl, 2).map((q) => [q.kind, q.node, q.truth.data]), [["grad", 1, 2]]);
  assert.deepEqual(questions(tl, 3), [], "a summarized tensor is not asked for");
  assert.deepEqual(questions(tl, 4), [], "the pass's end asks nothing");
});

test("a guess is read as numbers", () => {
  assert.deepEqual(parseGuess("2"), [2]);
  assert.deepEqual(parseGuess(" −0.5 "), [-0.5]);
  assert.deepEqual(parseGuess("1e-3"), [0.001]);
  assert.deepEqual(parseGuess("[1, 2]"), [1, 2]);
  assert.deepEqual(parseGuess("[[1, 2], [3, 4]]"), [1, 2, 3, 4]);
  assert.deepEqual(parseGuess("1 2"), [1, 2]);
  assert.deepEqual(parseGuess("1/4"), [0.25]);
  assert.equal(parseGuess(""), null);
  assert.equal(parseGuess("two"), null);
  assert.equal(parseGuess("[]"), null);
});

test("right within a relative error of 1e-3, else wrong", () => {
  assert.equal(TOLERANCE, 1e-3);
  assert.equal(isRight([3], V(3)), true);
  assert.equal(isRight([3.002], V(3)), true);
  assert.equal(isRight([3.004], V(3)), false);
  assert.equal(isRight([0.25], V(0.2500001)), true);
  assert.equal(isRight([0], V(0)), true);
  assert.equal(isRight([1e-9], V(0)), false, "an exact zero must be guessed as zero");
  assert.equal(isRight([1, 2], V([1, 2], [2])), true);
  assert.equal(isRight([1], V([1, 2], [2])), false, "as many numbers as the tensor has");
  assert.equal(isRight(null, V(3)), false);
});

test("a guess typed as the page shows the answer is right: the page shows the digits it judges by", () => {
  for (const x of [-0.001822, 0.00123456, 1 / 3, -12.34567, 0.1234567, 98765.4321, -3.21e-5, 7.77e7]) {
    const truth = V(x);
    const shown = valueText(truth);
    assert.ok(isRight(parseGuess(shown), truth), `${x} shown as ${shown}`);
    assert.ok(isRight(parseGuess(num3(x)), truth), `${x} drawn as ${num3(x)}`);
    assert.ok(Math.abs(Number(num(x)) - x) / Math.abs(x) < TOLERANCE / 2, `${num(x)} keeps the digits judged`);
  }
  assert.equal(valueText(V(-0.001822)), "-0.001822");
  assert.ok(!isRight([-0.0018], V(-0.001822)), "fewer digits than shown are still judged by the tolerance");
  const vec = V([0.001822, -2.5, 0.3333333], [3]);
  assert.ok(isRight(parseGuess(valueText(vec)), vec));
});

test("the score counts each question once, per pass", () => {
  const s = new Score();
  s.record(0, "e0", true);
  s.record(0, "e1", false);
  s.record(0, "e0", false); // asked again: not counted twice
  s.record(1, "e0", true);
  assert.deepEqual(s.of(0), { asked: 2, right: 1 });
  assert.deepEqual(s.of(1), { asked: 1, right: 1 });
  assert.deepEqual(s.of(5), { asked: 0, right: 0 });
});

test("a limit a message names is said in words, in both languages", () => {
  setLimits({ run: { timeout_s: 5, max_ops: 20000, max_tensor_bytes: 64 * 2 ** 20 },
    mlp: { max_steps: [[1000, 500], [833, 400]], max_steps_limit: [["timeout_s", "timeout_s"], ["max_ops", "max_ops"]] } });
  setLang("en");
  assert.equal(sayLimits("stopped (limit: timeout_s)"), "stopped (limit: the time limit of 5 s)");
  assert.equal(limitPhrase("max_ops"), "at most 20,000 recorded ops");
  assert.equal(limitPhrase("max_tensor_bytes"), "at most 64 MB of tensors");
  assert.equal(limitPhrase("no_such"), "a server limit (no_such)");
  setLang("zh");
  assert.equal(sayLimits("stopped (limit: timeout_s)"), "stopped （限制：时间限制 5 秒）");
  setLang("en");
  assert.equal(maxSteps(1, 2), 400);
  assert.equal(maxStepsLimit(1, 1), "max_ops");
  assert.equal(maxSteps(9, 1), 833, "more layers than the table: its last row");
});

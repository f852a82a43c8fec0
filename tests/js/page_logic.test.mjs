// The page's plain-logic modules (timeline, player, share links, number formats, explain's
// arithmetic), run with node's test runner (tests/js/test_js.py runs every file here).
import assert from "node:assert/strict";
import { test } from "node:test";

import { compactText, num, num3, shortText, valueText } from "../../static/js/format.js";
import { dims, resolver } from "../../static/js/panels/work.js";
import { Player } from "../../static/js/player.js";
import { decodeShare, encodeShare } from "../../static/js/share.js";
import { Timeline } from "../../static/js/timeline.js";

const V = (data, shape = []) => ({ shape, dtype: "float32", data, summary: null });

/** (a * b + 1) ** 2 with a = 2, b = 3, shaped like a RunResponse. */
function abResponse({ passes = 1, retain = false, zero = false } = {}) {
  const leaf = (id, name, isParam = false) => ({ id, kind: "leaf", name, var: name, shape: [], dtype: "float32",
    value: V(id + 2), requires_grad: true, is_param: isParam, inputs: [] });
  const op = (id, name, inputs) => ({ id, kind: "op", name, shape: [], dtype: "float32", value: V(0),
    requires_grad: true, inputs, formulas: inputs.map(() => "∂"), saved: [] });
  const nodes = [leaf(0, "a", true), leaf(1, "b"), op(2, "MulBackward0", [0, 1]),
    { ...leaf(3, "1"), requires_grad: false }, op(4, "AddBackward0", [2, 3]), op(5, "PowBackward0", [4])];
  const edges = [[0, 0, 2, 0], [1, 1, 2, 1], [2, 2, 4, 0], [3, 3, 4, 1], [4, 4, 5, 0]].map(([id, source, target, index]) => (
    { id, source, target, index, shape: [], needs_grad: id !== 3 }));
  const steps = (gBefore) => [
    { index: 0, node: 5, kind: "op", received: [], upstream: V(1), sent: [{ edge: 4, grad: V(14) }] },
    { index: 1, node: 4, kind: "op", received: [{ edge: 4, grad: V(14) }], upstream: V(14),
      sent: [{ edge: 2, grad: V(14) }, { edge: 3, grad: null }] },
    { index: 2, node: 2, kind: "op", received: [{ edge: 2, grad: V(14) }], upstream: V(14),
      sent: [{ edge: 0, grad: V(42) }, { edge: 1, grad: V(28) }] },
    { index: 3, node: 1, kind: "leaf", received: [{ edge: 1, grad: V(28) }], upstream: V(28), sent: [],
      grad_before: gBefore ? V(28 * gBefore) : null, grad_after: V(28 * (gBefore + 1)) },
    { index: 4, node: 0, kind: "leaf", received: [{ edge: 0, grad: V(42) }], upstream: V(42), sent: [],
      grad_before: gBefore ? V(42 * gBefore) : null, grad_after: V(42 * (gBefore + 1)) },
  ];
  const backward = [];
  const events = [{ kind: "op", index: 2 }, { kind: "op", index: 4 }, { kind: "op", index: 5 }];
  for (let p = 0; p < passes; p++) {
    if (zero && p > 0) events.push({ kind: "zero_grad", index: null });
    const before = zero ? 0 : p;
    backward.push({ index: p, root: 5, api: "backward", retain_graph: retain, create_graph: false, seed: V(1),
      steps: steps(before), line: 2, col: 1, view: 0, freed: !retain });
    events.push({ kind: "backward", index: p });
  }
  const views = [{ index: 0, passes: backward.map((b) => b.index), nodes: nodes.map((n) => n.id),
    edges: edges.map((e) => e.id), svg: "" }];
  return { variables: {}, stdout: "", graph: { nodes, edges }, backward, error: null, views, events,
    optimizer_steps: [], iterations: [] };
}

function eq(a, b, what = "") {
  assert.deepEqual(a, b, what);
}

test("frames: forward ops, then each backward step, then the pass end", () => {
  const tl = new Timeline(abResponse());
  eq(tl.frames.map((f) => f.kind), ["op", "op", "op", "step", "step", "step", "step", "step", "pass_end"]);
  eq(tl.frames[3].node, 5, "first step is the root");
});

test("nodes appear with the op that first uses them", () => {
  const tl = new Timeline(abResponse());
  eq(tl.nodeState(0, 0), "new", "a at frame 0");
  eq(tl.nodeState(4, 0), "hidden", "add before its frame");
  eq(tl.nodeState(4, 1), "new");
  eq(tl.nodeState(4, 2), "fwd");
  eq(tl.edgeState(4, 1), "hidden");
  eq(tl.edgeState(4, 2), "new");
});

test("backward states: current, pending, done, freed; arrows turned; gradients carried", () => {
  const tl = new Timeline(abResponse());
  eq(tl.nodeState(5, 3), "cur");
  eq(tl.nodeState(2, 3), "pending");
  eq(tl.nodeState(5, 4), "done");
  eq(tl.edgeState(4, 3), "send");
  eq(tl.edgeGrad(4, 3).data, 14);
  eq(tl.edgeState(2, 3), "bw");
  eq(tl.edgeGrad(2, 3), null);
  eq(tl.edgeState(3, 4), "nograd", "the constant's edge");
  eq(tl.edgeState(0, 7), "carried");
  eq(tl.nodeState(2, 8), "freed", "op after a pass without retain_graph");
  eq(tl.nodeState(0, 8), "done", "leaves are not freed");
});

test("retain_graph keeps the graph; a second pass revisits it", () => {
  const tl = new Timeline(abResponse({ passes: 2, retain: true }));
  eq(tl.length, 3 + 2 * 6);
  eq(tl.nodeState(2, 8), "done");
  eq(tl.nodeState(2, 9), "pending", "pass 2 started");
  eq(tl.edgeState(0, 9), "bw");
  eq(tl.chapters().map((c) => c.frame), [0, 3, 9]);
});

test(".grad appears at the step that writes it and accumulates", () => {
  const tl = new Timeline(abResponse({ passes: 2, retain: true }));
  eq(tl.gradAt(0, 6), null, "before a's step");
  eq(tl.gradAt(0, 7).data, 42, "a's step");
  eq(tl.gradAt(0, 12).data, 42, "pass 2 before a's step");
  eq(tl.gradAt(0, 13).data, 84, "accumulated");
});

test("zero_grad resets a parameter's .grad to None", () => {
  const tl = new Timeline(abResponse({ passes: 2, retain: true, zero: true }));
  const z = tl.zeroFrames[0];
  eq(tl.gradAt(0, z - 1).data, 42);
  eq(tl.gradAt(0, z), null, "param a after zero_grad");
  eq(tl.gradAt(1, z).data, 28, "b is not a parameter");
});

test("changed(i, j) lists every element whose state differs", () => {
  for (const opts of [{}, { passes: 2, retain: true }, { passes: 2, retain: true, zero: true }]) {
    const tl = new Timeline(abResponse(opts));
    for (let i = 0; i < tl.length; i++) {
      for (let j = 0; j < tl.length; j++) {
        const ch = tl.changed(i, j);
        for (const id of tl.nodes.keys()) {
          if (tl.nodeState(id, i) !== tl.nodeState(id, j) && !ch.nodes.has(id)) throw new Error(`node ${id} ${i}->${j}`);
        }
        for (const id of tl.edges.keys()) {
          const a = tl.edgeState(id, i) + shortText(tl.edgeGrad(id, i));
          const b = tl.edgeState(id, j) + shortText(tl.edgeGrad(id, j));
          if (a !== b && !ch.edges.has(id)) throw new Error(`edge ${id} ${i}->${j}`);
        }
      }
    }
  }
});

test("an error adds a last frame", () => {
  const r = abResponse();
  r.error = { type: "RuntimeError", message: "x", line: 3, col: 1 };
  const tl = new Timeline(r);
  eq(tl.frames[tl.length - 1].kind, "error");
});

test("left-out iterations: passes found by their run index, one skipped frame, one zero_grad", () => {
  const r = abResponse({ passes: 2, retain: true });
  r.backward[1].index = 7; // passes 1..6 were summarized away
  r.events = [
    ...r.events.slice(0, 4),
    ...Array.from({ length: 6 }, () => ({ kind: "zero_grad", index: null })),
    { kind: "backward", index: 7 },
  ];
  const tl = new Timeline(r);
  const kinds = tl.frames.map((f) => f.kind);
  eq(kinds.filter((k) => k === "zero_grad").length, 1);
  const sk = tl.frames.find((f) => f.kind === "skipped");
  eq([sk.from, sk.to], [2, 7]);
  eq(tl.passStart[1] > 0, true, "the pass with run index 7 is played");
});

test("player: stands at the first step, moves, clamps, keys", () => {
  const p = new Player({ schedule: () => 1, cancel: () => {} });
  const seen = [];
  p.onChange((k) => seen.push(k));
  p.load(9);
  eq(p.label(), "1 / 9");
  p.next();
  eq(p.label(), "2 / 9");
  p.goTo(100);
  eq(p.frame, 8);
  p.prev();
  eq(p.frame, 7);
  p.key("Home");
  eq(p.frame, 0);
  p.key("End");
  eq(p.frame, 8);
  p.key("ArrowLeft");
  eq(p.frame, 7);
  eq(p.key("x"), false);
  eq(seen, [0, 1, 8, 7, 0, 8, 7]);
});

test("player: play advances on the clock and pauses at the end", () => {
  const queue = [];
  const p = new Player({ schedule: (fn) => (queue.push(fn), queue.length), cancel: () => {} });
  p.load(4);
  p.play();
  eq(p.playing, true);
  while (queue.length) queue.shift()();
  eq(p.frame, 3);
  eq(p.playing, false, "paused at the end");
  p.key(" ");
  eq(p.playing, true, "space plays again from the start");
  eq(p.frame, 0);
  p.key(" ");
  eq(p.playing, false);
  p.setSpeed(4);
  eq(p.delay() < 700, true);
});

test("player: nothing to play", () => {
  const p = new Player({ schedule: () => 1, cancel: () => {} });
  p.load(0);
  eq(p.label(), "0 / 0");
  p.play();
  eq(p.playing, false);
});

test("share links round-trip (with non-ASCII text)", () => {
  const data = { source: "y = (a * b + 1) ** 2  # 梯度", variables: { a: { value: [1, 2], requires_grad: true } }, step: 7 };
  const back = decodeShare(encodeShare(data));
  eq(back, { ...data, extra: {} });
  const mlp = { ...data, extra: { mlp: { dataset: "moons", steps: 40 } } };
  eq(decodeShare(encodeShare(mlp)), mlp);
  eq(decodeShare("#s=%%%"), null);
  eq(decodeShare(""), null);
});

test("numbers inside a node: 3 significant digits", () => {
  eq(num3(0.9991), "0.999");
  eq(num3(-1.658e-6), "-1.66e-6");
  eq(num3(10), "10");
  eq(num3(-1), "-1");
  eq(num3(123456), "1.23e5");
  eq(num3(0), "0");
  eq(shortText(V([0.12345, 2], [2]), num3), "[0.123, 2]");
});

test("numbers and values as text", () => {
  eq(num(42), "42");
  eq(num(0.5), "0.5");
  eq(num(-0.00001234), "-1.234e-5");
  eq(num(1 / 3), "0.3333");
  eq(valueText(V([[1, 2], [3, 4]], [2, 2])), "[[1, 2], [3, 4]]");
  eq(valueText(null), "None");
});

test("a large tensor in a table cell: min … max, then its mean", () => {
  const big = { shape: [200], dtype: "float32", data: null, summary: { min: 0, max: 1, mean: 0.5551, norm: 10.5357 } };
  eq(compactText(big, 40, "mean"), "0 … 1\nmean 0.5551");
  eq(compactText(V([1, 2], [2])), "[1, 2]");
  eq(compactText(null), "None");
});

test("explain: a worked step's arguments name the upstream, a saved value, a number or an earlier step", () => {
  const work = { values: [{ name: "c", what: "input", value: V(10) }],
    steps: [{ op: "mul", args: [{ G: 1 }, { name: "c" }], how: {}, text: "G·c", value: V(10) }] };
  const resolve = resolver(work, V(1));
  eq(resolve({ G: 1 }).label, "G");
  eq(resolve({ G: 1 }).value.data, 1);
  eq(resolve({ name: "c" }).value.data, 10);
  eq(resolve({ num: 2 }).value, 2);
  eq(resolve({ step: 0 }).label, "G·c");
  eq(dims([2, 3]), "[2×3]");
  eq(dims([]), "");
});

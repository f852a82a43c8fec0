// Every example's real answer (written by tests/js/test_js.py into $GRADVIZ_ANSWERS, one JSON file per
// example) walked frame by frame through the pure Timeline and Player: what the page would show at
// each step, without a browser. The browser tests step through the page itself only once.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { resolver } from "../../static/js/panels/work.js";
import { Player } from "../../static/js/player.js";
import { Timeline } from "../../static/js/timeline.js";
import { frameOfPass, isTraining, keptIterations, openingFrame, passAtFrame } from "../../static/js/training_model.js";

const dir = process.env.GRADVIZ_ANSWERS;
const answers = dir
  ? readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
    .map((f) => ({ id: f.slice(0, -5), resp: JSON.parse(readFileSync(join(dir, f), "utf8")) }))
  : [];

const flatten = (x) => (Array.isArray(x) ? x.flatMap(flatten) : [x]);
function close(a, b, what) {
  const x = flatten(a);
  const y = flatten(b);
  assert.equal(x.length, y.length, what);
  x.forEach((v, i) => assert.ok(Math.abs(v - y[i]) <= 1e-6 * Math.max(1, Math.abs(y[i])), `${what}: ${v} vs ${y[i]}`));
}

test("the answers of the examples are there", { skip: !dir }, () => {
  assert.ok(answers.length >= 10, `only ${answers.length} answers in ${dir}`);
});

for (const { id, resp } of answers) {
  test(`${id}: every frame is reachable and each step lights its node`, () => {
    const tl = new Timeline(resp);
    assert.ok(tl.length >= 1);
    const p = new Player({ schedule: () => 1, cancel: () => {} });
    const seen = [];
    p.onChange((k) => seen.push(k));
    p.load(tl.length);
    for (let k = 1; k < tl.length; k++) p.key("ArrowRight");
    p.key("ArrowRight"); // stays on the last frame
    assert.deepEqual(seen, [...Array(tl.length).keys()]);
    assert.equal(p.label(), `${tl.length} / ${tl.length}`);
    p.key("Home");
    assert.equal(p.frame, 0);
    tl.frames.forEach((f, k) => {
      assert.ok(resp.views.some((v) => v.index === f.view), `frame ${k} is drawn on view ${f.view}`);
      if (f.kind === "step") assert.equal(tl.nodeState(f.node, k), "cur", `frame ${k}`);
    });
  });

  test(`${id}: every op step is explained, and its worked result is the gradient it sent`, () => {
    for (const pass of resp.backward) {
      for (const step of pass.steps) {
        const node = resp.graph.nodes.find((n) => n.id === step.node);
        if (!node || node.kind !== "op" || step.kind === "hook") continue; // a hook step: its own panel
        if (node.op === "autograd_function") { // the program's own backward: its rule is its code
          assert.ok(!step.explain && node.formulas.every((f) => f.includes(".backward(")), node.label);
          continue;
        }
        assert.ok(step.explain, `${node.label}: no explanation`);
        assert.ok(node.explain && node.label && node.sym, `${node.name}: no label, name or model`);
        const sent = new Map(step.sent.map((f) => [f.edge, f.grad]));
        step.explain.inputs.forEach((w, i) => {
          const grad = sent.get(node.inputs[i]);
          if (!grad) return assert.equal(w, null);
          assert.equal(w.ok, true, `${node.label} input ${i}`);
          const result = resolver(w, step.upstream)(w.result).value;
          close(result.data, grad.data, `${node.label} input ${i}`);
        });
      }
    }
  });

  test(`${id}: moving one frame changes only what changed() lists`, () => {
    const tl = new Timeline(resp);
    for (let k = 1; k < tl.length; k++) {
      const ch = tl.changed(k - 1, k);
      for (const nid of tl.nodes.keys()) {
        if (tl.nodeState(nid, k - 1) !== tl.nodeState(nid, k)) assert.ok(ch.nodes.has(nid), `node ${nid} at ${k}`);
      }
    }
  });

  test(`${id}: at the end each named leaf holds the .grad the program ended with`, () => {
    const tl = new Timeline(resp);
    const last = tl.length - 1;
    let checked = 0;
    for (const [name, v] of Object.entries(resp.variables)) {
      if (!v.is_leaf || v.grad === null || v.node === null) continue;
      const ids = tl.nodesNamed(name);
      const grad = ids.length > 1 ? tl.gradAtAny(ids, last) : tl.gradAt(v.node, last);
      close(grad.data, v.grad, `${name}.grad`);
      assert.ok(tl.exists(v.node, last), `${name} exists at the end`);
      checked += 1;
    }
    if (resp.backward.some((b) => b.steps.length) && !resp.iterations.length) assert.ok(checked >= 1 || !Object.keys(resp.variables).length);
  });

  test(`${id}: passes are numbered as in the run; a forward run takes its pass's number`, () => {
    const tl = new Timeline(resp);
    const ch = tl.chapters();
    ch.forEach((c, i) => {
      if (c.kind === "pass") assert.equal(c.n, tl.passes[c.pass].index + 1);
      else if (ch[i + 1] && ch[i + 1].kind === "pass" && c.n !== null) assert.equal(c.n, ch[i + 1].n);
    });
  });

  if (isTraining(resp)) {
    test(`${id}: choosing an iteration stands on it (not on the one before)`, () => {
      const tl = new Timeline(resp);
      for (const it of keptIterations(resp)) {
        const k = frameOfPass(tl, it.pass);
        assert.ok(k >= 0);
        assert.equal(passAtFrame(tl, k), it.pass, `iteration ${it.pass + 1}`);
      }
      const open = openingFrame(resp, tl);
      assert.equal(tl.frames[open].kind, "op", "a training run opens on a drawn forward graph");
      assert.ok([...tl.nodes.keys()].some((nid) => tl.nodeState(nid, open) !== "hidden"));
    });
  }
}

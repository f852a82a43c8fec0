// A timeline updated after a box was opened or closed (Timeline.reopened) is the timeline built
// from scratch: on a real folded loop's answer and what POST /api/open answers for its boxes
// (written by tests/js/test_js.py into $GRADVIZ_ANSWERS/opened), and on every example's answer.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { Aggregates } from "../../static/js/boxes.js";
import { mergeView } from "../../static/js/merge.js";
import { PartIndex } from "../../static/js/parts.js";
import { Timeline } from "../../static/js/timeline.js";

const dir = process.env.GRADVIZ_ANSWERS;
const opened = dir && existsSync(join(dir, "opened")) ? join(dir, "opened") : null;

/** Everything a timeline answers from, in a form two timelines can be compared by. */
function contents(tl) {
  const entries = (m) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  // which elements may change at each frame (a list may name one twice: compared as sets)
  const sets = (list) => list.map((l) => (l ? [...new Set(l)].sort((a, b) => a - b) : []));
  return {
    frames: tl.frames, passStart: tl.passStart, passEnd: tl.passEnd, passAt: [...tl.passAt],
    viewStart: entries(tl.viewStart), optimFrame: entries(tl.optimFrame), zeroFrames: tl.zeroFrames,
    nodes: entries(tl.nodes), edges: entries(tl.edges),
    nodeAppear: entries(tl.nodeAppear), edgeAppear: entries(tl.edgeAppear),
    nodeVisits: entries(tl.nodeVisits), edgeVisits: entries(tl.edgeVisits), writes: entries(tl.writes),
    stepAt: entries(tl.stepAt), hookFrames: entries(tl.hookFrames),
    nodeChanges: sets(tl.nodeChanges), edgeChanges: sets(tl.edgeChanges),
  };
}

function assertSame(updated, built, what) {
  const a = contents(updated);
  const b = contents(built);
  for (const key of Object.keys(b)) assert.deepEqual(a[key], b[key], `${what}: ${key}`);
  // and what the drawing asks of it, at a spread of frames
  const F = built.length;
  for (let k = 0; k < F; k += Math.max(1, Math.floor(F / 50))) {
    for (const id of built.nodes.keys()) assert.equal(updated.nodeState(id, k), built.nodeState(id, k), `${what}: node ${id} at ${k}`);
    for (const id of built.edges.keys()) {
      assert.equal(updated.edgeState(id, k), built.edgeState(id, k), `${what}: edge ${id} at ${k}`);
      assert.deepEqual(updated.edgeGrad(id, k), built.edgeGrad(id, k), `${what}: edge ${id}'s gradient at ${k}`);
    }
  }
}

test("the answers with boxes opened and closed are there", { skip: !dir }, () => {
  assert.ok(opened && readdirSync(opened).length >= 1, "no opened/ answers");
});

for (const file of opened ? readdirSync(opened).filter((f) => f.endsWith(".json")) : []) {
  test(`${file}: opening and closing boxes updates the timeline to what a new one gives`, () => {
    const { run, opens } = JSON.parse(readFileSync(join(opened, file), "utf8"));
    let tl = new Timeline(run);
    const hidden = tl.frames.filter((f) => f.hidden).length;
    assert.ok(hidden > 100, `the folded answer hides the loop's frames (${hidden})`);
    for (const { view, open, data } of opens) {
      mergeView(run, view, data);
      const updated = tl.reopened(run);
      assert.notEqual(updated, tl, "a new timeline object (caches keyed by it start again)");
      assertSame(updated, new Timeline(run), `open [${open}]`);
      tl = updated;
    }
    assert.ok(tl.frames.filter((f) => f.hidden).length < hidden, "opening brought the data of hidden frames");
  });
}

for (const f of dir ? readdirSync(dir).filter((x) => x.endsWith(".json")).sort() : []) {
  test(`${f.slice(0, -5)}: an update with nothing new gives the same timeline`, () => {
    const resp = JSON.parse(readFileSync(join(dir, f), "utf8"));
    assertSame(new Timeline(resp).reopened(resp), new Timeline(resp), f);
  });
}

for (const file of opened ? readdirSync(opened).filter((f) => f.endsWith(".json")) : []) {
  test(`${file}: each drawing's boxes and segments change look only where changed() says`, () => {
    const { run, opens } = JSON.parse(readFileSync(join(opened, file), "utf8"));
    for (const { view, data } of opens.slice(0, 3)) {
      mergeView(run, view, data);
      const tl = new Timeline(run);
      const index = new PartIndex(run);
      const v = run.views[view];
      const open = new Set(v.open || []);
      const boxes = [...index.parts.keys()].filter((p) => !open.has(p) && index.parts.get(p).view === view);
      const agg = new Aggregates(tl, index, open, boxes, v.segments || {});
      assert.ok(agg.boxes.size + agg.segs.size > 0, "the drawing has boxes or segments");
      const look = (k) => new Map([...[...agg.boxes.keys()].map((b) => [b, agg.boxState(b, k)]),
        ...[...agg.segs.keys()].map((s) => [s, agg.segState(s, k)])]);
      let prev = look(0);
      const seen = new Set();
      for (let k = 1; k < tl.length; k++) {
        const now = look(k);
        const named = agg.changed(k - 1, k);
        for (const [id, s] of now) {
          if (s !== prev.get(id)) {
            assert.ok(named.has(id), `${id} changes from ${prev.get(id)} to ${s} at frame ${k}`);
            seen.add(s);
          }
        }
        // and a jump names all that a walk would
        prev = now;
      }
      assert.ok(seen.has("cur") && seen.has("done"), [...seen].join(" "));
      const k = Math.floor(tl.length / 2);
      const walked = new Set();
      for (let i = 1; i <= k; i++) for (const id of agg.changed(i - 1, i)) walked.add(id);
      assert.deepEqual([...agg.changed(0, k)].sort(), [...walked].sort());
      // a box holds the frames of the nodes inside it
      for (let i = 0; i < tl.length; i++) {
        const b = agg.boxAt(i);
        if (b !== null) assert.equal(index.boxOf(tl.frames[i].node, open), b);
      }
    }
  });
}

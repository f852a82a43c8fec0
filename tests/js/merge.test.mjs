// Joining what POST /api/open answers into the run's answer the page holds (static/js/merge.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { mergeHeat, mergeView } from "../../static/js/merge.js";

const answer = () => ({
  graph: { nodes: [{ id: 0 }, { id: 5 }], edges: [{ id: 1 }] },
  backward: [{ index: 0, steps: [{ index: 0, node: 5 }], hidden: [{ index: 1, nodes: [3, 2] }] }],
  parts: [{ view: 0, id: "loop" }],
  views: [{ index: 0, nodes: [0, 5], edges: [1], svg: "<svg/>" }],
  lenses: { heat: [{ pass_index: 0, edges: [{ edge: 1, norm: 2, log10: 0.301 }], params: [] }] },
});

test("an opened part's nodes, edges, steps and heat join the answer; what was known stays", () => {
  const resp = answer();
  mergeView(resp, 0, {
    graph: { nodes: [{ id: 3 }, { id: 2 }], edges: [{ id: 4 }, { id: 1 }] },
    backward: [{ index: 0, steps: [{ index: 1, node: 3 }, { index: 2, node: 2 }], hidden: [] }],
    parts: [{ view: 0, id: "loop/0" }],
    views: [{ index: 0, nodes: [2, 3, 5], edges: [1, 4], svg: "<svg id=new/>" }],
    heat: [{ pass_index: 0, edges: [{ edge: 4, norm: 0.1, log10: -1 }], params: [] }],
  });
  assert.deepEqual(resp.graph.nodes.map((n) => n.id), [0, 2, 3, 5]);
  assert.deepEqual(resp.graph.edges.map((e) => e.id), [1, 4]);
  assert.deepEqual(resp.backward[0].steps.map((s) => s.index), [0, 1, 2]);
  assert.deepEqual(resp.backward[0].hidden, []);
  assert.deepEqual(resp.views[0].nodes, [0, 2, 3, 5]);
  assert.equal(resp.views[0].svg, "<svg id=new/>");
  assert.deepEqual(resp.parts.map((p) => p.id), ["loop/0"]);
  assert.deepEqual(resp.lenses.heat[0].edges.map((e) => [e.edge, e.log10]), [[1, 0.301], [4, -1]]);
});

test("heat for a pass the answer has no heat for, or an answer without lenses, changes nothing", () => {
  const resp = answer();
  mergeHeat(resp, [{ pass_index: 7, edges: [{ edge: 9, norm: 1, log10: 0 }], params: [] }]);
  assert.deepEqual(resp.lenses.heat[0].edges.map((e) => e.edge), [1]);
  const bare = { lenses: null };
  mergeHeat(bare, [{ pass_index: 0, edges: [], params: [] }]);
  assert.equal(bare.lenses, null);
});

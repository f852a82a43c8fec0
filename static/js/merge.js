/**
 * Folding one view of an answer in another: what POST /api/open answers (the view drawn at its new
 * open set, the nodes it shows, its passes and parts) joins the run's answer the page holds. Nodes
 * and steps already known stay (closing a part hides them from the drawing, not from the answer);
 * the frames do not change (the run is the same). Plain logic, no DOM.
 */

/** Merge `data` (an OpenResponse for view `view`) into `resp` (a RunResponse), in place. */
export function mergeView(resp, view, data) {
  const nodes = new Map(resp.graph.nodes.map((n) => [n.id, n]));
  for (const n of data.graph.nodes) nodes.set(n.id, n);
  resp.graph.nodes = [...nodes.values()].sort((a, b) => a.id - b.id);
  const edges = new Map(resp.graph.edges.map((e) => [e.id, e]));
  for (const e of data.graph.edges) edges.set(e.id, e);
  resp.graph.edges = [...edges.values()].sort((a, b) => a.id - b.id);
  const fresh = new Map(data.backward.map((p) => [p.index, p]));
  resp.backward = resp.backward.map((p) => (fresh.has(p.index) ? mergePass(p, fresh.get(p.index)) : p));
  resp.parts = (resp.parts || []).filter((p) => p.view !== view).concat(data.parts);
  mergeHeat(resp, data.heat || []);
  const old = resp.views[view];
  const v = data.views[0];
  const known = new Set(old.nodes);
  for (const id of v.nodes) known.add(id);
  const knownEdges = new Set(old.edges);
  for (const id of v.edges) knownEdges.add(id);
  resp.views[view] = {
    ...old, ...v, index: old.index,
    nodes: [...known].sort((a, b) => a - b), edges: [...knownEdges].sort((a, b) => a - b),
  };
}

/** A pass with every step either of them holds in full; the others stay hidden (by node id). */
export function mergePass(old, neu) {
  const full = new Map(old.steps.map((s) => [s.index, s]));
  for (const s of neu.steps) full.set(s.index, s);
  const hidden = [];
  for (const run of neu.hidden || []) {
    run.nodes.forEach((node, i) => {
      const index = run.index + i;
      if (full.has(index)) return;
      const last = hidden[hidden.length - 1];
      if (last && last.index + last.nodes.length === index) last.nodes.push(node);
      else hidden.push({ index, nodes: [node] });
    });
  }
  return { ...neu, steps: [...full.values()].sort((a, b) => a.index - b.index), hidden };
}

/** The gradient heat of the edges the part brought, added to each pass's heat (edges by id; in
 * place, so a view that holds a pass's heat sees the new edges). */
export function mergeHeat(resp, heat) {
  if (!resp.lenses || !resp.lenses.heat) return;
  const byPass = new Map(heat.map((h) => [h.pass_index, h]));
  for (const h of resp.lenses.heat) {
    const neu = byPass.get(h.pass_index);
    if (!neu) continue;
    const edges = new Map(h.edges.map((e) => [e.edge, e]));
    for (const e of neu.edges) edges.set(e.edge, e);
    h.edges = [...edges.values()].sort((a, b) => a.edge - b.edge);
  }
}

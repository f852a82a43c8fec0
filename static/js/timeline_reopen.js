/**
 * Updating a timeline after a part of one of its views was opened or closed (merge.js joined what
 * POST /api/open answered into the run's answer). The run is the same, so the frames are too; what
 * changed is which nodes, steps and edges the answer holds. Only what is keyed by the nodes whose
 * data changed and by the edges into them is worked out again (a few hundred frames instead of
 * every frame of a long run), with the Timeline's own per-frame indexing (timeline.js), so the
 * result is what a new Timeline gives.
 */

import { NONE, buildFrames, push } from "./timeline_frames.js";

/** The frames where element `id` may change look (as Timeline._changes marks them; kind "node" or "edge"). */
function marks(tl, kind, id) {
  const F = tl.frames.length;
  const out = new Set();
  const mark = (k) => {
    if (k >= 0 && k <= F) out.add(k);
  };
  const appear = (kind === "node" ? tl.nodeAppear : tl.edgeAppear).get(id);
  if (appear !== undefined) {
    mark(appear);
    mark(appear + 1);
  }
  for (const v of (kind === "node" ? tl.nodeVisits : tl.edgeVisits).get(id) || []) {
    mark(tl.passStart[v.pass]);
    mark(tl.passEnd[v.pass] + 1);
    if (v.frame !== NONE) {
      mark(v.frame);
      mark(v.frame + 1);
    }
  }
  if (kind === "node") {
    for (const k of [...(tl.hookFrames.get(id) || []), ...(tl.updateFrames.get(id) || [])]) {
      mark(k);
      mark(k + 1);
    }
  }
  return out;
}

/**
 * Update `tl` (a copy of timeline `old` sharing its indexes) to answer `resp`; false when it cannot
 * be (the frames would differ, or the answer lost data): the caller builds a new Timeline then.
 */
export function reindex(tl, old, resp) {
  tl.resp = resp;
  tl.passes = resp.backward;
  tl._elements(resp);
  for (const id of old.nodes.keys()) if (!tl.nodes.has(id)) return false;
  tl._nodeView = tl._indexViews(resp.views);
  buildFrames(tl, resp);
  const touched = touchedNodes(tl, old);
  if (touched === null) return false;
  tl._byName = null;
  if (!touched.size) return true;
  const { edgesInto, sources } = reachOf(tl, old, touched);
  const before = {
    node: new Map([...sources].map((id) => [id, marks(tl, "node", id)])),
    edge: new Map([...edgesInto].map((id) => [id, marks(tl, "edge", id)])),
  };
  forget(tl, touched, edgesInto, sources);
  indexAgain(tl, touched, sources);
  // The frames where those elements may change look: as a full build marks them.
  remark(tl, tl.nodeChanges, "node", before.node);
  remark(tl, tl.edgeChanges, "edge", before.edge);
  return true;
}

/**
 * Nodes whose frames changed (their op or steps now with data), nodes new to the answer, and the
 * targets of edges that are new, gone or changed; null when the frames differ from `old`'s.
 */
function touchedNodes(tl, old) {
  if (tl.frames.length !== old.frames.length) return null;
  const touched = new Set();
  for (let k = 0; k < tl.frames.length; k++) {
    const f = tl.frames[k];
    const g = old.frames[k];
    if (f.kind !== g.kind || f.node !== g.node || f.pass !== g.pass || f.view !== g.view || f.index !== g.index ||
      f.from !== g.from || f.to !== g.to) return null;
    if (f.hidden !== g.hidden) touched.add(f.node);
  }
  for (const id of tl.nodes.keys()) if (!old.nodes.has(id)) touched.add(id);
  const same = (a, b) => a.source === b.source && a.target === b.target && a.needs_grad === b.needs_grad && !a.hidden === !b.hidden;
  for (const [eid, e] of tl.edges) {
    const was = old.edges.get(eid);
    if (!was || !same(was, e)) {
      touched.add(e.target);
      if (was) touched.add(was.target);
    }
  }
  for (const [eid, e] of old.edges) if (!tl.edges.has(eid)) touched.add(e.target);
  return touched;
}

/**
 * The edges whose entries come from the touched nodes' frames (those into them), and the nodes
 * those edges come from (a leaf appears with the first op that reads it), before and after.
 */
function reachOf(tl, old, touched) {
  const edgesInto = new Set();
  const sources = new Set(touched);
  const addEdges = (edges, also) => {
    for (const e of edges.values()) {
      if (!touched.has(e.target)) continue;
      edgesInto.add(e.id);
      if (e.source !== null) sources.add(e.source);
    }
    for (const id of touched) {
      for (const k of tl._framesOf.get(id) || []) {
        const f = also.frames[k];
        const step = f.kind === "step" && !f.hidden ? also.passes[f.pass].steps[f.step] : null;
        if (step) for (const fl of step.sent) edgesInto.add(fl.edge);
      }
    }
  };
  addEdges(old.edges, old);
  addEdges(tl.edges, tl);
  return { edgesInto, sources };
}

/** Drop the entries of the touched nodes, the edges into them and their sources' appearances. */
function forget(tl, touched, edgesInto, sources) {
  for (const id of touched) {
    tl.nodeVisits.delete(id);
    tl.writes.delete(id);
    tl.hookFrames.delete(id);
    for (const k of tl._framesOf.get(id) || []) {
      const f = tl.frames[k];
      if (f.kind === "step") tl.stepAt.delete(`${f.pass}:${id}`);
    }
  }
  for (const eid of edgesInto) {
    tl.edgeAppear.delete(eid);
    tl.edgeVisits.delete(eid);
  }
  for (const id of sources) tl.nodeAppear.delete(id);
}

/** Each touched node's frames in order, then the edges its steps sent nothing along, pass by pass. */
function indexAgain(tl, touched, sources) {
  const into = tl._edgesInto();
  const steps = [];
  for (const id of touched) {
    for (const k of tl._framesOf.get(id) || []) {
      const f = tl.frames[k];
      tl._indexFrame(f, k, into, false);
      if (f.kind === "step" && !f.hidden) steps.push(f);
    }
  }
  steps.sort((a, b) => a.pass - b.pass || a.index - b.index);
  for (const f of steps) if (tl.passStart[f.pass] !== NONE) tl._indexUnsent(f.pass, tl.passes[f.pass].steps[f.step]);
  for (const id of sources) {
    const k = appearOf(tl, id, into);
    if (k !== NONE) tl.nodeAppear.set(id, k);
  }
}

/**
 * The frame node id appears at, as a full build finds it: its own op frame, else the first op
 * frame that reads one of its edges (a leaf); NONE when neither.
 */
function appearOf(tl, id, into) {
  let own = NONE;
  for (const k of tl._framesOf.get(id) || []) if (tl.frames[k].kind === "op") own = k;
  if (own !== NONE) return own;
  if (!tl._bySource || tl._bySource.edges !== tl.edges) {
    tl._bySource = new Map();
    tl._bySource.edges = tl.edges;
    for (const e of tl.edges.values()) if (e.source !== null) push(tl._bySource, e.source, e.id);
  }
  let first = Infinity;
  for (const eid of tl._bySource.get(id) || []) {
    const target = tl.edges.get(eid).target;
    if (!tl._reads(target, into).includes(eid)) continue;
    for (const k of tl._framesOf.get(target) || []) if (tl.frames[k].kind === "op" && k < first) first = k;
  }
  return first === Infinity ? NONE : first;
}

/** Elements (`before`: id -> the frames they were marked at) marked again from their new entries. */
function remark(tl, list, kind, before) {
  const drop = new Map(); // frame -> ids no longer marked there
  for (const [id, was] of before) {
    const now = marks(tl, kind, id);
    for (const k of was) {
      if (now.has(k)) continue;
      if (!drop.has(k)) drop.set(k, new Set());
      drop.get(k).add(id);
    }
    for (const k of now) {
      if (was.has(k)) continue;
      if (list[k]) list[k].push(id);
      else list[k] = [id];
    }
  }
  for (const [k, ids] of drop) {
    const kept = list[k].filter((id) => !ids.has(id));
    list[k] = kept.length ? kept : null;
  }
}

/**
 * The timeline of a run: plain logic, no DOM.
 *
 * A RunResponse (app/schemas/run.py) becomes a list of frames in program order:
 *   {kind: "op", node}              a forward op was recorded (its node appears)
 *   {kind: "step", pass, step, node} one node visited by a backward pass
 *   {kind: "pass_end", pass}        the pass is over: freed (or kept) graph, the .grad written
 *   {kind: "optim", index}          an optimizer step
 *   {kind: "update", index, target} an in-place change no op records (response.updates[index]) of
 *                                   node target's value or .grad (`w -= lr * w.grad`, `w.grad.zero_()`)
 *   {kind: "zero_grad"}             gradients reset
 *   {kind: "skipped", from, to}     training iterations left out of the response (1-based)
 *   {kind: "error"}                 the run stopped with an error here
 * Every frame carries `view`: the drawing (response.views) it is shown on. A frame of a node hidden
 * in a closed part (the answer names it by id only: an `ops` event, a pass's `hidden` steps) has
 * `hidden: true` and, for a step, `step: -1`; opening the part later brings its data, and the frames
 * stay the same (the run is the same), so the player keeps its place.
 *
 * For any frame k the timeline answers what each node and edge looks like
 * (nodeState / edgeState), which value and .grad a tensor holds (valueAt, gradAt: optimizer steps
 * and in-place updates change them) and which elements can change between two frames (changed), so
 * the drawing updates only those. The frames are built in timeline_frames.js.
 */

import { NONE, buildFrames, push } from "./timeline_frames.js";
import { reindex } from "./timeline_reopen.js";

/** Build the frames and the per-element indexes of one run. */
export class Timeline {
  constructor(resp) {
    this.resp = resp;
    this._elements(resp);
    this.passes = resp.backward;
    this._nodeView = this._indexViews(resp.views);
    buildFrames(this, resp);
    this._framesOf = new Map(); // node -> the frames that show it (its op, its steps), in order
    this.frames.forEach((f, k) => {
      if (f.node !== undefined) push(this._framesOf, f.node, k);
    });
    this._indexElements();
  }

  /** The answer's nodes and edges by id (this.nodes, this.edges). */
  _elements(resp) {
    const graph = resp.graph;
    this.nodes = new Map(graph.nodes.map((n) => [n.id, n]));
    this.edges = new Map(graph.edges.map((e) => [e.id, e]));
    // Edges into or out of closed parts are known from the views' links: id, target, shape only.
    for (const v of resp.views) {
      for (const ln of v.links || []) {
        ln.edges.forEach((eid, i) => {
          if (!this.edges.has(eid)) {
            this.edges.set(eid, { id: eid, source: null, target: ln.targets[i], shape: ln.shape, needs_grad: ln.needs_grad, hidden: true });
          }
        });
      }
    }
  }

  get length() {
    return this.frames.length;
  }

  _indexViews(views) {
    const map = new Map();
    for (const v of views) for (const id of v.nodes) if (!map.has(id)) map.set(id, v.index);
    return map;
  }

  _viewOf(nodeId, fallback) {
    const v = this._nodeView.get(nodeId);
    return v === undefined ? fallback : v;
  }

  _indexElements() {
    const F = this.frames.length;
    this.nodeAppear = new Map();
    this.edgeAppear = new Map();
    this.nodeVisits = new Map(); // node -> [{pass, frame}]
    this.edgeVisits = new Map(); // edge -> [{pass, frame (carry or NONE), grad}]
    this.writes = new Map(); // node -> [{frame, before, after}]
    this.stepAt = new Map(); // `${pass}:${node}` -> frame
    this.hookFrames = new Map(); // node -> frames where a tensor hook of the program ran on its gradient
    this.passAt = new Int32Array(F).fill(NONE);
    const into = this._edgesInto();
    this.frames.forEach((f, k) => this._indexFrame(f, k, into, true));
    // Edges into visited ops that sent nothing along them (no grad needed) still belong to the pass.
    this.passes.forEach((p, pi) => {
      if (this.passStart[pi] === NONE) return;
      for (const s of p.steps) this._indexUnsent(pi, s);
    });
    for (let pi = 0; pi < this.passes.length; pi++) {
      if (this.passStart[pi] === NONE) continue;
      this.passAt.fill(pi, this.passStart[pi]);
    }
    this._changes(F);
  }

  /**
   * What frame k says about its node and the edges into it. `sources`: the nodes its op reads
   * appear here unless they appeared before (an update works those out on its own, see reopened).
   */
  _indexFrame(f, k, into, sources) {
    if (f.kind === "op") {
      this.nodeAppear.set(f.node, k);
      for (const eid of this._reads(f.node, into)) {
        const e = this.edges.get(eid);
        if (!e) continue;
        this.edgeAppear.set(eid, k);
        if (sources && e.source !== null && !this.nodeAppear.has(e.source)) this.nodeAppear.set(e.source, k);
      }
    } else if (f.kind === "step") {
      if (!f.hidden && this.passes[f.pass].steps[f.step].kind === "hook") {
        push(this.hookFrames, f.node, k); // the node is current; nothing is sent or written yet
        return;
      }
      push(this.nodeVisits, f.node, { pass: f.pass, frame: k });
      this.stepAt.set(`${f.pass}:${f.node}`, k);
      if (f.hidden) {
        // no values: the edges into the hidden node carried a gradient at its step
        for (const eid of into.get(f.node) || []) {
          const e = this.edges.get(eid);
          push(this.edgeVisits, eid, { pass: f.pass, frame: e.needs_grad ? k : NONE, grad: null });
        }
        return;
      }
      const step = this.passes[f.pass].steps[f.step];
      for (const fl of step.sent) {
        push(this.edgeVisits, fl.edge, { pass: f.pass, frame: fl.grad ? k : NONE, grad: fl.grad });
      }
      if (step.grad_after) push(this.writes, f.node, { frame: k, before: step.grad_before, after: step.grad_after });
    }
  }

  /** The edges an op frame of node id reads: its inputs, or (no data) the known edges into it. */
  _reads(id, into) {
    const op = this.nodes.get(id);
    return op ? op.inputs : into.get(id) || [];
  }

  /** Step s of pass pi: the edges into its op that carried nothing (no grad needed). */
  _indexUnsent(pi, s) {
    const op = this.nodes.get(s.node);
    if (!op || op.kind !== "op" || s.kind === "hook") return;
    const sent = new Set(s.sent.map((fl) => fl.edge));
    for (const eid of op.inputs) {
      if (!sent.has(eid)) push(this.edgeVisits, eid, { pass: pi, frame: NONE, grad: null });
    }
  }

  /** Known edges by target node (for nodes without data: only their edges are known). */
  _edgesInto() {
    const out = new Map();
    for (const e of this.edges.values()) if (!this.nodes.has(e.target)) push(out, e.target, e.id);
    return out;
  }

  _changes(F) {
    // Most frames change a few elements and many none: a list only where there is one (allocating
    // an empty list per frame was a good share of rebuilding a long run's timeline).
    this.nodeChanges = new Array(F + 1).fill(null);
    this.edgeChanges = new Array(F + 1).fill(null);
    const mark = (list, k, id) => {
      if (k < 0 || k > F) return;
      if (list[k]) list[k].push(id);
      else list[k] = [id];
    };
    const all = (list, appear, visits) => {
      for (const [id, k] of appear) {
        mark(list, k, id);
        mark(list, k + 1, id);
      }
      for (const [id, vs] of visits) {
        for (const v of vs) {
          mark(list, this.passStart[v.pass], id);
          mark(list, this.passEnd[v.pass] + 1, id);
          if (v.frame !== NONE) {
            mark(list, v.frame, id);
            mark(list, v.frame + 1, id);
          }
        }
      }
    };
    all(this.nodeChanges, this.nodeAppear, this.nodeVisits);
    all(this.edgeChanges, this.edgeAppear, this.edgeVisits);
    for (const frames of [this.hookFrames, this.updateFrames]) {
      for (const [id, ks] of frames) {
        for (const k of ks) {
          mark(this.nodeChanges, k, id);
          mark(this.nodeChanges, k + 1, id);
        }
      }
    }
  }

  /**
   * The timeline of `resp` after one of its views had a part opened or closed (merge.js: the same
   * run, so the same frames; the answer now holds the data of more nodes, steps and edges, or its
   * views link other edges). Gives what `new Timeline(resp)` gives, but works out again only what
   * is keyed by the nodes whose data changed and the edges into them, instead of every frame of the
   * run (timeline_reopen.js). This timeline must not be used afterwards: the new one takes over its
   * indexes and changes them. When the frames would differ (or the answer lost data), the new one
   * is built from scratch.
   */
  reopened(resp) {
    const tl = Object.create(Timeline.prototype);
    Object.assign(tl, this);
    return reindex(tl, this, resp) ? tl : new Timeline(resp);
  }

  /** Node and edge ids whose look may differ between frames i and j. */
  changed(i, j) {
    const lo = Math.min(i, j) + 1;
    const hi = Math.min(Math.max(i, j), this.frames.length);
    const nodes = new Set();
    const edges = new Set();
    for (let k = Math.max(lo, 0); k <= hi; k++) {
      for (const id of this.nodeChanges[k] || []) nodes.add(id);
      for (const id of this.edgeChanges[k] || []) edges.add(id);
    }
    return { nodes, edges };
  }

  _latest(list, k) {
    // The entry of the last pass that had started by frame k.
    let found = null;
    if (!list) return null;
    for (const v of list) if (this.passStart[v.pass] <= k) found = v;
    return found;
  }

  /** 'hidden' | 'new' | 'fwd' | 'pending' | 'cur' | 'done' | 'freed' */
  nodeState(id, k) {
    const appear = this.nodeAppear.has(id) ? this.nodeAppear.get(id) : 0;
    if (k < appear) return "hidden";
    const hooked = this.hookFrames.get(id);
    if (hooked && hooked.includes(k)) return "cur";
    const updated = this.updateFrames.get(id);
    if (updated && updated.includes(k)) return "cur";
    const v = this._latest(this.nodeVisits.get(id), k);
    if (!v) return appear === k && this.frames.length ? "new" : "fwd";
    if (v.frame === k) return "cur";
    if (v.frame > k) return "pending";
    const node = this.nodes.get(id);
    if (k > this.passEnd[v.pass] && this.passes[v.pass].freed && node && node.kind === "op") return "freed";
    return "done";
  }

  /** 'hidden' | 'new' | 'fwd' | 'nograd' | 'bw' | 'send' | 'carried' */
  edgeState(id, k) {
    const appear = this.edgeAppear.has(id) ? this.edgeAppear.get(id) : 0;
    if (k < appear) return "hidden";
    const v = this._latest(this.edgeVisits.get(id), k);
    if (!v) return appear === k && this.frames.length ? "new" : "fwd";
    if (v.frame === NONE) return "nograd";
    if (v.frame === k) return "send";
    return v.frame < k ? "carried" : "bw";
  }

  /** The gradient (a Value) an edge carried by frame k in the latest pass, or null. */
  edgeGrad(id, k) {
    const v = this._latest(this.edgeVisits.get(id), k);
    return v && v.frame !== NONE && v.frame <= k ? v.grad : null;
  }

  /** The .grad a tensor node holds at frame k: a Value or null (None). */
  gradAt(id, k) {
    let w = null;
    for (const ws of [this.writes.get(id), this.gradUpdates.get(id)]) {
      if (ws) for (const x of ws) if (x.frame <= k && (!w || x.frame > w.frame)) w = x;
    }
    let z = NONE;
    for (const f of this.zeroFrames) if (f <= k) z = f;
    const node = this.nodes.get(id);
    if (z !== NONE && z > (w ? w.frame : NONE) && node && node.is_param) return null;
    if (w) return w.after;
    return null;
  }

  /**
   * The gradient of node id's output known at frame k: a leaf's .grad; for an op, the upstream
   * gradient it received in the latest pass, once that pass has visited it (else null).
   */
  outputGrad(id, k) {
    const node = this.nodes.get(id);
    if (!node || node.kind === "leaf") return this.gradAt(id, k);
    const v = this._latest(this.nodeVisits.get(id), k);
    if (!v || v.frame > k) return null;
    return this.passes[v.pass].steps[this.frames[v.frame].step].upstream;
  }

  /** Graph nodes the user bound to `name` (a loop rebinding a name makes several), by id. */
  nodesNamed(name) {
    if (!this._byName) {
      this._byName = new Map();
      for (const n of this.nodes.values()) if (n.var) push(this._byName, n.var, n.id);
    }
    return this._byName.get(name) || [];
  }

  /** The .grad at frame k of a name bound to several nodes: the latest write to any of them. */
  gradAtAny(ids, k) {
    let best = null;
    let param = false;
    for (const id of ids) {
      const node = this.nodes.get(id);
      if (node && node.is_param) param = true;
      for (const ws of [this.writes.get(id), this.gradUpdates.get(id)]) {
        for (const x of ws || []) if (x.frame <= k && (!best || x.frame > best.frame)) best = x;
      }
    }
    let z = NONE;
    for (const f of this.zeroFrames) if (f <= k) z = f;
    if (param && z !== NONE && z > (best ? best.frame : NONE)) return null;
    return best ? best.after : null;
  }

  /**
   * The value the tensor of node id holds at frame k: what the last optimizer step or in-place
   * update of it by then left; before the first one, what that one started from.
   */
  valueAt(id, k) {
    const ws = this.valueWrites.get(id);
    if (ws) {
      let w = null;
      for (const x of ws) if (x.frame <= k) w = x;
      return w ? w.after : ws[0].before;
    }
    const node = this.nodes.get(id);
    return node ? node.value : null;
  }

  /**
   * The frame from which the tensor of node id exists. An op's output exists from its op's frame. A
   * leaf is recorded when an op first reads it, but the program made it earlier (the data of a
   * training loop before the loop's zero_grad): it exists from the start of the drawing it is on.
   */
  createdAt(id) {
    const appear = this.nodeAppear.has(id) ? this.nodeAppear.get(id) : 0;
    const node = this.nodes.get(id);
    const f = this.frames[appear];
    if (!node || node.kind !== "leaf" || !f) return appear;
    // (a tensor's node after an in-place update stands for it from that update on)
    return Math.max(Math.min(appear, this.viewStart.get(f.view)), this.bornAt.get(id) ?? 0);
  }

  /** Does the tensor of node id exist at frame k? */
  exists(id, k) {
    return k >= this.createdAt(id);
  }

  /** The frame at which pass p visits node id, or -1. */
  stepFrame(p, id) {
    const f = this.stepAt.get(`${p}:${id}`);
    return f === undefined ? NONE : f;
  }

  /** How many steps pass pi has (those hidden in closed parts too). */
  stepCount(pi) {
    const p = this.passes[pi];
    return p.steps.length + (p.hidden || []).reduce((n, run) => n + run.nodes.length, 0);
  }

  /** The backward step shown at frame k (or null; null too for a step hidden in a closed part). */
  step(k) {
    const f = this.frames[k];
    return f && f.kind === "step" && !f.hidden ? this.passes[f.pass].steps[f.step] : null;
  }

  /**
   * Chapters for the pass chooser: each run of forward ops and each backward pass, in order. Passes
   * are numbered as in the whole run (n: 1-based; middle iterations of a training loop are left
   * out); a forward run takes the number of the backward pass that follows it, so "Forward pass 98"
   * sits before "Backward pass 98". A single forward run has no number (n null).
   */
  chapters() {
    const out = [];
    this.frames.forEach((f, k) => {
      const prev = this.frames[k - 1];
      if (f.kind === "op" && (!prev || prev.kind !== "op")) out.push({ kind: "forward", frame: k, n: 0 });
      else if (f.kind === "step" && this.passStart[f.pass] === k) {
        out.push({ kind: "pass", pass: f.pass, frame: k, view: this.passes[f.pass].view, n: this.passes[f.pass].index + 1 });
      }
    });
    const forwards = out.filter((c) => c.kind === "forward");
    let last = 0;
    out.forEach((c, i) => {
      if (c.kind !== "forward") {
        last = c.n;
        return;
      }
      const next = out[i + 1];
      c.n = next && next.kind === "pass" ? next.n : last + 1;
      last = c.n;
    });
    if (forwards.length === 1) forwards[0].n = null;
    return out;
  }
}

export function buildTimeline(resp) {
  return new Timeline(resp);
}

/** The frames of a run in program order, built from its events (the first half of a Timeline: timeline.js). */

export const NONE = -1;

/** Append item to the list of `key` in map (a list made on first use). */
export function push(map, key, item) {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}

/**
 * Fill tl.frames and what is keyed by frame from the events of `resp`: each pass's first and last
 * step frame, the optimizer steps' frames, zero_grad frames, the writes of optimizer steps and
 * in-place updates by node, and each view's first frame.
 */
export function buildFrames(tl, resp) {
  tl.frames = [];
  tl.passStart = tl.passes.map(() => NONE);
  tl.passEnd = tl.passes.map(() => NONE);
  tl.optimFrame = new Map();
  tl.zeroFrames = [];
  // What optimizer steps and in-place updates did, by node: [{frame, before, after}] in frame order
  // (they come from the events alone, so they stay when a part opens: timeline_reopen.js).
  tl.valueWrites = new Map(); // the tensor's value
  tl.gradUpdates = new Map(); // its .grad (`w.grad.zero_()`, zero_grad())
  tl.updateFrames = new Map(); // node -> the frames that update it
  tl.bornAt = new Map(); // a tensor's node after an in-place update -> the update's frame
  // Events name passes and optimizer steps by their index in the run; middle iterations of a
  // long training loop are left out of the response, so look them up by that index.
  const updates = resp.updates || [];
  const run = {
    tl, resp, updates, view: 0, lastPass: -1,
    passAt: new Map(tl.passes.map((p, i) => [p.index, i])),
    optimAt: new Map(resp.optimizer_steps.map((o, i) => [o.index, i])),
    updateAt: new Map(updates.map((u, i) => [u.index, i])),
  };
  for (const ev of resp.events) {
    if (Object.hasOwn(ON, ev.kind)) ON[ev.kind](run, ev);
  }
  if (resp.error) tl.frames.push({ kind: "error", view: run.view });
  tl.viewStart = new Map(); // view -> its first frame
  tl.frames.forEach((f, k) => {
    if (!tl.viewStart.has(f.view)) tl.viewStart.set(f.view, k);
  });
}

/** The frames each kind of event adds (`run`: the timeline, the answer and where the walk is). */
const ON = {
  op(run, ev) {
    const tl = run.tl;
    if (!tl.nodes.has(ev.index)) return; // an op of a summarized iteration
    run.view = tl._viewOf(ev.index, run.view);
    tl.frames.push({ kind: "op", node: ev.index, view: run.view });
  },
  ops(run, ev) {
    // ops hidden in closed parts (their data arrives when the part is opened)
    const tl = run.tl;
    const view = (run.view = ev.view ?? run.view);
    for (const id of ev.nodes) tl.frames.push(tl.nodes.has(id) ? { kind: "op", node: id, view } : { kind: "op", node: id, view, hidden: true });
  },
  backward(run, ev) {
    const tl = run.tl;
    const pi = run.passAt.get(ev.index);
    if (pi === undefined) return;
    const p = tl.passes[pi];
    const runIndex = p.index;
    if (runIndex > run.lastPass + 1 && run.lastPass >= 0) {
      tl.frames.push({ kind: "skipped", from: run.lastPass + 2, to: runIndex, view: run.view });
    }
    run.lastPass = runIndex;
    const start = tl.frames.length;
    const view = (run.view = p.view);
    for (const [si, node, index] of stepOrder(p)) {
      if (si >= 0 && tl.nodes.has(node)) tl.frames.push({ kind: "step", pass: pi, step: si, index, node, view });
      else if (si < 0) tl.frames.push({ kind: "step", pass: pi, step: -1, index, node, view, hidden: true });
    }
    if (tl.frames.length > start) {
      tl.passStart[pi] = start;
      tl.passEnd[pi] = tl.frames.length - 1;
      // One frame after the last step: the pass is over (the graph shows as freed or kept).
      tl.frames.push({ kind: "pass_end", pass: pi, view });
    }
  },
  optim(run, ev) {
    const tl = run.tl;
    const oi = run.optimAt.get(ev.index);
    if (oi === undefined) return;
    const k = tl.frames.length;
    tl.optimFrame.set(oi, k);
    for (const p of run.resp.optimizer_steps[oi].params) {
      if (p.node !== null) push(tl.valueWrites, p.node, { frame: k, before: p.before, after: p.after });
    }
    tl.frames.push({ kind: "optim", index: oi, view: run.view });
  },
  update(run, ev) {
    const tl = run.tl;
    const ui = run.updateAt.get(ev.index);
    if (ui === undefined) return;
    const u = run.updates[ui];
    const k = tl.frames.length;
    push(u.grad ? tl.gradUpdates : tl.valueWrites, u.node, { frame: k, before: u.before, after: u.after });
    push(tl.updateFrames, u.node, k);
    if (u.next_node !== null && u.next_node !== undefined) tl.bornAt.set(u.next_node, k);
    tl.frames.push({ kind: "update", index: ui, target: u.node, view: run.view });
  },
  zero_grad(run, ev) {
    const tl = run.tl;
    const prev = tl.frames[tl.frames.length - 1];
    const same = prev && prev.kind === "zero_grad"; // zero_grads of left-out iterations: one frame
    const k = same ? tl.frames.length - 1 : tl.frames.length;
    const reset = (run.resp.zero_grads || [])[ev.index] || [];
    for (const r of reset) push(tl.gradUpdates, r.node, { frame: k, before: null, after: r.grad });
    if (same) return;
    tl.zeroFrames.push(k);
    tl.frames.push({ kind: "zero_grad", view: run.view });
  },
};

/**
 * A pass's steps in visiting order: [index into pass.steps (-1 for a hidden step), node, the step's
 * index in the pass].
 */
function stepOrder(p) {
  const hidden = p.hidden || [];
  if (!hidden.length) return p.steps.map((s, i) => [i, s.node, s.index]);
  const out = [];
  let i = 0;
  let h = 0;
  let at = 0; // the index of the next hidden step within hidden[h]
  while (i < p.steps.length || h < hidden.length) {
    const nextHidden = h < hidden.length ? hidden[h].index + at : Infinity;
    if (i < p.steps.length && p.steps[i].index < nextHidden) {
      out.push([i, p.steps[i].node, p.steps[i].index]);
      i++;
    } else {
      out.push([-1, hidden[h].nodes[at], nextHidden]);
      at++;
      if (at >= hidden[h].nodes.length) {
        h++;
        at = 0;
      }
    }
  }
  return out;
}

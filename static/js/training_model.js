/**
 * The training view's facts, derived from a RunResponse (app/schemas/run.py). Plain logic, no DOM.
 *
 * An iteration is one backward pass (response.iterations). Passes between two optimizer steps
 * form one accumulation group: their gradients add up in each .grad, the step uses the sum,
 * zero_grad() resets it. Only the first and last few iterations come with a full graph
 * (iteration.view != null); the rest are loss and norm summaries.
 */

/**
 * A run that looks like a training loop: an optimizer step, or backward passes on at least two
 * different graphs (micro-batches). Two passes on one graph (retain_graph) are not training.
 */
export function isTraining(resp) {
  if (!resp) return false;
  if (resp.optimizer_steps.length > 0) return true;
  const its = resp.iterations;
  const views = new Set(its.filter((it) => it.view !== null && it.view !== undefined).map((it) => it.view));
  return views.size + its.filter((it) => it.view === null || it.view === undefined).length >= 2;
}

/** Flattened numbers of a Value ({data} in full or {summary: {head}}). */
export function headOf(value, n = Infinity) {
  if (!value) return [];
  const out = [];
  const walk = (x) => {
    if (out.length >= n) return;
    if (Array.isArray(x)) x.forEach(walk);
    else if (x !== null && x !== undefined) out.push(x);
  };
  if (value.data !== null && value.data !== undefined) walk(value.data);
  else if (value.summary) walk(value.summary.head || []);
  return out.slice(0, n);
}

/** L2 norm of a Value (exact when given in full, else the summary's). */
export function normOf(value) {
  if (!value) return null;
  if (value.summary && value.summary.norm !== undefined && value.summary.norm !== null) return value.summary.norm;
  const xs = headOf(value);
  return Math.sqrt(xs.reduce((s, x) => s + Number(x) * Number(x), 0));
}

/**
 * Per-parameter series over all iterations: [{label, grad: [norm per pass], value: [...]}].
 * Parameters are matched by position (a parameter's leaf node changes after every step).
 */
export function paramSeries(resp) {
  const its = resp.iterations;
  const series = [];
  its.forEach((it, i) => {
    Object.values(it.params || {}).forEach((p, j) => {
      if (!series[j]) series[j] = { label: null, grad: new Array(its.length).fill(null), value: new Array(its.length).fill(null) };
      series[j].grad[i] = p.grad_norm ?? null;
      series[j].value[i] = p.value_norm ?? null;
    });
  });
  const labels = paramLabels(resp);
  series.forEach((s, j) => {
    s.label = labels[j] || `param ${j + 1}`;
  });
  return series;
}

/** Labels in backward visiting order, from the first kept pass's leaf steps: "fc1.weight [16, 2]". */
export function paramLabels(resp) {
  const pass = resp.backward[0];
  if (!pass) return Object.keys(resp.iterations[0]?.params || {});
  const nodes = new Map(resp.graph.nodes.map((n) => [n.id, n]));
  const out = [];
  const seen = new Map();
  for (const s of pass.steps) {
    if (s.kind !== "leaf") continue;
    const n = nodes.get(s.node);
    if (!n) continue;
    let label = n.var && n.var !== "tensor" ? n.var : null;
    if (!label) {
      const role = n.shape.length >= 2 ? "weight" : "bias";
      label = n.module ? `${n.module}.${role}` : `${role} [${n.shape.join(", ")}]`;
    }
    const k = (seen.get(label) || 0) + 1;
    seen.set(label, k);
    out.push(k > 1 ? `${label} (${k})` : label);
  }
  return out;
}

/**
 * Program order of passes, optimizer steps and zero_grads from the kept events:
 * {stepOfPass: Map(pass → optimizer step index), group: Map(pass → [passes of its group]),
 *  zeroBefore: Set(passes that a zero_grad preceded), zeroCount}.
 */
export function order(resp) {
  const stepOfPass = new Map();
  const group = new Map();
  const zeroBefore = new Set();
  let pending = [];
  let zeroSeen = false;
  let zeroCount = 0;
  for (const ev of resp.events) {
    if (ev.kind === "zero_grad") {
      zeroSeen = true;
      zeroCount += 1;
    } else if (ev.kind === "backward") {
      if (zeroSeen) zeroBefore.add(ev.index);
      zeroSeen = false;
      pending.push(ev.index);
    } else if (ev.kind === "optim") {
      for (const p of pending) {
        stepOfPass.set(p, ev.index);
        group.set(p, pending);
      }
      pending = [];
    }
  }
  for (const p of pending) group.set(p, pending);
  return { stepOfPass, group, zeroBefore, zeroCount };
}

/**
 * The loop updates parameters (an optimizer step, or values that change between passes, as with a
 * hand-written `w -= lr * w.grad`) but never resets .grad: the gradients of every pass add up.
 */
export function forgotZeroGrad(resp, ord, series) {
  if (ord.zeroCount > 0 || resp.iterations.length < 2) return false;
  if (resp.optimizer_steps.length > 0) return true;
  return series.some((s) => {
    const vals = s.value.filter((x) => x !== null && x !== undefined);
    return vals.some((x) => Math.abs(x - vals[0]) > 1e-12 * Math.max(1, Math.abs(vals[0])));
  });
}

/** Iterations that can be inspected (their graph was kept): [{pass, view, loss}]. */
export function keptIterations(resp) {
  return resp.iterations
    .map((it) => ({ pass: it.pass_index, view: it.view, loss: it.loss }))
    .filter((it) => it.view !== null && it.view !== undefined);
}

/**
 * The timeline frame to stand on for a pass: its last forward op (the whole forward graph drawn,
 * the next step is the first backward step), else its first backward step; -1 if not kept.
 */
export function frameOfPass(timeline, pass) {
  if (!timeline) return -1;
  const pi = timeline.passes.findIndex((p) => p.index === pass);
  if (pi < 0) return -1;
  const start = timeline.passStart[pi];
  if (start < 0) return -1;
  const prev = timeline.frames[start - 1];
  return prev && prev.kind === "op" && prev.view === timeline.frames[start].view ? start - 1 : start;
}

/**
 * The iteration (a pass's run index) frame k belongs to, or null. A backward step or a pass's end
 * belongs to its pass. Forward ops, an optimizer step or a zero_grad belong to the drawing they are
 * shown on: of its passes, the one under way or coming next (the forward ops of iteration 98 belong
 * to backward pass 98), else the last one that ran (its optimizer step).
 */
export function passAtFrame(timeline, k) {
  if (!timeline || !timeline.frames.length) return null;
  const f = timeline.frames[k];
  if (!f) return null;
  if (f.kind === "step" || f.kind === "pass_end") return timeline.passes[f.pass].index;
  let coming = null;
  let ran = null;
  let started = null;
  timeline.passes.forEach((p, pi) => {
    const s = timeline.passStart[pi];
    if (s < 0) return;
    if (s <= k) started = p.index;
    if (timeline.frames[s].view !== f.view) return;
    if (s > k && coming === null) coming = p.index;
    else if (s <= k) ran = p.index;
  });
  return coming ?? ran ?? started;
}

/** Where a training run opens: the first kept iteration's whole forward graph (-1: not training). */
export function openingFrame(resp, timeline) {
  if (!isTraining(resp)) return -1;
  const kept = keptIterations(resp);
  return kept.length ? frameOfPass(timeline, kept[0].pass) : -1;
}

/** The learning rate written in an SGD rule ("... (lr=0.1)"), or null. */
export function lrOfRule(rule) {
  const m = /\(lr=([0-9.eE+-]+)/.exec(rule || "");
  return m ? Number(m[1]) : null;
}

/** One worked update for a parameter's first element: {before, grad, after, lr, check}. */
export function workedUpdate(step, param) {
  const b = headOf(param.before, 1)[0];
  const g = headOf(param.grad, 1)[0];
  const a = headOf(param.after, 1)[0];
  const plain = step.optimizer === "SGD" && !/momentum|μ/.test(step.rule) && !/λ/.test(step.rule);
  const lr = plain ? lrOfRule(step.rule) : null;
  return { before: b, grad: g, after: a, lr, check: lr !== null && g !== undefined ? b - lr * g : null };
}

/** Accuracy (fraction) per optimizer step from boundary frames: [{step, accuracy}]. */
export function accuracySeries(boundary) {
  if (!boundary || !boundary.frames) return [];
  return boundary.frames
    .filter((f) => f.accuracy !== null && f.accuracy !== undefined)
    .map((f) => ({ step: f.step, accuracy: f.accuracy }));
}

/** The boundary frame to show for a pass: the last snapshot taken at or before its step. */
export function frameForPass(boundary, stepOfPass, pass, nPasses, nSteps) {
  if (!boundary || !boundary.frames || !boundary.frames.length) return -1;
  let step = stepOfPass.get(pass);
  if (step === undefined) step = nPasses ? Math.round(((pass + 1) / nPasses) * nSteps) - 1 : 0;
  const taken = step + 1; // the snapshot after this iteration's step
  let best = 0;
  boundary.frames.forEach((f, i) => {
    if (f.step <= taken) best = i;
  });
  return best;
}

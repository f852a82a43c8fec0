/**
 * "Predict, then reveal": what a student is asked at a backward step, reading a typed guess, and
 * marking it. Plain logic, no DOM.
 *
 * At an op's step the questions are the gradients it sends down its input edges; at a leaf's step
 * (AccumulateGrad), the .grad it holds after the write. Only values given in full and small enough
 * to type (at most MAX_ELEMENTS numbers) are asked. A guess is right when its relative error is
 * below TOLERANCE (an exact zero must be guessed as zero), or when it is the answer as the page
 * writes it (which shows at least the 4 significant digits the tolerance judges by).
 */

import { flat, num, num3 } from "./format.js";

export const TOLERANCE = 1e-3;
const MAX_ELEMENTS = 9;

function askable(v) {
  if (!v || v.data === null || v.data === undefined) return false;
  const xs = flat(v.data);
  return xs.length <= MAX_ELEMENTS && xs.every((x) => typeof x === "number" && Number.isFinite(x));
}

/**
 * The questions at frame k of a Timeline: [{key, kind: "edge"|"grad", edge?, node, truth: Value}]
 * (node: the input that receives the gradient, or the leaf written).
 */
export function questions(tl, k) {
  const f = tl && tl.frames[k];
  if (!f || f.kind !== "step" || f.hidden) return []; // a step hidden in a closed part has no values
  const step = tl.passes[f.pass].steps[f.step];
  if (step.kind === "hook") return []; // a hook runs the program's own code: nothing to predict by a rule
  const node = tl.nodes.get(step.node);
  const out = [];
  if (node && node.kind === "op") {
    for (const fl of step.sent) {
      const e = tl.edges.get(fl.edge);
      if (e && askable(fl.grad)) out.push({ key: `e${fl.edge}`, kind: "edge", edge: fl.edge, node: e.source, truth: fl.grad });
    }
  } else if (askable(step.grad_after)) {
    out.push({ key: `n${step.node}`, kind: "grad", node: step.node, truth: step.grad_after });
  }
  return out;
}

/**
 * The numbers of a typed guess, flattened: "2", "-0.5", "1e-3", "[1, 2]", "[[1, 2], [3, 4]]",
 * "1, 2", "1 2" or a fraction "1/4" (a minus sign "−" counts as "-"); null when it is not a guess.
 */
export function parseGuess(text) {
  const s = String(text || "").trim().replace(/[−–]/g, "-");
  if (!s) return null;
  const body = s.replace(/[[\]()]/g, " ").trim();
  if (!body) return null;
  const parts = body.split(/[\s,;]+/).filter(Boolean);
  const xs = parts.map((p) => {
    const frac = /^(-?[\d.]+(?:e-?\d+)?)\/([\d.]+(?:e-?\d+)?)$/i.exec(p); // "1/4"
    return frac ? Number(frac[1]) / Number(frac[2]) : Number(p);
  });
  return xs.every((x) => Number.isFinite(x)) ? xs : null;
}

/** The numbers the page may write for `x` (format.js: num in the panels, num3 on the drawing). */
function asShown(x) {
  return [Number(num(x)), Number(num3(x))];
}

/**
 * Is the guess (numbers, flattened) right for the Value `truth`? Right within TOLERANCE, or when
 * each number is the true one as the page writes it (a guess copied from the page is never wrong).
 */
export function isRight(guess, truth) {
  if (!guess || !truth || truth.data === null || truth.data === undefined) return false;
  const want = flat(truth.data).map(Number);
  if (guess.length !== want.length) return false;
  if (want.every((w, i) => asShown(w).includes(guess[i]))) return true;
  let err = 0;
  let size = 0;
  want.forEach((w, i) => {
    err += (guess[i] - w) ** 2;
    size += w * w;
  });
  if (size === 0) return err === 0;
  return Math.sqrt(err / size) < TOLERANCE;
}

/** Right and asked per backward pass; each question counts once. */
export class Score {
  constructor() {
    this.passes = new Map(); // pass -> {asked, right}
    this.seen = new Set();
  }

  record(pass, key, right) {
    const id = `${pass}:${key}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const s = this.passes.get(pass) || { asked: 0, right: 0 };
    s.asked += 1;
    if (right) s.right += 1;
    this.passes.set(pass, s);
  }

  of(pass) {
    return this.passes.get(pass) || { asked: 0, right: 0 };
  }
}

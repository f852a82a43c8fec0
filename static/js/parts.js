/**
 * The parts of a run's views (response.parts: nn.Module calls, loops, chunks of a loop's
 * iterations, segments) as the page needs them: which part holds a node (also one the answer names
 * by id only), which box of a drawing shows it, and which iteration of which loop it belongs to.
 * Plain logic, no DOM.
 */

import { t } from "./i18n.js";

export class PartIndex {
  /** resp: a RunResponse (or one with the views' parts replaced after an opening). */
  constructor(resp) {
    this.parts = new Map((resp.parts || []).map((p) => [p.id, p]));
    this.children = new Map();
    for (const p of this.parts.values()) {
      if (!this.children.has(p.parent)) this.children.set(p.parent, []);
      this.children.get(p.parent).push(p.id);
    }
    this._owner = this._owners();
  }

  /** The innermost known part a node id is inside (null: the view itself). */
  owner(id) {
    return this._owner.get(id) ?? null;
  }

  _owners() {
    // Outer parts first, then inner ones overwrite: each id ends with its innermost part.
    const owner = new Map();
    const depth = (p) => {
      let d = 0;
      for (let q = p; q.parent; q = this.parts.get(q.parent) || {}) d++;
      return d;
    };
    const ordered = [...this.parts.values()].sort((a, b) => depth(a) - depth(b));
    for (const p of ordered) {
      const out = new Set(p.outside || []);
      const [lo, hi] = p.span;
      for (let id = lo; id <= hi; id++) if (!out.has(id)) owner.set(id, p.id);
    }
    return owner;
  }

  /** The parts around node `id` (or part `pid`), innermost first. */
  chain(id, pid = undefined) {
    const out = [];
    let q = pid === undefined ? this.owner(id) : pid;
    while (q) {
      out.push(q);
      q = this.parts.get(q)?.parent ?? null;
    }
    return out;
  }

  /** The closed part whose box hides node `id` in a drawing with `open` (a Set) open, or null. */
  boxOf(id, open) {
    let box = null;
    for (const q of this.chain(id)) if (!open.has(q)) box = q; // the outermost closed one
    return box;
  }

  /**
   * The loop iteration node `id` is in: {loop, i (from 1), n} for the innermost loop around it that
   * the answer describes, or null.
   */
  iteration(id) {
    for (const q of this.chain(id)) {
      const p = this.parts.get(q);
      if (p.kind !== "loop" || !p.iters || !p.iters.length) continue;
      let lo = 0;
      let hi = p.iters.length - 1;
      while (lo < hi) { // the last iteration that starts at or before id
        const mid = (lo + hi + 1) >> 1;
        if (p.iters[mid][0] <= id) lo = mid;
        else hi = mid - 1;
      }
      return { loop: p, i: p.iters[lo][1] + 1, n: p.iterations };
    }
    return null;
  }

  /** The descendants of part `pid` (for closing it: they close too). */
  inside(pid) {
    const out = [];
    const stack = [...(this.children.get(pid) || [])];
    while (stack.length) {
      const q = stack.pop();
      out.push(q);
      stack.push(...(this.children.get(q) || []));
    }
    return out;
  }
}

/**
 * What a part is, in words (both languages): "loop for t in range(250) (×250)", "nn.Linear call fc1",
 * "layers Linear → ReLU, repeated ×20" (a loop that names the classes it repeats: a run of identical
 * module calls, app/folding/parts.py).
 */
export function partTitle(p) {
  if (!p) return "";
  if (p.kind === "loop" && p.type_name) return t("part_repeat", { label: p.type_name, n: p.iterations });
  if (p.kind === "loop") return t("part_loop", { label: p.label, n: p.iterations });
  if (p.kind === "chunk") return t("part_chunk", { a: p.first_iteration + 1, b: p.first_iteration + p.iterations });
  if (p.kind === "segment") return t("part_segment", { label: p.label });
  return t("part_module", { label: p.label, type: p.type_name || "" });
}

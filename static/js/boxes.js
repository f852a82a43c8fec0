/**
 * How a drawing's closed parts (boxes) and its edges that stand for several edges (segments `s<k>`)
 * look at each frame of the timeline. Plain logic, no DOM: built once per mounted drawing.
 *
 * A box looks like the nodes inside it: hidden until its first op is recorded, `new` while ops are
 * recorded inside it, `cur` while the backward pass walks inside it, `pending` before the pass
 * reaches it and `done` (or `freed`) after. A segment looks like the busiest of its edges: `send` at
 * a frame where one of them carries a gradient, `carried` once one has, `bw` while the pass has not
 * reached them yet.
 */

const NONE = -1;
const EDGE_RANK = { hidden: 0, fwd: 1, nograd: 2, new: 3, bw: 4, carried: 5, send: 6 };

export class Aggregates {
  /**
   * tl: the Timeline; index: the PartIndex; open: the drawing's open parts (a Set); boxes: ids of
   * the closed parts drawn as boxes; segments: {s<k>: [edge ids]} of the drawing.
   */
  constructor(tl, index, open, boxes, segments) {
    this.tl = tl;
    const F = tl.frames.length;
    this.boxOfFrame = new Array(F).fill(null);
    const drawn = new Set(boxes);
    this.boxes = new Map([...drawn].map((b) => [b, { appear: Infinity, ops: new Set(), visits: new Map() }]));
    const marks = Array.from({ length: F + 1 }, () => null);
    const mark = (k, id) => {
      if (k < 0 || k > F) return;
      if (!marks[k]) marks[k] = new Set();
      marks[k].add(id);
    };
    tl.frames.forEach((f, k) => {
      if (f.node === undefined) return;
      const b = index.boxOf(f.node, open);
      if (b === null || !drawn.has(b)) return;
      this.boxOfFrame[k] = b;
      const box = this.boxes.get(b);
      mark(k, b);
      mark(k + 1, b);
      if (f.kind === "op") {
        box.ops.add(k);
        box.appear = Math.min(box.appear, k);
      } else if (f.kind === "step") {
        const v = box.visits.get(f.pass);
        if (v) v.last = k;
        else box.visits.set(f.pass, { first: k, last: k });
      }
    });
    for (const [b, box] of this.boxes) {
      for (const pass of box.visits.keys()) {
        mark(tl.passStart[pass], b);
        mark(tl.passEnd[pass] + 1, b);
      }
    }
    this.segs = new Map();
    for (const [sid, edges] of Object.entries(segments || {})) {
      const seg = { appear: Infinity, appears: new Set(), passes: new Map() };
      for (const eid of edges) {
        const a = tl.edgeAppear.get(eid);
        if (a !== undefined) {
          seg.appear = Math.min(seg.appear, a);
          seg.appears.add(a);
          mark(a, sid);
          mark(a + 1, sid);
        }
        for (const v of tl.edgeVisits.get(eid) || []) {
          let p = seg.passes.get(v.pass);
          if (!p) {
            p = { sends: new Set(), first: Infinity };
            seg.passes.set(v.pass, p);
            mark(tl.passStart[v.pass], sid);
            mark(tl.passEnd[v.pass] + 1, sid);
          }
          if (v.frame !== NONE) {
            p.sends.add(v.frame);
            p.first = Math.min(p.first, v.frame);
            mark(v.frame, sid);
            mark(v.frame + 1, sid);
          }
        }
      }
      this.segs.set(sid, seg);
    }
    this.marks = marks;
  }

  /** The drawn box holding frame k's node, or null. */
  boxAt(k) {
    return k >= 0 && k < this.boxOfFrame.length ? this.boxOfFrame[k] : null;
  }

  /** 'hidden' | 'new' | 'fwd' | 'pending' | 'cur' | 'done' | 'freed' */
  boxState(b, k) {
    const box = this.boxes.get(b);
    if (!box || k < box.appear) return "hidden";
    const tl = this.tl;
    let pass = null;
    for (const p of box.visits.keys()) if (tl.passStart[p] <= k && (pass === null || tl.passStart[p] > tl.passStart[pass])) pass = p;
    if (pass === null) return box.ops.has(k) ? "new" : "fwd";
    const v = box.visits.get(pass);
    if (this.boxOfFrame[k] === b && k >= v.first && k <= v.last) return "cur";
    if (k < v.first) return "pending";
    if (k > tl.passEnd[pass] && tl.passes[pass].freed) return "freed";
    return "done";
  }

  /** 'hidden' | 'new' | 'fwd' | 'nograd' | 'bw' | 'send' | 'carried' */
  segState(sid, k) {
    const seg = this.segs.get(sid);
    if (!seg || k < seg.appear) return "hidden";
    const tl = this.tl;
    let pass = null;
    for (const p of seg.passes.keys()) if (tl.passStart[p] <= k && (pass === null || tl.passStart[p] > tl.passStart[pass])) pass = p;
    if (pass === null) return seg.appears.has(k) ? "new" : "fwd";
    const p = seg.passes.get(pass);
    if (p.sends.has(k)) return "send";
    if (p.first <= k) return "carried";
    return p.sends.size ? "bw" : "nograd";
  }

  /** Box and segment ids whose look may differ between frames i and j. */
  changed(i, j) {
    const out = new Set();
    const lo = Math.max(0, Math.min(i, j) + 1);
    const hi = Math.min(Math.max(i, j), this.marks.length - 1);
    for (let k = lo; k <= hi; k++) if (this.marks[k]) for (const id of this.marks[k]) out.add(id);
    return out;
  }
}

/** The busier of two edge states (for an element that stands for several edges). */
export function busier(a, b) {
  return (EDGE_RANK[a] ?? 0) >= (EDGE_RANK[b] ?? 0) ? a : b;
}

/**
 * How a drawing's closed parts (boxes) and its edges that stand for several edges (segments `s<k>`)
 * look at each frame of the timeline. Plain logic, no DOM: built once per mounted drawing.
 *
 * A box looks like the nodes inside it: hidden until its first op is recorded, `new` while ops are
 * recorded inside it, `cur` while the backward pass walks inside it, `pending` before the pass
 * reaches it and `done` (or `freed`) after. An open loop's frame (or a chunk's, a segment's) is hidden
 * like a box until the first op inside it is recorded, and `open` after: a frame drawn always holds
 * something drawn. A segment looks like the busiest of its edges: `send` at
 * a frame where one of them carries a gradient, `carried` once one has, `bw` while the pass has not
 * reached them yet.
 */

const NONE = -1;
const FRAMED = new Set(["loop", "chunk", "segment"]); // the parts an open one is drawn a frame of
const EDGE_RANK = { hidden: 0, fwd: 1, nograd: 2, new: 3, bw: 4, carried: 5, send: 6 };

export class Aggregates {
  /**
   * tl: the Timeline; index: the PartIndex; open: the drawing's open parts (a Set); boxes: ids of
   * the closed parts drawn as boxes; segments: {s<k>: [edge ids]} of the drawing.
   */
  constructor(tl, index, open, boxes, segments) {
    this.tl = tl;
    this.boxOfFrame = new Array(tl.frames.length).fill(null);
    const drawn = new Set(boxes);
    // Frames are kept in sorted arrays, not sets (a box of a long loop holds tens of thousands):
    // ops (a box's op frames), appears and sends (a segment's), and per id the frames where its
    // look may change (`marks`, for changed()).
    this.boxes = new Map([...drawn].map((b) => [b, { appear: Infinity, ops: [], visits: new Map() }]));
    const framed = [...open].filter((p) => !drawn.has(p) && FRAMED.has(index.parts.get(p)?.kind));
    for (const p of framed) this.boxes.set(p, { appear: Infinity, frame: true });
    this.marks = new Map();
    this._walkFrames(index, open, drawn);
    for (const p of framed) {
      const { appear } = this.boxes.get(p);
      if (appear !== Infinity) this._marksOf(p).push(appear);
    }
    // (each box's marks are in order so far: the passes' first and last frames go in their places)
    for (const [b, box] of this.boxes) {
      if (box.frame) continue;
      for (const pass of box.visits.keys()) for (const k of [tl.passStart[pass], tl.passEnd[pass] + 1]) insertSorted(this._marksOf(b), k);
    }
    this.segs = new Map();
    for (const [sid, edges] of Object.entries(segments || {})) this.segs.set(sid, this._segment(sid, edges));
  }

  /** The frames where the look of box, frame or segment `id` may change (a list made on first use). */
  _marksOf(id) {
    let list = this.marks.get(id);
    if (!list) this.marks.set(id, (list = []));
    return list;
  }

  /** Each frame's box, each box's op frames and pass visits, each open frame's first op. */
  _walkFrames(index, open, drawn) {
    // A node's box depends only on the innermost part it is in: worked out once per part (with
    // what the loop below needs of it; null: not in a drawn box).
    const byOwner = new Map();
    const frames = this.tl.frames;
    for (let k = 0; k < frames.length; k++) {
      const f = frames[k];
      if (f.node === undefined) continue;
      const owner = index.owner(f.node);
      let at = byOwner.get(owner);
      if (at === undefined) {
        const b = index.boxOf(f.node, open);
        at = b !== null && drawn.has(b) ? { b, box: this.boxes.get(b), m: this._marksOf(b) } : { b: null };
        at.frames = index.chain(f.node).map((q) => this.boxes.get(q)).filter((x) => x && x.frame);
        byOwner.set(owner, at);
      }
      if (f.kind === "op") for (const fr of at.frames) if (k < fr.appear) fr.appear = k;
      if (at.b === null) continue;
      const { b, box, m } = at;
      this.boxOfFrame[k] = b;
      if (m[m.length - 1] !== k) m.push(k);
      m.push(k + 1);
      if (f.kind === "op") {
        box.ops.push(k);
        if (k < box.appear) box.appear = k;
      } else if (f.kind === "step") {
        const v = box.visits.get(f.pass);
        if (v) v.last = k;
        else box.visits.set(f.pass, { first: k, last: k });
      }
    }
  }

  /** Segment sid (standing for `edges`): when its edges appear and, pass by pass, carry a gradient. */
  _segment(sid, edges) {
    const tl = this.tl;
    const seg = { appear: Infinity, appears: [], passes: new Map() };
    const m = this._marksOf(sid);
    for (const eid of edges) {
      const a = tl.edgeAppear.get(eid);
      if (a !== undefined) {
        seg.appear = Math.min(seg.appear, a);
        seg.appears.push(a);
        m.push(a, a + 1);
      }
      for (const v of tl.edgeVisits.get(eid) || []) {
        let p = seg.passes.get(v.pass);
        if (!p) {
          p = { sends: [], first: Infinity };
          seg.passes.set(v.pass, p);
          m.push(tl.passStart[v.pass], tl.passEnd[v.pass] + 1);
        }
        if (v.frame !== NONE) {
          p.sends.push(v.frame);
          p.first = Math.min(p.first, v.frame);
          m.push(v.frame, v.frame + 1);
        }
      }
    }
    seg.appears = sortedUnique(seg.appears);
    for (const p of seg.passes.values()) p.sends = sortedUnique(p.sends);
    sortedUnique(m);
    return seg;
  }

  /** The drawn box holding frame k's node, or null. */
  boxAt(k) {
    return k >= 0 && k < this.boxOfFrame.length ? this.boxOfFrame[k] : null;
  }

  /** 'hidden' | 'new' | 'fwd' | 'pending' | 'cur' | 'done' | 'freed'; a frame's 'hidden' | 'open' */
  boxState(b, k) {
    const box = this.boxes.get(b);
    if (!box || k < box.appear) return "hidden";
    if (box.frame) return "open";
    const tl = this.tl;
    let pass = null;
    for (const p of box.visits.keys()) if (tl.passStart[p] <= k && (pass === null || tl.passStart[p] > tl.passStart[pass])) pass = p;
    if (pass === null) return holds(box.ops, k) ? "new" : "fwd";
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
    if (pass === null) return holds(seg.appears, k) ? "new" : "fwd";
    const p = seg.passes.get(pass);
    if (holds(p.sends, k)) return "send";
    if (p.first <= k) return "carried";
    return p.sends.length ? "bw" : "nograd";
  }

  /** Box and segment ids whose look may differ between frames i and j. */
  changed(i, j) {
    const out = new Set();
    const lo = Math.max(0, Math.min(i, j) + 1);
    const hi = Math.max(i, j);
    for (const [id, list] of this.marks) {
      const at = firstAtLeast(list, lo);
      if (at < list.length && list[at] <= hi) out.add(id);
    }
    return out;
  }
}

/** The frame numbers of `list` (in place) in ascending order, once each. */
function sortedUnique(list) {
  // (a typed array sorts numbers natively: a segment of a long loop holds tens of thousands)
  const sorted = Int32Array.from(list).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== list[n - 1]) list[n++] = sorted[i];
  list.length = n;
  return list;
}

/** Put k into the sorted list where it belongs (once). */
function insertSorted(list, k) {
  const i = firstAtLeast(list, k);
  if (list[i] !== k) list.splice(i, 0, k);
}

/** The index of the first entry >= k in a sorted list (its length when none). */
function firstAtLeast(list, k) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Does the sorted list hold k? */
function holds(list, k) {
  const i = firstAtLeast(list, k);
  return i < list.length && list[i] === k;
}

/** The busier of two edge states (for an element that stands for several edges). */
export function busier(a, b) {
  return (EDGE_RANK[a] ?? 0) >= (EDGE_RANK[b] ?? 0) ? a : b;
}

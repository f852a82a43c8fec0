/**
 * One parsed, mounted drawing and the state each of its elements shows: data-s="<state>" on every
 * node, edge, box and segment (CSS does the rest), the gradient on each edge that carried one
 * (edge_labels.js), the parts' box or frame behaviour. An element whose group is far from the view
 * in a large drawing takes its state when the group is drawn again; a large drawing seen whole
 * shows each step on a layer over it (live_layer.js).
 */

import { Aggregates } from "./boxes.js";
import { DrawingGeometry } from "./drawing_geometry.js";
import { EdgeLabels } from "./edge_labels.js";
import { SVGNS } from "./graph_svg.js";
import { t } from "./i18n.js";
import { partTitle } from "./parts.js";

// Node labels smaller than this on screen (CSS px) cannot be read: the drawing is seen whole.
export const OVERVIEW_PX = 3;

export class Drawing extends DrawingGeometry {
  constructor(svg) {
    super(svg);
    this.edgeLabels = new EdgeLabels(this);
  }

  /** The parts drawn here: closed ones get box behaviour, open ones frame behaviour. */
  markParts(view, index) {
    const open = new Set(view.open || []);
    for (const [pid, g] of this.parts) {
      const p = index.parts.get(pid);
      const frame = open.has(pid);
      g.classList.add("part", frame ? "frame" : "box");
      const text = frame ? t("close_part", { what: partTitle(p) }) : t("open_part", { what: partTitle(p) });
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.setAttribute("aria-label", text);
      const tip = document.createElementNS(SVGNS, "title");
      tip.textContent = text;
      g.prepend(tip);
      // A box's last line is its iteration count ("×300"): the player writes "137 / 300" there.
      const texts = g.querySelectorAll(":scope > text");
      g._count = !frame && texts.length > 1 ? texts[texts.length - 1] : null;
      g._countText = g._count ? g._count.textContent : "";
      g._title = frame && texts.length ? texts[0] : null;
      g._titleText = g._title ? g._title.textContent : "";
    }
  }

  /** Boxes, frames and segments: their states from the timeline (built when first shown). */
  aggregate(tl, view, index) {
    if (!this.agg || this.agg.tl !== tl) {
      const open = new Set(view.open || []);
      const boxes = [...this.parts.keys()].filter((pid) => !open.has(pid));
      this.agg = new Aggregates(tl, index, open, boxes, view.segments || {});
    }
    return this.agg;
  }

  setPart(pid, s) {
    const g = this.parts.get(pid);
    const key = `p${pid}`;
    if (g && this.states.get(key) !== s) {
      this.states.set(key, s);
      this._state(g, s);
    }
    this._ghosts(pid, s);
  }

  /**
   * The ghost copies of `gid` ("n3", "p4") beside its uses show its state `s`, each once the edges
   * it feeds (its data-feeds, from the server) are drawn: before, it would stand alone.
   */
  _ghosts(gid, s) {
    const copies = this.ghosts.get(gid);
    if (!copies) return;
    if (!this.fedBy) this._feeds();
    this.ghostSource.set(gid, s);
    for (const c of copies) this._state(c, this._ghostState(c, s));
  }

  _ghostState(c, s) {
    const feeds = c._feeds;
    if (!feeds.length) return s;
    return feeds.every((key) => (this.states.get(key) ?? "hidden") === "hidden") ? "hidden" : s;
  }

  /** Which ghosts feed each edge element ("e2", "s1"). */
  _feeds() {
    this.fedBy = new Map();
    this.ghostSource = new Map();
    for (const copies of this.ghosts.values()) {
      for (const c of copies) {
        c._feeds = (c.dataset.feeds || "").split(" ").filter(Boolean);
        for (const key of c._feeds) {
          if (!this.fedBy.has(key)) this.fedBy.set(key, []);
          this.fedBy.get(key).push(c);
        }
      }
    }
  }

  /** Edge element `key` changed its state: the ghosts that feed it follow. */
  _fed(key) {
    const copies = this.fedBy && this.fedBy.get(key);
    if (!copies) return;
    for (const c of copies) {
      const s = this.ghostSource.get(c.dataset.gid);
      if (s !== undefined) this._state(c, this._ghostState(c, s));
    }
  }

  /**
   * Show state s on element g. An element in a group far from the view keeps its old state until
   * the group is drawn again: even undrawn, every changed element would be styled again (a backward
   * pass's first step changes them all: ~0.5 s at 15,000 nodes).
   */
  _state(g, s) {
    const group = this.near && this.groupOf.get(g);
    if (group && this.near.isFar(group)) {
      g._s = s;
      this.stale.add(g);
      return;
    }
    if (this.live && this.live.on) {
      if (this.live.put(g, s)) return;
      this.live.settle();
    }
    if (g.getAttribute("data-s") !== s) g.setAttribute("data-s", s);
  }

  /**
   * The view shows `box` (svg units; from: where a glide starts) at `scale` screen pixels per
   * unit. A large drawing is drawn near the view only, and seen whole (its labels too small to
   * read) its steps are drawn on a layer over it (live_layer.js) and its text is left out.
   */
  viewAt(box, from, scale) {
    if (!this.near) return;
    if (this.live.size) this.live.settle(); // (the groups drawn may change below)
    this.near.show(box, from);
    this.scale = scale;
    this.overview(this.font * scale < OVERVIEW_PX);
    if (this.live.on) this.live.mark(this.current, scale);
  }

  /** Seen whole (true) or close enough to read (false). */
  overview(on) {
    if (!this.live || on === this.live.on) return;
    // The gradient labels (text, left out) wait out of the document: written there, they cost nothing.
    if (on) {
      this.svg.classList.add("overview");
      this._labelMark = document.createComment("");
      this.labelLayer.replaceWith(this._labelMark);
      this.live.start();
    } else {
      this.live.stop();
      this._labelMark.replaceWith(this.labelLayer);
      this.svg.classList.remove("overview");
    }
  }

  /** The current node's box (svg units), or null: ringed while the drawing is seen whole. */
  setCurrent(box) {
    this.current = box;
    if (this.live && this.live.on) this.live.mark(box, this.scale);
  }

  /** Group `group` is drawn again: its elements take the states they missed. */
  _caughtUp(group) {
    if (!this.stale.size) return;
    for (const g of group.children) {
      if (!this.stale.has(g)) continue;
      this.stale.delete(g);
      if (g.getAttribute("data-s") !== g._s) g.setAttribute("data-s", g._s);
    }
  }

  setSeg(sid, s) {
    const g = this.segs.get(sid);
    if (!g || this.states.get(sid) === s) return;
    this.states.set(sid, s);
    this._state(g, s);
    this._fed(sid);
  }

  setNode(id, s) {
    const g = this.nodes.get(id);
    if (!g || this.states.get(`n${id}`) === s) return;
    this.states.set(`n${id}`, s);
    this._state(g, s);
    this._ghosts(`n${id}`, s);
  }

  /** An edge's state and the gradient it carried (hidden: shown as "?" until revealed). */
  setEdge(id, s, grad, hidden = false) {
    const g = this.edges.get(id);
    if (!g) return;
    if (this.states.get(`e${id}`) !== s) {
      this.states.set(`e${id}`, s);
      this._state(g, s);
      this._fed(`e${id}`);
    }
    this.edgeLabels.show(id, s, grad, hidden);
  }

  /** Forget the gradient labels and their places (the next render writes them again). */
  resetLabels() {
    this.edgeLabels.reset();
    if (this.boxes0) this.boxes = new Map(this.boxes0);
  }
}

/**
 * Drawing only what is near the view. A large drawing keeps its elements in groups of a hundred or
 * so (graph.js, inBuckets); a group whose box lies well outside the part of the drawing on screen
 * is taken out of the document (an empty comment keeps its place), so the browser neither styles,
 * lays out nor paints it. Chromium paints every element of an <svg> again whenever any one of
 * them changes (a step, the pulsing current node): at 15,000 nodes that was ~80 ms per frame. And
 * `display: none` is not enough: Chromium still styles and lays out such a group's elements when
 * they are first shown or change (measured: as slow as drawing them).
 *
 * Boxes are in the svg's own coordinates (those of PanZoom's box). No layout is read here.
 */

// Groups within this share of the view's size beyond each edge stay drawn: a short pan or the
// glide to the next node shows drawn elements at once.
const MARGIN = 0.5;

export class NearView {
  /** onNear(g): group g is about to be drawn again. */
  constructor(onNear = null) {
    this.onNear = onNear;
    this.groups = []; // {g, box: {x0, y0, x1, y1} or null (always drawn), far, mark: its placeholder}
    this.byElement = new Map();
    this.view = null; // the box last shown ({x, y, w, h}), null: nothing shown yet
  }

  /** A group to draw only near the view; box null: always drawn (its box is not known). */
  add(g, box) {
    const item = { g, box, far: false };
    this.groups.push(item);
    this.byElement.set(g, item);
    this._place(item);
  }

  /** Group g's box grew by `box` (a gradient label written into it). */
  grow(g, box) {
    const item = this.byElement.get(g);
    if (!item) return;
    const b = item.box;
    item.box = b ? { x0: Math.min(b.x0, box.x0), y0: Math.min(b.y0, box.y0), x1: Math.max(b.x1, box.x1), y1: Math.max(b.y1, box.y1) } : { ...box };
    this._place(item);
  }

  /** Hide every group until the next `show` (a drawing being mounted: nothing to lay out yet). */
  hideAll() {
    this.view = null;
    for (const item of this.groups) this._set(item, item.box !== null);
  }

  /** Draw the groups near `view` ({x, y, w, h}); `also`: a second box (where a glide started). */
  show(view, also = null) {
    if (!view) return;
    let v = view;
    if (also) {
      const x = Math.min(view.x, also.x);
      const y = Math.min(view.y, also.y);
      v = { x, y, w: Math.max(view.x + view.w, also.x + also.w) - x, h: Math.max(view.y + view.h, also.y + also.h) - y };
    }
    this.view = { x: v.x - v.w * MARGIN, y: v.y - v.h * MARGIN, w: v.w * (1 + 2 * MARGIN), h: v.h * (1 + 2 * MARGIN) };
    for (const item of this.groups) this._place(item);
  }

  /**
   * Put every group that is not drawn back in its place (true), or take them out again (false):
   * around a copy of the whole drawing.
   */
  putBack(on) {
    for (const item of this.groups) {
      if (!item.far) continue;
      if (on && item.mark.parentNode) item.mark.replaceWith(item.g);
      else if (!on && item.g.parentNode) item.g.replaceWith(item.mark);
    }
  }

  /** The element group g is drawn in (where its placeholder is while it is not drawn), or null. */
  parentOf(g) {
    const item = this.byElement.get(g);
    return item && item.far && item.mark ? item.mark.parentElement : g.parentElement;
  }

  /** Is group g (one given to add) not drawn now? */
  isFar(g) {
    const item = this.byElement.get(g);
    return !!(item && item.far);
  }

  /** How many groups are drawn and how many are not. */
  counts() {
    let far = 0;
    for (const item of this.groups) if (item.far) far++;
    return { near: this.groups.length - far, far };
  }

  _place(item) {
    const v = this.view;
    const b = item.box;
    if (!b) return this._set(item, false);
    if (!v) return this._set(item, true);
    this._set(item, b.x1 < v.x || b.x0 > v.x + v.w || b.y1 < v.y || b.y0 > v.y + v.h);
  }

  _set(item, far) {
    if (item.far === far) return;
    item.far = far;
    if (far) {
      if (!item.mark) item.mark = document.createComment("");
      if (item.g.parentNode) item.g.replaceWith(item.mark);
    } else {
      this.onNear?.(item.g);
      if (item.mark && item.mark.parentNode) item.mark.replaceWith(item.g);
    }
  }
}

/** The union of boxes ({x0, y0, x1, y1}); null for none. */
export function unionBox(boxes) {
  let out = null;
  for (const b of boxes) {
    if (!b) continue;
    if (!out) out = { ...b };
    else {
      out.x0 = Math.min(out.x0, b.x0);
      out.y0 = Math.min(out.y0, b.y0);
      out.x1 = Math.max(out.x1, b.x1);
      out.y1 = Math.max(out.y1, b.y1);
    }
  }
  return out;
}

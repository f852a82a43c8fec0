/**
 * Two views of the right column on a wide screen when a training view is shown: "This step"
 * (the explanation and the details) and "Training". Below 1001 px the panels are stacked and
 * the switch is hidden (CSS). The column's data-tab attribute says which view is shown.
 */

export class RightTabs {
  /** col: the right column; bar: the element holding the buttons (each with data-tab). */
  constructor(col, bar) {
    this.col = col;
    this.bar = bar;
    this.buttons = [...bar.querySelectorAll("button[data-tab]")];
    for (const b of this.buttons) b.addEventListener("click", () => this.select(b.dataset.tab));
  }

  /** Show the switch (a training view exists) or hide it and show every panel. */
  available(on) {
    this.bar.hidden = !on;
    if (!on) delete this.col.dataset.tab;
    else if (!this.col.dataset.tab) this.select("step");
  }

  /** Show one view ("step" or "training"), when the switch is shown. */
  select(name) {
    if (this.bar.hidden) return;
    const changed = this.col.dataset.tab !== name;
    this.col.dataset.tab = name;
    for (const b of this.buttons) b.setAttribute("aria-pressed", String(b.dataset.tab === name));
    if (changed) this.col.scrollTop = 0;
  }

  get current() {
    return this.bar.hidden ? null : this.col.dataset.tab || null;
  }
}

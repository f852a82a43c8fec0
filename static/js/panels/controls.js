/**
 * The timeline bar: first / previous / play-pause / next / last, slider, speed, "i / n" label and
 * the chooser of passes (forward, backward 1, backward 2, ...). Talks only to the Player.
 */

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { setIcon } from "../icons.js";
import { SPEEDS } from "../player.js";

export class Controls {
  /** onUser: called when the user moves the timeline from here (not when the page does). */
  constructor(root, player, onUser = () => {}) {
    this.player = player;
    this.el = {
      first: root.querySelector("#step-first"),
      prev: root.querySelector("[data-testid=step-prev]"),
      play: root.querySelector("[data-testid=play]"),
      next: root.querySelector("[data-testid=step-next]"),
      last: root.querySelector("#step-last"),
      slider: root.querySelector("#step-slider"),
      speed: root.querySelector("#speed"),
      label: root.querySelector("[data-testid=step-label]"),
      chapter: root.querySelector("#chapter"),
    };
    const e = this.el;
    e.first.addEventListener("click", () => (onUser(), player.pause(), player.first()));
    e.prev.addEventListener("click", () => (onUser(), player.pause(), player.prev()));
    e.next.addEventListener("click", () => (onUser(), player.pause(), player.next()));
    e.last.addEventListener("click", () => (onUser(), player.pause(), player.last()));
    e.play.addEventListener("click", () => (onUser(), player.toggle()));
    e.slider.addEventListener("input", () => (onUser(), player.pause(), player.goTo(Number(e.slider.value))));
    e.speed.replaceChildren(...SPEEDS.map((s) => h("option", { value: s, selected: s === 1 }, `${s}×`)));
    e.speed.addEventListener("change", () => player.setSpeed(Number(e.speed.value)));
    e.chapter.addEventListener("change", () => {
      onUser();
      player.pause();
      player.goTo(Number(e.chapter.value));
    });
    player.onPlayState(() => this._playLabel());
    this.chapters = [];
  }

  /** A new run: slider range and pass chooser. */
  build(tl) {
    const n = tl ? tl.length : 0;
    this.el.slider.max = String(Math.max(0, n - 1));
    this.el.slider.disabled = n <= 1;
    this.chapters = tl ? tl.chapters() : [];
    this.el.chapter.hidden = this.chapters.length < 2;
    this.lang(tl);
  }

  /** Texts that depend on the language. */
  lang(tl) {
    const opts = this.chapters.map((c) => {
      let text = c.n ? t("ch_forward_n", { n: c.n }) : t("ch_forward");
      if (c.kind === "pass") {
        const p = tl.passes[c.pass];
        text = p.line ? t("ch_pass", { n: c.n, line: p.line }) : t("ch_pass_noline", { n: c.n });
      }
      return h("option", { value: c.frame }, text);
    });
    this.el.chapter.replaceChildren(...opts);
    this._playLabel();
  }

  /** Reflect the player's frame. */
  update(frame) {
    const p = this.player;
    this.el.label.textContent = p.label();
    this.el.slider.value = String(frame);
    this.el.slider.setAttribute("aria-valuetext", p.label());
    const none = p.length === 0;
    this.el.first.disabled = this.el.prev.disabled = none || frame === 0;
    this.el.next.disabled = this.el.last.disabled = none || frame >= p.length - 1;
    this.el.play.disabled = p.length <= 1;
    let current = null;
    for (const c of this.chapters) if (c.frame <= frame) current = c;
    if (current) this.el.chapter.value = String(current.frame);
  }

  _playLabel() {
    const playing = this.player.playing;
    const b = this.el.play;
    setIcon(b, playing ? "pause" : "play");
    b.title = playing ? t("pause") : t("play");
    b.setAttribute("aria-label", b.title);
    b.setAttribute("aria-pressed", playing ? "true" : "false");
  }
}

/**
 * The step player: where we are on the timeline, and playing through it.
 * Plain logic: the clock is injected (setTimeout/clearTimeout by default), so tests
 * can drive it by hand. Listeners get (frame, previousFrame) after every move.
 */

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
const BASE_DELAY_MS = 700;

export class Player {
  constructor({ schedule = (fn, ms) => setTimeout(fn, ms), cancel = (t) => clearTimeout(t) } = {}) {
    this.length = 0;
    this.frame = 0;
    this.playing = false;
    this.speed = 1;
    this._schedule = schedule;
    this._cancel = cancel;
    this._timer = null;
    this._listeners = [];
    this._playListeners = [];
    this._gate = null;
  }

  /**
   * gate(frame) is asked before each move forward by next(); when it answers true it took the move
   * for itself (e.g. revealing a prediction) and the player stays.
   */
  setGate(fn) {
    this._gate = fn;
  }

  /** Called with (frame, previous) after every move. */
  onChange(fn) {
    this._listeners.push(fn);
  }

  /** Called with (playing) when play/pause toggles. */
  onPlayState(fn) {
    this._playListeners.push(fn);
  }

  /** A new run: `length` frames, standing at `frame` (default the first), paused. */
  load(length, frame = 0) {
    this.pause();
    this.length = length;
    const prev = this.frame;
    this.frame = this._clamp(frame);
    this._emit(prev, true);
  }

  _clamp(k) {
    if (this.length <= 0) return 0;
    return Math.max(0, Math.min(this.length - 1, Math.trunc(Number(k) || 0)));
  }

  _emit(prev, force = false) {
    if (!force && prev === this.frame) return;
    for (const fn of this._listeners) fn(this.frame, force ? -1 : prev);
  }

  /** Jump to frame k (clamped). */
  goTo(k) {
    const prev = this.frame;
    this.frame = this._clamp(k);
    this._emit(prev);
  }

  next() {
    if (this._gate && this._gate(this.frame)) return;
    this.goTo(this.frame + 1);
  }

  prev() {
    this.goTo(this.frame - 1);
  }

  first() {
    this.goTo(0);
  }

  last() {
    this.goTo(this.length - 1);
  }

  atEnd() {
    return this.frame >= this.length - 1;
  }

  /** "i / n" with i counted from 1 (0 / 0 when there is nothing to play). */
  label() {
    return this.length ? `${this.frame + 1} / ${this.length}` : "0 / 0";
  }

  delay() {
    return BASE_DELAY_MS / this.speed;
  }

  setSpeed(s) {
    this.speed = SPEEDS.includes(Number(s)) ? Number(s) : 1;
    if (this.playing) {
      this._cancel(this._timer);
      this._tick();
    }
  }

  play() {
    if (this.playing || this.length <= 1) return;
    if (this.atEnd()) this.goTo(0); // play from the start again
    this.playing = true;
    for (const fn of this._playListeners) fn(true);
    this._tick();
  }

  _tick() {
    this._timer = this._schedule(() => {
      if (!this.playing) return;
      this.next();
      if (this.atEnd()) this.pause();
      else this._tick();
    }, this.delay());
  }

  pause() {
    if (this._timer !== null) this._cancel(this._timer);
    this._timer = null;
    if (!this.playing) return;
    this.playing = false;
    for (const fn of this._playListeners) fn(false);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  /** Handle a key name (KeyboardEvent.key); true when it was a player key. */
  key(name) {
    const map = {
      ArrowRight: () => this.next(),
      ArrowLeft: () => this.prev(),
      PageDown: () => this.next(), // what a presentation clicker sends
      PageUp: () => this.prev(),
      " ": () => this.toggle(),
      Home: () => this.first(),
      End: () => this.last(),
    };
    const fn = map[name];
    if (!fn) return false;
    if (name !== " ") this.pause();
    fn();
    return true;
  }
}

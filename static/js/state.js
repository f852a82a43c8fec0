/**
 * The page's state and a tiny event bus. Modules read `state` and listen with on(event, fn);
 * they never call each other's internals. Events:
 *   "run"      (response)     a new RunResponse arrived (state.timeline is built)
 *   "frame"    (k, prev)      the timeline moved (prev is -1 after a new run)
 *   "lang"     (lang)         the language changed
 *   "select"   (sel)          a node or edge was picked: {kind: "node"|"edge", id} or null
 *   "hover"    (sel)          the pointer is over a node or edge, or null
 *   "error"    (error)        a request failed (4xx) or the run stopped with an error
 *   "user-step" ()            the user moved the timeline (keys, buttons, slider, pass chooser)
 * A later panel (e.g. a training view) plugs in by listening here.
 */

export const state = {
  source: "",
  variables: {}, // name -> {value, requires_grad}: the expression table's inputs
  examples: [],
  exampleId: null,
  response: null,
  timeline: null,
  frame: 0,
  selected: null,
  hovered: null,
  running: false,
};

const listeners = new Map();

export function on(event, fn) {
  if (!listeners.has(event)) listeners.set(event, []);
  listeners.get(event).push(fn);
}

export function emit(event, ...args) {
  for (const fn of listeners.get(event) || []) {
    try {
      fn(...args);
    } catch (err) {
      // One panel failing must not stop the others; report it where developers look.
      console.error(`gradviz: a "${event}" listener failed`, err);
    }
  }
}

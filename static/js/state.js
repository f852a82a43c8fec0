/**
 * The page's state and its event bus. Modules read `state` and talk through named events, never
 * through each other's internals or globals. Events (arguments):
 *   "run-start"   (source)          a run request left (the page is busy)
 *   "run"         (response, how)   a new RunResponse arrived and state.timeline is built; how.frame is
 *                                   the frame the run was asked to stand on (null: the page chooses)
 *   "run-end"     ({ok, error})     the page shows the run's result (or its failure): it is idle again
 *   "frame"       (k, prev)         the timeline moved (prev is -1 after a new run)
 *   "goto"        (k)               please move the timeline to frame k (a panel asks; the player moves)
 *   "rerun"       ()                please run the editor's program again (e.g. an input value changed)
 *   "graph-level" (level)           please draw the graph at "auto" | "module" | "op" (no new run)
 *   "relayout"    (response)        the drawings were replaced (another graph level); same timeline
 *   "lang"        (lang)            the language changed
 *   "select"      (sel)             a node or edge was picked: {kind: "node"|"edge", id} or null
 *   "hover"       (sel)             the pointer is over a node or edge, or null
 *   "error"       (error)           a request failed (4xx) or the run stopped with an error
 *   "user-step"   ()                the user moved the timeline (keys, buttons, slider, pass chooser)
 *   "mlp-build"   ({config, program}) the MLP form wrote a program and is about to run it
 *   "present"     (on)              classroom mode was switched on or off
 *   "open-part"   (view, part)      please open a closed part's box (its nodes are fetched if needed)
 *   "close-part"  (view, part)      please close an open part (a loop's frame, a module call)
 *   "conceal"     ()                what the page hides or shows at this frame changed (predict mode)
 *   "lens"        (name)            the course view shown changed (null: none)
 *   "share"       (extra)           a share link is being made: a panel adds what it must restore to extra
 *   "shared"      (extra, waits)    a share link is being opened: a panel restores from extra, and pushes
 *                                   onto waits a promise the run must wait for
 *   "why"         (name)            please diagnose the gradient of the tensor the program names `name`
 *   "boundary-played" (step)        the training view's decision boundary played training through and
 *                                   rests on its last frame (the step it shows)
 */

export const state = {
  source: "",
  ranSource: null, // the source of the response shown
  variables: {}, // name -> {value, requires_grad}: the inputs of the expression in `inputsFor`
  inputsFor: null, // the expression source these inputs belong to (a program starts with none)
  fold: "auto", // the graph level asked for
  examples: [],
  response: null,
  timeline: null,
  frame: 0,
  selected: null,
  hovered: null,
  running: false,
  present: false, // classroom mode
  concealed: null, // predict mode: {frame, edges: Set, nodes: Set} hidden until revealed, or null
};

const listeners = new Map();

/** Call fn(...args) on every `event` until off(event, fn). */
export function on(event, fn) {
  if (!listeners.has(event)) listeners.set(event, []);
  listeners.get(event).push(fn);
}

export function off(event, fn) {
  const list = listeners.get(event);
  if (!list) return;
  const i = list.indexOf(fn);
  if (i >= 0) list.splice(i, 1);
}

/** Call fn once, at the next `event`. */
export function once(event, fn) {
  const wrap = (...args) => {
    off(event, wrap);
    fn(...args);
  };
  on(event, wrap);
}

export function emit(event, ...args) {
  for (const fn of [...(listeners.get(event) || [])]) {
    try {
      fn(...args);
    } catch (err) {
      // One panel failing must not stop the others; report it where developers look.
      console.error(`gradviz: a "${event}" listener failed`, err);
    }
  }
}

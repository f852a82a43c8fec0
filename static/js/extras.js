/**
 * What a run's answer leaves for later (`extras_later`): the check by hand and the course views but
 * the gradient heat. The page asks POST /api/run/extras for them once per answer, the first time a
 * panel shows them (or the run is saved as one file), merges them into the answer, and says so on
 * the bus ("extras", with the answer) so the panels that wait for them draw again.
 */

import { retryWhileBusy, runExtras } from "./api.js";
import { emit, state } from "./state.js";

const asked = new WeakMap(); // answer -> the promise of its extras

/** Whether `resp` still waits for its extras: all of them, or (`lens`) that course view's data. */
export function pending(resp, lens = null) {
  if (!resp || !resp.extras_later) return false;
  return lens === null || !(resp.lenses && lens in resp.lenses);
}

/** Why the extras of `resp` could not be had (an error's message), or null. */
export function failed(resp) {
  return (resp && resp.extras_failed) || null;
}

/**
 * The extras of `resp`, the answer the page shows, asked for once: a promise resolved when they are
 * merged into it (at once when it holds them), or when asking failed (then `failed(resp)` says why;
 * the answer keeps waiting, and they are not asked for again).
 */
export function needExtras(resp) {
  if (!pending(resp)) return Promise.resolve(resp);
  if (!asked.has(resp)) asked.set(resp, fetchExtras(resp, state.ranSource, ranInputs()));
  return asked.get(resp);
}

/** `resp` with its extras merged in; throws an Error saying why when they could not be had. */
export async function withExtras(resp) {
  await needExtras(resp);
  if (pending(resp)) throw new Error(failed(resp));
  return resp;
}

function ranInputs() {
  return state.inputsFor === state.ranSource ? state.variables : null;
}

async function fetchExtras(resp, source, variables) {
  const res = await retryWhileBusy(() => runExtras(source, variables, resp.fingerprint), () => {},
    () => resp !== state.response);
  if (res.ok) {
    resp.grad_check = res.data.grad_check;
    resp.lenses = { ...res.data.lenses, ...resp.lenses };
    resp.extras_later = false;
    delete resp.extras_failed;
  } else {
    resp.extras_failed = res.error.message; // said where they would be shown (not asked again)
  }
  if (resp === state.response) emit("extras", resp);
  return resp;
}

/**
 * `fresh`, another answer of the same run (another graph level), merged into `resp`: what `resp`
 * already holds of its extras stays.
 */
export function mergeRun(resp, fresh) {
  if (!pending(resp) && fresh.extras_later) {
    const { grad_check: check, lenses } = resp;
    Object.assign(resp, fresh);
    resp.grad_check = check;
    resp.lenses = { ...lenses, ...fresh.lenses };
    resp.extras_later = false;
    return resp;
  }
  return Object.assign(resp, fresh);
}

/** The training view's decision boundary: fetched for a built 2-D classifier, played, a frame per step. */

import { fetchBoundary } from "./api.js";
import { drawBoundary } from "./boundary.js";
import { num } from "./format.js";
import { t } from "./i18n.js";
import { setIcon } from "./icons.js";
import { emit, state } from "./state.js";
import { frameForPass } from "./training_model.js";

/** Fetch the decision boundary of the network view.build built (a 2-D classification), then play it once. */
export async function fetchBoundaryFor(view) {
  const b = view.build;
  const source = state.ranSource ?? (b ? b.program.source : null);
  // The same program again (e.g. drawn at another graph level): the frames are the same.
  if (view.boundary && b && source === view.boundarySource) {
    view.bFig.hidden = false;
    return;
  }
  view.boundary = null;
  view.boundarySource = null;
  view.bFig.hidden = true;
  if (!b || b.program.task !== "classification" || b.program.input_size !== 2) return;
  const seq = (view.bSeq = (view.bSeq || 0) + 1);
  view.bFig.hidden = false;
  view.bLabel.textContent = t("tr_boundary_loading");
  const res = await fetchBoundary({ config: b.config, source, grid: 40, frames: 24 });
  const data = res.ok ? res.data : null;
  if (seq !== view.bSeq) return;
  if (!data || !data.frames || !data.frames.length) {
    view.bFig.hidden = true;
    return;
  }
  view.boundary = data;
  view.boundarySource = source;
  view.bRange.max = data.frames.length - 1;
  view._summary();
  view._lossChart();
  boundaryForSelection(view);
  playBoundary(view); // show training at work once, then stop on the chosen iteration
}

/** Show the boundary's frame of the chosen iteration (unless it is playing). */
export function boundaryForSelection(view) {
  if (!view.boundary || view.bTimer) return;
  const i = frameForPass(view.boundary, view.ord.stepOfPass, view.sel, view.n, view._stepCount());
  if (i >= 0) showBoundary(view, i);
}

/** Show the boundary's frame i. */
export function showBoundary(view, i) {
  const data = view.boundary;
  if (!data) return;
  view.bIndex = i;
  view.bRange.value = i;
  drawBoundary(view.canvas, data, i);
  const f = data.frames[i];
  view.bLabel.textContent = t("tr_boundary_step", { s: f.step, acc: num(f.accuracy, "percent") });
  view.canvas.setAttribute("aria-label", `${t("tr_boundary")}: ${view.bLabel.textContent}`);
  view.canvas.dataset.step = String(f.step);
}

/** Play the boundary as training went, from the first frame. */
export function playBoundary(view) {
  if (!view.boundary) return;
  stopBoundary(view);
  let i = 0;
  setIcon(view.bPlay, "pause");
  view.bPlay.dataset.i18nTitle = "tr_pause";
  view.bPlay.title = t("tr_pause");
  view.bPlay.setAttribute("aria-label", t("tr_pause"));
  const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const last = view.boundary.frames.length - 1;
  if (reduce) {
    showBoundary(view, last);
    stopBoundary(view);
    emit("boundary-played", view.boundary.frames[last].step);
    return;
  }
  const next = () => {
    showBoundary(view, i);
    i += 1;
    if (i > last) {
      stopBoundary(view);
      emit("boundary-played", view.boundary.frames[last].step);
      return;
    }
    view.bTimer = setTimeout(next, 120);
  };
  view.bTimer = setTimeout(next, 0);
}

/** Stop the playback. */
export function stopBoundary(view) {
  if (view.bTimer) clearTimeout(view.bTimer);
  view.bTimer = null;
  setIcon(view.bPlay, "play");
  view.bPlay.dataset.i18nTitle = "tr_play";
  view.bPlay.title = t("tr_play");
  view.bPlay.setAttribute("aria-label", t("tr_play"));
}

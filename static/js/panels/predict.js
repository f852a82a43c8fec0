/**
 * The "predict, then reveal" panel of classroom mode. At a backward step the gradients it sends
 * (or the .grad it writes) stay hidden on the graph and in the explanation ("?") while the class
 * types a guess for each; Reveal (Enter, →, PageDown or the button) shows them, marks each guess
 * right or wrong and adds it to the score of that backward pass. The teacher of a live class does
 * not guess: the panel asks the question without boxes and, revealed, says how the class answered.
 */

import { h } from "../dom.js";
import { valueText } from "../format.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { tensorName } from "../names.js";
import { isRight, parseGuess, questions, Score } from "../predict.js";
import { emit, state } from "../state.js";

export class PredictPanel {
  /** panel: the panel element (hidden unless predicting); host: where its content goes. */
  constructor(panel, host) {
    this.panel = panel;
    this.host = host;
    this.enabled = false;
    this.onSubmit = null; // a live class's student sends the guesses (class/student.js) instead of revealing
    // A live class's teacher (class/teacher.js): `classResult(k, i)` is how the class answered
    // question i at frame k ({right, total}), or null before the answers are in.
    this.leader = null;
    this.reset();
  }

  /** A new run: no answers, no score. */
  reset() {
    this.results = new Map(); // frame -> [{q, text, ok}]
    this.score = new Score();
    this.inputs = [];
    this.shownFrame = -1;
  }

  setEnabled(on) {
    this.enabled = on;
  }

  _active(st) {
    return this.enabled && st.present && !!st.timeline;
  }

  /** Before frame st.frame is shown: hide what is to be predicted there (state.concealed). */
  prepare(st) {
    st.concealed = null;
    if (!this._active(st) || this.results.has(st.frame)) return;
    const qs = questions(st.timeline, st.frame);
    if (!qs.length) return;
    st.concealed = {
      frame: st.frame,
      edges: new Set(qs.filter((q) => q.kind === "edge").map((q) => q.edge)),
      nodes: new Set(qs.filter((q) => q.kind === "grad").map((q) => q.node)),
    };
  }

  /** Is a prediction waiting to be revealed at the current frame? */
  pending() {
    return !!(state.concealed && state.concealed.frame === state.frame);
  }

  /** Show the hidden values, mark the guesses, count them. */
  reveal() {
    if (!this.pending()) return;
    const tl = state.timeline;
    const k = state.frame;
    const f = tl.frames[k];
    const pass = tl.passes[f.pass].index;
    const answers = questions(tl, k).map((q, i) => {
      if (this.leader) return { q, text: "", ok: null }; // the teacher's own guess: there is none
      const text = this.inputs[i] ? this.inputs[i].value : "";
      const ok = isRight(parseGuess(text), q.truth);
      this.score.record(pass, q.key, ok);
      return { q, text: text.trim(), ok };
    });
    this.results.set(k, answers);
    state.concealed = null;
    if (this.host.contains(document.activeElement)) document.activeElement.blur(); // arrows step again
    emit("conceal");
  }

  /** Enter or the button: reveal, or in a live class send the typed guesses (one text per question). */
  submit() {
    if (this.onSubmit && this.pending()) this.onSubmit(this.inputs.map((i) => i.value));
    else this.reveal();
  }

  render(st) {
    const on = this._active(st);
    this.panel.hidden = !on;
    if (!on) return;
    const tl = st.timeline;
    const k = st.frame;
    const qs = questions(tl, k);
    const f = tl.frames[k];
    const out = [];
    if (!qs.length) {
      out.push(h("p", { class: "muted" }, t("predict_nothing")));
    } else if (this.results.has(k)) {
      out.push(this._answers(tl, k, this.results.get(k)));
    } else if (this.leader) {
      out.push(this._lead(tl, k, qs));
    } else {
      out.push(this._ask(tl, qs));
    }
    const pass = f && (f.kind === "step" || f.kind === "pass_end") ? tl.passes[f.pass].index : null;
    if (pass !== null && !this.leader) {
      const s = this.score.of(pass);
      out.push(h("p", { class: "score", "data-testid": "predict-score" },
        t("predict_score", { n: pass + 1, right: s.right, asked: s.asked })));
    }
    // Typing in a box must not be lost when the same frame is drawn again (a language change).
    if (this.shownFrame === k && this.pending() && this.inputs.length) return this._relabel(out);
    this.shownFrame = k;
    this.host.replaceChildren(...out);
  }

  _relabel(out) {
    const score = out.find((el) => el.dataset && el.dataset.testid === "predict-score");
    const old = this.host.querySelector("[data-testid=predict-score]");
    if (score && old) old.replaceWith(score);
  }

  _question(tl, q) {
    if (q.kind === "edge") return t("predict_q_edge", { src: tensorName(tl.nodes.get(q.node)) });
    return t("predict_q_grad", { name: tensorName(tl.nodes.get(q.node)) });
  }

  _ask(tl, qs) {
    this.inputs = qs.map((q, i) => {
      const input = h("input", {
        type: "text", class: "guess", "data-testid": `guess-${i}`, autocomplete: "off", spellcheck: "false",
        inputmode: "decimal", placeholder: t("predict_input_hint"), "aria-label": this._question(tl, q),
      });
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === "PageDown") {
          e.preventDefault();
          this.submit();
        }
      });
      return input;
    });
    const list = h("ol", { class: "questions" }, qs.map((q, i) =>
      h("li", {}, h("label", {}, h("span", { class: "q" }, this._question(tl, q)), this.inputs[i]))));
    const button = h("button", { type: "button", class: "primary", "data-testid": "reveal", onclick: () => this.submit() },
      t("reveal"));
    return h("div", { class: "ask" }, h("p", {}, t("predict_pending")), list, button);
  }

  /** The teacher's question: what the class is asked, and Reveal. */
  _lead(tl, k, qs) {
    this.inputs = [];
    const list = h("ol", { class: "questions" },
      qs.map((q) => h("li", {}, h("span", { class: "q" }, this._question(tl, q)))));
    const button = h("button", { type: "button", class: "primary", "data-testid": "reveal", onclick: () => this.reveal() },
      t("reveal"));
    return h("div", { class: "ask" }, h("p", {}, t("class_lead_pending")), list, this.leader.answersNow(k), button);
  }

  /** The teacher's answered question i at frame k: the answer and how the class did. */
  _led(tl, k, q, i) {
    const got = this.leader && this.leader.classResult(k, i);
    const line = !got ? null : got.total
      ? t("class_share", { right: got.right, total: got.total, pct: Math.round((100 * got.right) / got.total) })
      : t("class_no_answers");
    return h("li", {}, h("span", { class: "q" }, this._question(tl, q)),
      h("span", { class: "truth" }, t("predict_answer", { v: valueText(q.truth) })),
      line && h("span", { class: "yours", "data-testid": `class-result-${i}` }, line));
  }

  _answers(tl, k, answers) {
    if (answers.some((a) => a.ok === null)) {
      return h("ol", { class: "questions answered" }, answers.map(({ q }, i) => this._led(tl, k, q, i)));
    }
    return h("ol", { class: "questions answered" }, answers.map(({ q, text, ok }, i) => {
      const verdict = h("span", { class: ok ? "verdict right" : "verdict wrong", "data-testid": `verdict-${i}` },
        icon(ok ? "check" : "cross"), ok ? t("predict_right") : t("predict_wrong"));
      return h("li", {}, h("span", { class: "q" }, this._question(tl, q)), " ", verdict,
        h("span", { class: "truth" }, t("predict_answer", { v: valueText(q.truth) })),
        h("span", { class: "yours" }, text ? t("predict_yours", { v: text }) : t("predict_blank")));
    }));
  }
}

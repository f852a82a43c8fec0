/**
 * The teacher's side of a live class. "Start a class" (classroom bar) asks the server for a class
 * and shows its join link, short code and QR code; from then on, whatever the page shows (the
 * program and its inputs, the step, the graph level, the open boxes, the course view, classroom
 * and predict mode) is published to every student whenever the bus says it changed. While a
 * prediction is open the number of answers is shown live; at Reveal the class's guesses are judged
 * as the students' pages judge them and drawn as a histogram, and the students are told their
 * class's share of right answers. The teacher token lives in this tab's sessionStorage only.
 */

import { h } from "../dom.js";
import { apply, t } from "../i18n.js";
import { questions } from "../predict.js";
import { off, on, state } from "../state.js";
import { endClass, fetchAnswers, publishReveal, publishState, startClass } from "./api.js";
import { histogram, qrSvg, tally } from "./tally.js";

const KEY = "gradviz.class.teacher";
const EVENTS = ["run-end", "frame", "relayout", "present", "conceal", "lens"];
const POLL_MS = 1000;

function saved() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY));
  } catch {
    return null;
  }
}

export class TeacherClass {
  constructor({ classroom, predict }) {
    this.classroom = classroom;
    this.predict = predict;
    this.button = document.querySelector("[data-testid=class-start]");
    this.button.hidden = false;
    this.button.addEventListener("click", () => this.start());
    this.changed = () => this.schedule();
    this.sent = "";
    this.asking = null;
    this.tallies = new Map(); // frame -> the class's answers there, judged at Reveal
    const again = saved();
    if (again && again.id) this.open(again); // a reload keeps leading the class it started
  }

  async start() {
    if (this.cls) return;
    this.button.disabled = true;
    const res = await startClass();
    this.button.disabled = false;
    if (!res.ok) {
      this.note(t("class_start_failed", { msg: res.error.message }));
      return;
    }
    sessionStorage.setItem(KEY, JSON.stringify(res.data));
    this.open(res.data);
  }

  open(cls) {
    this.cls = cls;
    this.button.hidden = true;
    this.predict.leader = this; // the teacher's predict panel asks without boxes and shows the class's answers
    this.card = this.build(cls);
    document.querySelector("header.top").after(this.card);
    for (const e of EVENTS) on(e, this.changed);
    this.onLang = () => {
      apply(this.card);
      this.codeNote.textContent = t("class_code", { url: `${location.host}/c/${cls.code}` });
      if (this.shown) this.result.replaceChildren(histogram(this.shown));
      if (this.count !== undefined) this.showCount(this.count, this.countAt);
    };
    on("lang", this.onLang);
    this.timer = setInterval(() => this.poll(), POLL_MS);
    this.schedule();
  }

  build(cls) {
    const link = `${location.origin}/?class=${cls.id}`;
    const short = `${location.host}/c/${cls.code}`;
    const linkBox = h("input", { type: "text", readonly: true, class: "class-link", "data-testid": "class-link", value: link,
      "aria-label": t("class_join_at"), onfocus: (e) => e.target.select() });
    const qr = h("div", { class: "class-qr", "data-testid": "class-qr", title: t("class_qr") }, qrSvg(link));
    this.answers = h("p", { class: "class-answers", "data-testid": "class-answers", "aria-live": "polite", hidden: true });
    this.asked = h("p", { class: "class-answers", "data-testid": "predict-class-answers" }); // in the predict panel
    this.result = h("div", { class: "class-result" });
    const end = h("button", { type: "button", "data-testid": "class-end", "data-i18n": "class_end", onclick: () => this.end() },
      t("class_end"));
    const join = h("div", { class: "class-join" },
      h("h2", { "data-i18n": "class_title" }, t("class_title")),
      h("label", {}, h("span", { "data-i18n": "class_join_at" }, t("class_join_at")), linkBox),
      h("p", { class: "class-code-line" }, h("strong", { class: "class-code", "data-testid": "class-code" }, cls.code), " ",
        (this.codeNote = h("span", { class: "muted" }, t("class_code", { url: short })))),
      h("p", { class: "muted", "data-i18n": "class_students" }, t("class_students")), end);
    return h("section", { class: "class-card", "data-testid": "class-panel" }, qr, join,
      h("div", { class: "class-live" }, this.answers, this.result));
  }

  note(text) {
    const el = document.querySelector("#share-note");
    if (el) el.textContent = text;
  }

  /** What the students' pages are to show. */
  snapshot() {
    const resp = state.response;
    const open = {};
    (resp ? resp.views : []).forEach((v, i) => { if (v.open && v.open.length) open[String(i)] = v.open; });
    const panel = document.querySelector("[data-testid=lens-panel]");
    const source = state.ranSource ?? "";
    return {
      source, variables: state.inputsFor === source ? state.variables : {}, frame: state.frame, fold: state.fold,
      open, lens: (panel && panel.dataset.lens) || null, present: state.present, predict: this.classroom.predicting,
      asking: this.predict.pending() ? state.frame : null,
    };
  }

  schedule() {
    this.checkReveal();
    clearTimeout(this.soon);
    this.soon = setTimeout(() => this.flush(), 30);
  }

  async flush() {
    if (!this.cls || state.ranSource === null) return;
    if (this.busy) {
      this.dirty = true;
      return;
    }
    const body = this.snapshot();
    const text = JSON.stringify(body);
    if (text === this.sent) return;
    this.busy = true;
    const res = await publishState(this.cls.id, this.cls.teacher, body);
    this.busy = false;
    if (res.ok) this.sent = text;
    else if (res.status === 404 || res.status === 403) return this.close();
    else if (res.status === 0 || res.status === 429 || res.status >= 500) {
      this.soon = setTimeout(() => this.flush(), 1000); // a network error, a replica gone: again
    } else {
      this.sent = text; // refused as it is (too large): sent again only once the page changes
      this.note(t("class_publish_failed", { msg: res.error.message }));
    }
    if (this.dirty) {
      this.dirty = false;
      this.flush();
    }
  }

  /** A prediction that was open is answered now: judge the class's guesses and tell everyone. */
  checkReveal() {
    const pending = this.predict.pending() ? state.frame : null;
    const was = this.asking;
    this.asking = pending;
    if (pending !== null && pending !== was) {
      this.shown = null;
      this.tallies.delete(pending);
      this.result.replaceChildren();
    }
    if (was === null || was === pending || !this.predict.results.has(was)) return;
    this.reveal(was);
  }

  async reveal(k) {
    const qs = questions(state.timeline, k);
    const res = await fetchAnswers(this.cls.id, this.cls.teacher, k, true);
    if (!res.ok || !this.cls) return;
    const result = tally(res.data.guesses || [], qs);
    this.shown = result;
    this.tallies.set(k, result);
    if (state.frame === k) this.predict.render(state);
    this.result.replaceChildren(histogram(result));
    this.showCount(result.total, k);
    await publishReveal(this.cls.id, this.cls.teacher, { frame: k, right: result.right, total: result.total });
  }

  /** `n` students answered at frame `k`. */
  showCount(n, k) {
    this.count = n;
    this.countAt = k;
    this.answers.textContent = this.asked.textContent = t("class_answers", { n });
  }

  /** The live count of answers at frame k, for the predict panel while the class answers. */
  answersNow(k) {
    this.asked.textContent = t("class_answers", { n: this.countAt === k ? this.count : 0 });
    return this.asked;
  }

  /** How the class answered question i at frame k ({right, total}), once revealed (predict panel). */
  classResult(k, i) {
    const result = this.tallies.get(k);
    return (result && result.each[i]) || null;
  }

  async poll() {
    if (!this.cls) return;
    const k = this.predict.pending() ? state.frame : null;
    this.answers.hidden = k === null && !this.result.childElementCount;
    if (k === null) return;
    const res = await fetchAnswers(this.cls.id, this.cls.teacher, k);
    if (!res.ok || !this.predict.pending() || state.frame !== k) return;
    this.showCount(res.data.count, k);
  }

  async end() {
    if (this.cls) await endClass(this.cls.id, this.cls.teacher);
    this.close();
  }

  close() {
    for (const e of EVENTS) off(e, this.changed);
    off("lang", this.onLang);
    clearInterval(this.timer);
    sessionStorage.removeItem(KEY);
    this.cls = null;
    this.predict.leader = null;
    this.tallies.clear();
    if (this.card) this.card.remove();
    this.button.hidden = false;
  }
}

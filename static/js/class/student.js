/**
 * A student's side of a live class (the page opened with ?class=<id>): it joins, listens to the
 * class's stream and shows what the teacher's page shows (the program and its inputs, the graph
 * level, the open boxes, the course view, classroom and predict mode, then the step), each in the
 * student's own language. A move of the student's own (a step, a box, a level) leaves the teacher
 * until "Back to the teacher". EventSource reconnects by itself and the stream starts with the
 * class as it is, so a reload or a lost network comes back to the current step. In predict mode
 * Enter sends the guesses; the teacher's Reveal marks them here and says the class's share right.
 */

import { h } from "../dom.js";
import { apply, t } from "../i18n.js";
import { parseGuess } from "../predict.js";
import { emit, on, once, state } from "../state.js";
import { classEvents, joinClass, sendGuess } from "./api.js";

const WAIT_MS = 20000; // a run, a level or a box the page asked for: how long to wait for it
// The stream pings every 15 s: silence this long means a dead connection (a network gone without a
// word can leave it half open, and EventSource would wait on it for ever): connect again.
const SILENT_MS = 40000;

function until(event, start) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, WAIT_MS);
    once(event, () => {
      clearTimeout(timer);
      resolve();
    });
    start();
  });
}

const same = (a, b) => JSON.stringify(a || {}) === JSON.stringify(b || {});

export class StudentClass {
  constructor({ classroom, predict, openProgram, id }) {
    Object.assign(this, { classroom, predict, openProgram, id });
    this.latest = null;
    this.away = false;
    this.applying = false;
    this.line = "class_connecting";
    this.build();
    predict.onSubmit = (texts) => this.submit(texts);
    const leave = () => { if (!this.applying && this.latest) this.setAway(true); };
    for (const e of ["user-step", "open-part", "close-part", "graph-level"]) on(e, leave);
    on("lang", () => this.show());
  }

  build() {
    this.status = h("span", { class: "class-status", "data-testid": "class-status" });
    this.note = h("span", { class: "class-note", "data-testid": "class-note", "aria-live": "polite" });
    this.back = h("button", { type: "button", class: "primary", "data-testid": "class-back", hidden: true,
      "data-i18n": "class_back", onclick: () => this.setAway(false) }, t("class_back"));
    this.bar = h("div", { class: "class-follow", "data-testid": "class-follow", role: "status" }, this.status, this.back, this.note);
    document.querySelector("header.top").after(this.bar);
    document.querySelector("[data-testid=class-start]").hidden = true;
    this.show();
  }

  show() {
    apply(this.bar);
    this.bar.dataset.state = this.line;
    this.status.textContent = t(this.away ? "class_away" : this.line);
    this.back.hidden = !this.away || this.line === "class_ended";
    const r = this.latest && this.latest.revealed;
    if (r && r.frame === state.frame && r.total) {
      this.note.textContent = t("class_share", { right: r.right, total: r.total, pct: Math.round((100 * r.right) / r.total) });
    } else if (this.noteKey) {
      this.note.textContent = t(this.noteKey, this.noteArgs);
    } else {
      this.note.textContent = "";
    }
  }

  say(key, args) {
    this.noteKey = key;
    this.noteArgs = args;
    this.show();
  }

  async start() {
    const stored = sessionStorage.getItem(`gradviz.class.${this.id}`);
    if (!stored) {
      const res = await joinClass(this.id);
      if (!res.ok) {
        this.line = res.status === 404 ? "class_unknown" : "class_offline";
        return this.show();
      }
      sessionStorage.setItem(`gradviz.class.${this.id}`, res.data.student);
    }
    this.student = stored || sessionStorage.getItem(`gradviz.class.${this.id}`);
    this.connect();
  }

  connect() {
    const es = classEvents(this.id);
    this.heard = Date.now();
    clearInterval(this.watch);
    this.watch = setInterval(() => {
      if (es.readyState === EventSource.CLOSED || Date.now() - this.heard < SILENT_MS) return;
      es.close();
      this.connect();
    }, 5000);
    es.addEventListener("ping", () => { this.heard = Date.now(); });
    es.addEventListener("state", (e) => {
      this.heard = Date.now();
      this.receive(JSON.parse(e.data));
    });
    es.addEventListener("end", () => {
      es.close();
      clearInterval(this.watch);
      this.line = "class_ended";
      this.show();
    });
    es.onerror = () => {
      if (this.line === "class_ended") return;
      this.line = es.readyState === EventSource.CLOSED ? "class_unknown" : "class_offline";
      this.show();
    };
    es.onopen = () => {
      this.line = "class_following";
      this.show();
    };
  }

  receive(msg) {
    const before = this.latest && this.latest.revealed;
    this.latest = msg;
    this.line = msg.state ? "class_following" : "class_waiting";
    if (!same(before, msg.revealed)) this.revealed(msg.revealed);
    this.show();
    if (!this.away) this.follow();
  }

  setAway(on) {
    this.away = on;
    this.show();
    if (!on) this.follow();
  }

  /** Apply the latest state; one application at a time, the newest one last. */
  async follow() {
    if (this.applying) {
      this.again = true;
      return;
    }
    this.applying = true;
    try {
      do {
        this.again = false;
        if (this.latest && this.latest.state && !this.away) await this.applyState(this.latest.state);
      } while (this.again);
    } catch (err) {
      console.warn("gradviz: following the class failed", err);
    } finally {
      this.applying = false;
    }
    this.show();
  }

  async applyState(s) {
    if (s.present !== state.present) this.classroom.toggle(s.present);
    if (s.predict !== this.classroom.predicting) this.classroom.setPredict(s.predict);
    const vars = s.variables || {};
    const hasVars = Object.keys(vars).length > 0;
    if (state.ranSource !== s.source || (hasVars && !same(state.variables, vars))) {
      await this.openProgram({ source: s.source, variables: hasVars ? vars : null });
    }
    if (!state.response) return;
    if (state.fold !== s.fold) await until("relayout", () => emit("graph-level", s.fold));
    await this.applyOpen(s.open || {});
    this.applyLens(s.lens);
    const last = state.timeline ? state.timeline.length - 1 : 0;
    const k = Math.min(s.frame, last);
    if (k !== state.frame) {
      if (this.predict.pending()) this.predict.reveal();
      emit("goto", k);
    }
  }

  async applyOpen(open) {
    const views = state.response.views;
    for (let v = 0; v < views.length; v++) {
      const want = open[String(v)] || [];
      const mine = views[v].open || [];
      for (const p of want.filter((q) => !mine.includes(q))) await until("relayout", () => emit("open-part", v, p));
      const now = state.response.views[v].open || [];
      for (const p of now.filter((q) => !want.includes(q))) {
        if ((state.response.views[v].open || []).includes(p)) await until("relayout", () => emit("close-part", v, p));
      }
    }
  }

  applyLens(lens) {
    const panel = document.querySelector("[data-testid=lens-panel]");
    if (!panel || (panel.dataset.lens || null) === (lens || null)) return;
    const name = lens || panel.dataset.lens; // pressing the open view's button closes it
    const button = panel.querySelector(`[data-testid=lens-${name}]`);
    if (button) button.click();
  }

  /** The teacher revealed: this page's prediction is marked, and the class's share said. */
  revealed(r) {
    if (r && r.frame === state.frame && this.predict.pending()) this.predict.reveal();
    this.noteKey = null;
  }

  async submit(texts) {
    const guesses = texts.map(parseGuess);
    if (guesses.some((g) => g === null)) return this.say("class_not_number");
    const res = await sendGuess(this.id, this.student, state.frame, guesses);
    if (res.ok) this.say("class_sent");
    else this.say("class_send_failed", { msg: res.error.message });
  }
}

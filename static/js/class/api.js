/**
 * The live class's calls (app/routes/class_api.py), on api.js's `call`: each resolves to
 * {ok, status, data} or {ok: false, status, error}. The teacher's calls carry the teacher token,
 * a student's the student token.
 */

import { call } from "../api.js";

const JSON_HEADERS = { "Content-Type": "application/json" };

export function startClass() {
  return call("/api/class", { method: "POST" });
}

export function joinClass(id) {
  return call(`/api/class/${encodeURIComponent(id)}/join`, { method: "POST" });
}

export function publishState(id, teacher, body) {
  return call(`/api/class/${encodeURIComponent(id)}/state`, {
    method: "PUT", headers: { ...JSON_HEADERS, "X-Class-Teacher": teacher }, body: JSON.stringify(body),
  });
}

export function fetchAnswers(id, teacher, frame, full = false) {
  return call(`/api/class/${encodeURIComponent(id)}/answers?frame=${frame}&full=${full}`, {
    headers: { "X-Class-Teacher": teacher },
  });
}

export function publishReveal(id, teacher, body) {
  return call(`/api/class/${encodeURIComponent(id)}/reveal`, {
    method: "POST", headers: { ...JSON_HEADERS, "X-Class-Teacher": teacher }, body: JSON.stringify(body),
  });
}

export function endClass(id, teacher) {
  return call(`/api/class/${encodeURIComponent(id)}`, { method: "DELETE", headers: { "X-Class-Teacher": teacher } });
}

export function sendGuess(id, student, frame, guesses) {
  return call(`/api/class/${encodeURIComponent(id)}/guess`, {
    method: "POST", headers: { ...JSON_HEADERS, "X-Class-Student": student }, body: JSON.stringify({ frame, guesses }),
  });
}

/** The class's stream of states (EventSource reconnects by itself). */
export function classEvents(id) {
  return new EventSource(`/api/class/${encodeURIComponent(id)}/events`);
}

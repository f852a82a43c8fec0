/**
 * The live class on the page: with ?class=<id> the page follows that class (student.js), else the
 * classroom bar offers "Start a class" (teacher.js). Not in a one-file page (no server to meet at).
 */

import { offline } from "../offline.js";
import { StudentClass } from "./student.js";
import { TeacherClass } from "./teacher.js";

/** Start the teacher's or the student's side: `openProgram({source, variables})` runs a program. */
export function startLiveClass({ classroom, predict, openProgram }) {
  if (offline) return null;
  const id = new URLSearchParams(location.search).get("class");
  if (!id) return new TeacherClass({ classroom, predict });
  const student = new StudentClass({ classroom, predict, openProgram, id });
  student.start();
  return student;
}

/**
 * A calm notice when the server runs programs without its OS sandbox layer (GET /api/health says
 * sandbox.layers.os === false): programs are still contained by the language and process layers.
 * A health answer without the field (an older server) shows nothing.
 */

import { t } from "./i18n.js";

export class SandboxNotice {
  constructor(el) {
    this.el = el;
    this.off = false;
  }

  /** health: the /api/health answer (or null when it could not be read). */
  show(health) {
    const sandbox = health && health.sandbox;
    this.off = !!(sandbox && sandbox.layers && sandbox.layers.os === false);
    this.el.hidden = !this.off;
    this.lang();
  }

  lang() {
    this.el.querySelector(".txt").textContent = this.off ? t("sandbox_off") : "";
  }
}

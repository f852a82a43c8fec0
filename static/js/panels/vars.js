/**
 * The named-tensor table: one row (data-testid "var-NAME") per tensor the program bound to a
 * name, with the value and the .grad that name holds at the current step (optimizer steps and
 * in-place updates change them: timeline.js). The same at every graph level: the answer holds the
 * nodes bound to a name whatever the drawing shows. In expression mode the free names' rows are
 * editable (value: a number or nested list, requires_grad) and re-run on change.
 */

import { h } from "../dom.js";
import { compactText, heatMap, shapeText, valueText } from "../format.js";
import { t } from "../i18n.js";
import { whyButton } from "./why.js";

export class VarsPanel {
  constructor(host, { onEdit } = {}) {
    this.host = host;
    this.onEdit = onEdit;
    this.rows = new Map(); // name -> {tr, value, grad, node}
  }

  /** Build the rows of a new run. */
  build(st) {
    this.rows.clear();
    this.built = st.timeline;
    const resp = st.response;
    const vars = resp ? resp.variables : {};
    const free = new Set(resp && resp.mode === "expression" ? resp.free_names : []);
    const names = [...free, ...Object.keys(vars).filter((n) => !free.has(n))];
    // Named leaves the program did not bind to a top-level name: nn.Module parameters (fc1.weight).
    const extra = {};
    for (const n of resp ? resp.graph.nodes : []) {
      if (n.kind !== "leaf" || !n.var || !n.requires_grad || n.var in vars || n.var in extra) continue;
      extra[n.var] = { shape: n.shape, requires_grad: true, is_leaf: true, node: null, value: null, grad: null };
      names.push(n.var);
    }
    if (!names.length) {
      this.host.replaceChildren(h("p", { class: "muted" }, t("no_tensors")));
      return;
    }
    const tbody = h("tbody", {});
    for (const name of names) tbody.appendChild(this._row(st, name, vars[name] || extra[name], free.has(name)));
    // Three columns (requires_grad sits under the name) so .grad stays in view in a narrow column.
    const head = h("thead", {}, h("tr", {},
      h("th", { class: "h-name" }, t("col_name")), h("th", { class: "h-value" }, t("col_value")),
      h("th", { class: "h-grad" }, t("col_grad"))));
    this.host.replaceChildren(h("div", { class: "tablewrap" }, h("table", { class: "vars" }, head, tbody)));
  }

  _row(st, name, v, editable) {
    const value = h("td", { class: "v-value" });
    const grad = h("td", { class: "v-grad" });
    const rg = h("label", { class: "v-rg" });
    const tr = h("tr", { "data-testid": `var-${name}` },
      h("th", { scope: "row" }, h("code", {}, name), h("small", { class: "v-shape" }, v ? shapeText(v.shape) : ""), rg,
        whyButton(name, `why-${name}`) || ""),
      value, grad);
    if (editable) {
      const given = st.variables[name];
      const input = h("input", {
        type: "text", class: "v-input", "aria-label": `${name} ${t("col_value")}`, spellcheck: "false",
        value: given ? JSON.stringify(given.value) : v ? JSON.stringify(v.value) : "1.0",
      });
      const box = h("input", { type: "checkbox", "aria-label": `${name} requires_grad` });
      box.checked = given ? given.requires_grad !== false : v ? v.requires_grad : true;
      const commit = () => {
        let parsed;
        try {
          parsed = JSON.parse(input.value);
          input.classList.remove("bad");
        } catch {
          input.classList.add("bad");
          return;
        }
        this.onEdit?.(name, { value: parsed, requires_grad: box.checked });
      };
      input.addEventListener("change", commit);
      box.addEventListener("change", commit);
      value.appendChild(input);
      rg.append(box, "requires_grad");
    } else {
      // zero-width spaces: a narrow column breaks the line after "_" or "=", never inside a word
      rg.textContent = `requires_\u200bgrad=\u200b${v && v.requires_grad ? "True" : "False"}`;
    }
    this.rows.set(name, { tr, value, grad, v, editable });
    return tr;
  }

  /** Show values and .grad as they are at the current frame. */
  update(st) {
    const tl = st.timeline;
    const k = st.frame;
    // Another graph level or a part opened: the same run, its answer's rows taken again.
    if (tl !== this.built) this.build(st);
    for (const [name, r] of this.rows) {
      const v = r.v;
      if (!v) continue;
      if (r.tl !== tl) {
        r.tl = tl;
        r.ids = this._nodes(tl, name, v);
      }
      const ids = r.ids;
      if (!ids.length) {
        // Not in the graph (e.g. made under no_grad): what the program ended with.
        this._show(r, { shape: v.shape, data: v.value, summary: v.value_summary },
          v.grad === null ? null : { shape: v.shape, data: v.grad, summary: v.grad_summary }, true);
        continue;
      }
      const latest = this._latest(tl, ids, k);
      const exists = latest >= 0;
      const id = exists ? ids[latest] : ids[0];
      const val = tl.valueAt(id, k);
      const same = this._sameTensor(tl, ids, id);
      const grad = same.length === 1 ? tl.gradAt(id, k) : tl.gradAtAny(same, k);
      this._show(r, val, grad, exists);
    }
  }

  /**
   * Every graph node the name was bound to (a loop rebinds it once per iteration), in the order
   * they were made. A node with several outputs (a, b, c = p) holds the whole, not the name's
   * output: the row shows that output's own value as the program left it.
   */
  _nodes(tl, name, v) {
    if (!tl) return [];
    const ids = [...tl.nodesNamed(name)];
    if (v.node !== null && v.node !== undefined && tl.nodes.has(v.node) && !ids.includes(v.node)) ids.push(v.node);
    return ids.filter((id) => !(tl.nodes.get(id).outputs > 1))
      .sort((a, b) => tl.createdAt(a) - tl.createdAt(b) || a - b);
  }

  /**
   * The nodes among ids that are the tensor of node id: a leaf's nodes of its tensor object (a
   * parameter gets a node after each optimizer step, keeping its .grad); a name bound again to
   * another tensor does not show that tensor's .grad.
   */
  _sameTensor(tl, ids, id) {
    const node = tl.nodes.get(id);
    if (!node || node.kind !== "leaf" || node.obj === undefined || node.obj === null) return [id];
    return ids.filter((i) => {
      const n = tl.nodes.get(i);
      return n && n.kind === "leaf" && n.obj === node.obj;
    });
  }

  /** The index in ids of the last node made by frame k, or -1 (a binary search: a long loop binds a name often). */
  _latest(tl, ids, k) {
    let lo = 0;
    let hi = ids.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (tl.exists(ids[mid], k)) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  _show(r, val, grad, exists) {
    r.tr.classList.toggle("future", !exists);
    if (!r.editable) {
      this._cell(r.value, exists ? val : null, exists ? null : t("not_yet"));
      r.value.dataset.value = JSON.stringify(exists && val ? val.data ?? null : null);
    }
    this._cell(r.grad, grad, null);
    r.grad.dataset.grad = JSON.stringify(grad ? grad.data ?? null : null);
  }

  _cell(td, val, note) {
    const text = note || compactText(val, 40, t("mean_word"));
    if (td.dataset.text === text) return;
    td.dataset.text = text;
    const heat = val ? heatMap(val, { maxCells: 32, maxRows: 5 }) : null;
    td.title = note || valueText(val, 2000);
    td.replaceChildren(h("code", {}, text), ...(heat ? [heat] : []));
  }
}

/**
 * A backward step of a node with several outputs (UnbindBackward0, SplitBackward0: `a, b, c = p`,
 * split, chunk): which output each arriving gradient belongs to, the outputs no gradient reached
 * (zeros, as PyTorch fills them), and the gradient of the whole they make together.
 */

import { h, valueBox } from "../dom.js";
import { heatMap, valueText } from "../format.js";
import { t } from "../i18n.js";
import { nodeLabel, tensorName } from "../names.js";

/**
 * What edge `e` from `src` carries: for an output of a multi-output node, that output's name (the
 * program's, else the whole's name and its place) and its part of the whole's value (null when
 * the answer holds only a summary); else the node's own name and value.
 */
export function edgeTensor(src, e) {
  if (!src || !(src.outputs > 1) || !e) return { name: tensorName(src), value: src ? src.value : null };
  const k = e.output || 0;
  const named = src.var ? src.var.split(", ")[k] : null;
  const name = named && named !== "_" ? named : `${tensorName(src)}[${k}]`;
  const v = src.value;
  const p = src.params || {};
  if (!v || v.data === null || v.data === undefined) return { name, value: { shape: e.shape, data: null } };
  const start = p.sizes ? p.sizes.slice(0, k).reduce((a, b) => a + b, 0) : k;
  const take = (data, d) => {
    if (d > 0) return data.map((row) => take(row, d - 1));
    return p.sizes ? data.slice(start, start + p.sizes[k]) : data[start];
  };
  return { name, value: { shape: e.shape, data: take(v.data, p.dim || 0) } };
}

/** The paragraphs for step `step` of multi-output node `node`, or null for a node with one output. */
export function outputsBody(tl, node, step) {
  if (!node || !(node.outputs > 1) || !step.received) return null;
  const byOutput = new Map();
  for (const fl of step.received) {
    const e = tl.edges.get(fl.edge);
    const k = e && e.output !== undefined ? e.output : 0;
    if (!byOutput.has(k)) byOutput.set(k, []);
    byOutput.get(k).push({ fl, e });
  }
  const ul = h("ul", { class: "flows", "data-testid": "ex-outputs" });
  for (let k = 0; k < node.outputs; k++) {
    const got = byOutput.get(k);
    if (!got) {
      ul.appendChild(h("li", { class: "muted" }, t("ex_output_unused", { k })));
      continue;
    }
    const terms = got.map(({ fl, e }) => {
      const dst = e ? tl.nodes.get(e.target) : null;
      return `${valueText(fl.grad, 80)} ${t("ex_from", { label: dst ? nodeLabel(dst) : "?", i: e ? e.index + 1 : "?" })}`;
    });
    ul.appendChild(h("li", {}, h("b", {}, t("ex_output", { k })), " ", h("code", {}, terms.join(" + "))));
  }
  const dim = node.params ? node.params.dim : 0;
  const how = node.params && node.params.sizes ? "ex_outputs_cat" : "ex_outputs_stack";
  return [
    h("p", {}, t("ex_outputs", { label: nodeLabel(node), n: node.outputs })),
    ul,
    h("p", {}, t(how, { dim })),
    valueBox(valueText(step.upstream), heatMap(step.upstream)),
  ];
}

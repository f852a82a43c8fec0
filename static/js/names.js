/** How nodes and source lines are named in the panels (shared by explain, details, vars, predict). */

/**
 * A node's distinct name, as the drawing shows it: "MulBackward0 #2 (u)" for an op (the grad_fn,
 * numbered when several share it, and the name its tensor goes by), "w" for a leaf.
 */
export function nodeLabel(node) {
  if (!node) return "?";
  const label = node.label || node.name;
  if (node.kind === "op") {
    const sym = node.sym || node.var;
    return sym ? `${label} (${sym})` : label;
  }
  return node.label || node.var || node.name || "tensor";
}

/** The name of the tensor a node holds, as the rules write it: "z", "h₂", "u" (w.grad, not MulBackward0.grad). */
export function tensorName(node) {
  if (!node) return "?";
  return node.sym || node.var || node.name || "tensor";
}

/** A node that is a number the program wrote (4 in 4 * x): part of a formula, never an input. */
export function isConstant(node) {
  return Boolean(node && node.kind === "leaf" && node.is_constant);
}

/** The text of a 1-based source line, trimmed; "" when unknown. */
export function sourceLine(source, line) {
  if (!line || !source) return "";
  const lines = source.split("\n");
  return (lines[line - 1] || "").trim();
}

/**
 * The source text of the expression that recorded a node (its line and column to its end line and
 * column, 1-based, the end just after it); "" when unknown.
 */
export function sourceSpan(source, line, col, endLine, endCol) {
  if (!source || !line || !col || !endLine || !endCol) return "";
  const lines = source.split("\n");
  if (endLine === line) return (lines[line - 1] || "").slice(col - 1, endCol - 1).trim();
  const parts = [(lines[line - 1] || "").slice(col - 1)];
  for (let k = line + 1; k < endLine; k++) parts.push(lines[k - 1] || "");
  parts.push((lines[endLine - 1] || "").slice(0, endCol - 1));
  return parts.map((s) => s.trim()).join(" ");
}

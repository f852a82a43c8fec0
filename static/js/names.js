/** How nodes and source lines are named in the panels (shared by explain, details, vars). */

/** "MulBackward0 (z)" for an op, "w" for a named leaf, "tensor" / "1.0" otherwise. */
export function nodeLabel(node) {
  if (!node) return "?";
  if (node.kind === "op") return node.var ? `${node.name} (${node.var})` : node.name;
  return node.var || node.name || "tensor";
}

/** The text of a 1-based source line, trimmed; "" when unknown. */
export function sourceLine(source, line) {
  if (!line || !source) return "";
  const lines = source.split("\n");
  return (lines[line - 1] || "").trim();
}

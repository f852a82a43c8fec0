"""How large the gradients are, edge by edge and parameter by parameter, in each backward pass.

An edge's gradient is what the pass sent along it (the L2 norm of the array); the page colours
edges by its log10 on a diverging scale. A parameter's gradient is what reached its leaf in the
pass (the sum of what arrived), listed in the order the forward pass first used them, so a deep
net reads layer by layer from the input side.
"""

from __future__ import annotations

import math

from .. import values


def _log_norm(arr) -> tuple[float | str | None, float | None]:
    """The norm as JSON, and its log10 (None for a zero or non-finite norm)."""
    n = values.norm(arr)
    return n, (math.log10(n) if type(n) is float and n > 0 else None)


def gradient_heat(trace, kept_pass: set[int], edge_ids: set[int]) -> list[dict]:
    """One entry per kept backward pass: ``edges`` ({edge id, norm, log10}, for the edges in
    ``edge_ids``) and ``params`` ({node, name, module, norm, log10}, in forward order)."""
    out = []
    for bp in trace.passes:
        if bp.index not in kept_pass:
            continue
        edges = []
        params: dict[int, dict] = {}
        for s in bp.steps:
            if s.kind == "op":
                for f in s.sent:
                    if f.grad is None or f.edge not in edge_ids:
                        continue
                    norm, log = _log_norm(f.grad)
                    edges.append({"edge": f.edge, "norm": norm, "log10": log})
            elif s.kind == "leaf":
                leaf = trace.nodes[s.node]
                norm, log = _log_norm(s.upstream)
                params[s.node] = {"node": s.node, "name": leaf.name, "module": leaf.module,
                                  "is_param": leaf.is_param, "norm": norm, "log10": log}
        out.append({"pass_index": bp.index, "edges": edges, "params": [params[k] for k in sorted(params)]})
    return out

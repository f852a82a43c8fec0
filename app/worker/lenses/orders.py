"""Higher-order gradients as a graph: the ops a ``create_graph=True`` backward pass recorded.

With ``create_graph=True`` a backward pass computes with tensors that have a history: each rule's
ops become nodes of the graph (``OpNode.made_by``: which pass, at which of its steps). They read
the tensors the forward ops saved (the edges from forward nodes into them), and a later backward
from their result (a second derivative) walks them like any other node.
"""

from __future__ import annotations


def backward_made(trace, kept_nodes: set[int]) -> list[dict]:
    """One entry per pass that recorded ops: the ``nodes`` it made (each with the step that made
    it), the ``reads`` (edges from a node it did not make into one it made) and ``walked_by`` (the
    later passes that visited its nodes, with how many of their steps did)."""
    made: dict[int, list] = {}
    for n in trace.nodes:
        if n.kind == "op" and n.made_by is not None and n.id in kept_nodes:
            made.setdefault(n.made_by[0], []).append(n)
    out = []
    for index in sorted(made):
        nodes = made[index]
        ids = {n.id for n in nodes}
        reads = [e.id for e in trace.edges
                 if e.target in ids and e.source not in ids and e.source in kept_nodes]
        walked = []
        for bp in trace.passes:
            visits = sum(1 for s in bp.steps if s.node in ids)
            if bp.index != index and visits:
                walked.append({"pass_index": bp.index, "steps": visits})
        bp = trace.passes[index]
        out.append({"pass_index": index, "api": bp.api,
                    "nodes": [{"node": n.id, "step": n.made_by[1]} for n in nodes],
                    "reads": reads, "walked_by": walked})
    return out

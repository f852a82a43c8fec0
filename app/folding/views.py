"""Split a Trace into drawable views: one graph per backward-pass group.

Rules:
- a pass joins the previous view when its root node is already in that view (a second backward
  on the same graph), or was recorded by one of its passes (a backward of a gradient computed
  with create_graph=True); otherwise it opens a new view (a training iteration, a micro-batch);
- a view holds the nodes its passes visited, plus the ops recorded in its stretch of the program
  that no pass reached, plus the sources of every edge into its ops (inputs that need no grad);
- ops recorded after the last pass and reached by none form a last view; no passes: one view;
- when more than ``2 * KEEP`` views have passes (a training loop), only the first and last
  ``KEEP`` of them are kept in full; the others survive as iteration summaries.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from engine.trace import Trace

KEEP = 3  # full views kept at each end of a training loop


@dataclass
class View:
    """One drawable graph: node ids, the passes run on it, and whether it was kept in full."""

    nodes: set[int] = field(default_factory=set)
    passes: list[int] = field(default_factory=list)
    kept: bool = True
    index: int | None = None  # position among kept views


def build_views(trace: Trace) -> tuple[list[View], dict[int, int]]:
    """All views of the trace and the view (position in the returned list) of each pass."""
    ops = [n.id for n in trace.nodes if n.kind == "op"]
    if not trace.passes:
        return [View(nodes={n.id for n in trace.nodes})], {}
    views: list[View] = []
    pass_view: dict[int, int] = {}
    for bp in trace.passes:
        reached = {bp.root}
        reached.update(s.node for s in bp.steps)
        if views and (bp.root in views[-1].nodes or _made_in(trace, bp.root, views[-1])):
            views[-1].nodes |= reached
        else:
            views.append(View(nodes=reached))
        views[-1].passes.append(bp.index)
        pass_view[bp.index] = len(views) - 1

    reached_any = set().union(*(v.nodes for v in views))
    unreached = [(ordinal, nid) for ordinal, nid in enumerate(ops) if nid not in reached_any]
    starts = _ops_before_passes(trace) if unreached else []
    trailing = View()
    for ordinal, nid in unreached:
        first_after = bisect.bisect_right(starts, ordinal)  # the first pass that ran after this op
        if first_after == len(starts):
            trailing.nodes.add(nid)
        else:
            views[pass_view[trace.passes[first_after].index]].nodes.add(nid)
    if trailing.nodes:
        views.append(trailing)

    _add_edge_sources(trace, views)
    return views, pass_view


def _made_in(trace: Trace, nid: int, view: View) -> bool:
    """Node ``nid`` was recorded by a backward pass of ``view`` (create_graph=True): a backward
    from it (a second derivative) walks the same drawing."""
    made_by = getattr(trace.nodes[nid], "made_by", None)
    return made_by is not None and made_by[0] in view.passes


def _ops_before_passes(trace: Trace) -> list[int]:
    """How many ops the program had recorded when each backward pass started (nondecreasing)."""
    starts, ops = [], 0
    for kind, _ in trace.events:
        if kind == "op":
            ops += 1
        elif kind == "backward":
            starts.append(ops)
    return starts


def _add_edge_sources(trace: Trace, views: list[View]) -> None:
    """Every input of an op in a view is drawn in it (leaves that need no grad, constants)."""
    nodes, edges = trace.nodes, trace.edges
    for v in views:
        v.nodes |= {edges[e].source for nid in v.nodes if nodes[nid].kind == "op" for e in nodes[nid].inputs}


def trim_views(views: list[View], keep: int = KEEP) -> None:
    """Mark the middle iterations of a long training loop as not kept; number the kept views."""
    with_passes = [i for i, v in enumerate(views) if v.passes]
    if len(with_passes) > 2 * keep:
        for i in with_passes[keep:-keep]:
            views[i].kept = False
    k = 0
    for v in views:
        if v.kept:
            v.index = k
            k += 1


def view_edges(trace: Trace, nodes: set[int]) -> list[int]:
    """Edge ids drawn in a view: those whose target op is in it (sources were added)."""
    return [e.id for e in trace.edges if e.target in nodes and e.source in nodes]

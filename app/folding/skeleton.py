"""The run's skeleton for what an answer does not hold in full: every op and backward step of a
node hidden in a closed part still has its place in program order, as a node id only, so the
step player walks the whole run and the page can fetch the values when the part is opened.

Sizes stay bounded: a hidden op costs its id in an ``ops`` event, a hidden step its node id in a
run of steps, and a node that received gradients along very many edges (a weight shared by every
step of a long loop) keeps the first and last ``RECEIVED_KEEP`` of them, with their count.
"""

from __future__ import annotations

RECEIVED_KEEP = 64  # at each end of a long fan-out sum


def steps_split(steps, shown: set[int]) -> tuple[list, list[dict]]:
    """The steps of shown nodes, and the others as runs ``{"index": first, "nodes": [...]}``."""
    full, runs = [], []
    for s in steps:
        if s.node in shown:
            full.append(s)
            continue
        last = runs[-1] if runs else None
        if last is not None and last["index"] + len(last["nodes"]) == s.index:
            last["nodes"].append(s.node)
        else:
            runs.append({"index": s.index, "nodes": [s.node]})
    return full, runs


def received_kept(flows: list) -> list:
    """What a step shows of the gradients it received: all of them, or both ends of a long list."""
    if len(flows) <= 2 * RECEIVED_KEEP:
        return flows
    return flows[:RECEIVED_KEEP] + flows[-RECEIVED_KEEP:]


def compact_events(events, shown: set[int], view_of) -> list[dict]:
    """Program order (``events``: (kind, index) pairs) with each stretch of hidden ops of one view
    as one ``ops`` event."""
    out: list[dict] = []
    nodes = None  # the node ids of the ``ops`` event being extended
    last_view = None
    for kind, index in events:
        if kind != "op" or index in shown:
            out.append({"kind": kind, "index": index})
            nodes = None
            continue
        view = view_of(index)
        if nodes is not None and last_view == view:
            nodes.append(index)
        else:
            nodes, last_view = [index], view
            out.append({"kind": "ops", "index": None, "nodes": nodes, "view": view})
    return out

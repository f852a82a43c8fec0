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


def compact_events(events: list[dict], shown: set[int], view_of) -> list[dict]:
    """Program order with each stretch of hidden ops of one view as one ``ops`` event."""
    out: list[dict] = []
    for ev in events:
        if ev["kind"] != "op" or ev["index"] in shown:
            out.append(ev)
            continue
        nid = ev["index"]
        view = view_of(nid)
        last = out[-1] if out else None
        if last is not None and last["kind"] == "ops" and last["view"] == view:
            last["nodes"].append(nid)
        else:
            out.append({"kind": "ops", "index": None, "nodes": [nid], "view": view})
    return out

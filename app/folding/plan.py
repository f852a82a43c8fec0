"""Which parts of each view an answer shows open, and what it therefore holds (worker side).

A run's answer carries in full only the nodes its drawings show; the nodes inside closed parts
are hidden (the page fetches them when the user opens the part: ``POST /api/open`` runs the
program again, deterministically, and answers that view at the new open set). The answer still
names every op and every backward step in order (the skeleton the step player walks), and
describes each part the page can see: the open ones and the closed boxes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.trace import Trace

from .level import ALL_BUDGET, AUTO_BUDGET, ancestors, choose_open, level, module_level
from .parts import OPEN_MAX, ViewParts, view_parts
from .views import View, view_edges

Fold = str | list[str]  # "auto" | "module" | "op", or the part ids to open (oldest first)


@dataclass
class ViewFold:
    """One view at its open set: what it shows and the parts the page sees."""

    parts: ViewParts
    open: list[str]
    nodes: list[int]  # nodes shown
    edges: list[int]  # edges between shown nodes
    links: list[dict]  # edges with an end in a closed part
    known: list[str]  # parts described in the answer: the open ones and the boxes


@dataclass
class FoldPlan:
    views: list[ViewFold] = field(default_factory=list)
    shown: set[int] = field(default_factory=set)

    def node_part(self) -> dict[int, str | None]:
        out: dict[int, str | None] = {}
        for v in self.views:
            for nid in v.nodes:
                out.setdefault(nid, v.parts.node_part.get(nid))
        return out


def plan_folds(trace: Trace, kept_views: list[View], fold: Fold | dict = "auto",
               budget: int = AUTO_BUDGET, open_max: int = OPEN_MAX) -> FoldPlan:
    """The open set of each kept view (``fold`` for all of them, or ``{view index: fold}``) and
    what follows from it."""
    plan = FoldPlan()
    next_id = 0
    seen: dict[int, int] = {}
    for v in kept_views:
        for nid in v.nodes:
            seen[nid] = seen.get(nid, 0) + 1
    shared = {nid for nid, n in seen.items() if n > 1}  # one node in several drawings: in none of their parts
    for v in kept_views:
        edge_ids = view_edges(trace, v.nodes)
        pinned = [trace.passes[p].root for p in v.passes] + [n for n in v.nodes if n in shared]
        vp = view_parts(trace, v.index, v.nodes, edge_ids, next_id, open_max, outputs=pinned)
        next_id += len(vp.parts)
        f = fold.get(v.index, "auto") if isinstance(fold, dict) else fold
        opened = open_set(vp, f, budget)
        nodes = {nid: {"part": vp.node_part.get(nid)} for nid in v.nodes}
        parts = {pid: {"parent": p.parent} for pid, p in vp.parts.items()}
        lv = level(nodes, _edge_fields(trace), parts, sorted(v.nodes), edge_ids, opened)
        known = lv.open + lv.boxes
        plan.views.append(ViewFold(parts=vp, open=sorted(lv.open, key=_num), nodes=lv.nodes, edges=lv.edges,
                                   links=[ln.data() for ln in lv.links], known=sorted(known, key=_num)))
        plan.shown.update(lv.nodes)
    return plan


def _num(pid: str) -> int:
    return int(pid[1:])


def _edge_fields(trace: Trace):
    """What ``folding.level`` reads of an edge, by id: (source, target, shape, needs_grad)."""
    edges = trace.edges

    def fields(eid: int) -> tuple:
        e = edges[eid]
        return e.source, e.target, e.shape, e.needs_grad  # (a link copies the shape it keeps)

    return fields


def open_set(vp: ViewParts, fold: Fold, budget: int = AUTO_BUDGET) -> set[str]:
    """The parts of a view to open: "auto" within ``budget`` shown nodes and boxes, "module" the
    module calls that hold others (folding.module_level),
    "op" as many as ``ALL_BUDGET`` allows, or the listed ids (with the parts around them; the
    oldest are left closed when they would show more than ``ALL_BUDGET``)."""
    meta = {pid: {"parent": p.parent, "size": p.size, "key": p.key, "kind": p.kind, "type_name": p.type_name}
            for pid, p in vp.parts.items()}
    if fold == "module":
        return module_level(meta)
    if fold == "op":
        return choose_open(meta, vp.children, vp.size(), ALL_BUDGET, chunks=True)
    if isinstance(fold, str):
        return choose_open(meta, vp.children, vp.size(), budget)
    chosen: list[str] = []
    for pid in reversed(fold):  # the newest first
        if pid not in vp.parts:
            continue
        wanted = [p for p in ancestors(meta, pid) if p not in chosen]
        trial = set(chosen) | set(wanted)
        if vp.size() + sum(meta[p]["size"] - 1 for p in trial) > ALL_BUDGET:
            continue
        chosen.extend(wanted)
    return set(chosen)


def part_out(p, known_open: bool) -> dict:
    """A ``schemas.PartOut``."""
    return {
        "id": p.id, "kind": p.kind, "label": p.label, "type_name": p.type_name, "parent": p.parent,
        "view": p.view, "line": p.line, "col": p.col, "ops": p.ops, "size": p.size, "key": p.key,
        "iterations": p.iterations, "first_iteration": p.first_iteration, "iters": p.iters,
        "span": list(p.span), "outside": p.outside, "open": known_open,
    }

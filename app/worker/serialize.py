"""A Trace (engine/trace.py) → plain dicts shaped like app/schemas/run.py (everything but the drawings).

Runs in the worker process: the result must be picklable plain data. The layout (app/drawing/layout.py)
fills each view's ``svg`` afterwards in the server process, from these same dicts.
"""

from __future__ import annotations

import numpy as np

from engine.trace import LeafNode, OpNode, Trace

from ..folding.delta import held_in_view
from ..folding.plan import Fold, FoldPlan, part_out, plan_folds
from ..folding.skeleton import compact_events, received_kept, steps_split
from ..folding.views import View, build_views, trim_views
from . import values
from .explain import annotate
from .explain.names import is_constant
from .lenses import build_lenses


def serialize_trace(trace: Trace, output_node: int | None = None, fold: Fold | dict = "auto",
                    whole: bool = True, had: tuple[int, list[str]] | None = None) -> dict:
    """graph, backward, views (svg empty), optimizer_steps, iterations, events, parts and lenses of
    a trace; nodes hidden in closed parts (``fold``: see app/folding/plan.py) only by id. ``whole``
    False: of the lenses only the heat (what an answer of one view carries). ``had``: ``(view, parts
    open in the page's drawing of it)``: the steps and nodes that drawing showed are not written out
    or explained (``POST /api/open`` leaves them out of its answer: app/folding/delta.py)."""
    views, pass_view, kept_views, kept_nodes, kept_pass = kept_of(trace)
    plan = plan_folds(trace, kept_views, fold)
    shown = plan.shown
    node_view = _first_view(kept_views)
    outputs = {bp.root for bp in trace.passes}
    if not outputs:
        outputs = {output_node} if output_node is not None else _sinks(trace)
    saved_nodes = {s.node for n in trace.nodes if n.kind == "op" for s in n.saved if s.node is not None}

    # The values of the tensors a program named and the gradients a pass wrote do not depend on
    # what the drawing shows: those nodes come with their data at every graph level.
    data = shown | _held(trace, kept_nodes)
    node_part = plan.node_part()
    for v in plan.views:  # a node not drawn: the box that hides it
        known = set(v.known)
        for nid in data - node_part.keys():
            if nid in v.parts.node_part:
                pid = v.parts.node_part[nid]
                while pid is not None and pid not in known:
                    pid = v.parts.parts[pid].parent
                node_part[nid] = pid
    nodes = [_node(n, n.id in outputs, n.id in saved_nodes, node_view.get(n.id))
             | {"part": node_part.get(n.id)} for n in trace.nodes if n.id in data]
    shown_edges = {e for v in plan.views for e in v.edges}
    edges = [_edge(trace.edges[e]) for e in sorted(shown_edges)]
    omitted_ops = sum(1 for n in trace.nodes if n.kind == "op" and n.id not in kept_nodes)

    views_out = [_view(v, trace, plan) for v in kept_views]
    parts = _parts(plan)
    held = held_in_view(views_out, parts, nodes, *had) if had is not None else set()
    held_view = had[0] if had is not None else None
    backward = [_pass(bp, at, data, held if at == held_view else ()) for bp in trace.passes
                if bp.index in kept_pass for at in [views[pass_view[bp.index]].index]]
    after = _kept_after_passes(trace, kept_pass)
    steps_kept, updates_kept = after["optim"], after["update"]
    out = {
        "graph": {"nodes": nodes, "edges": edges, "omitted_ops": omitted_ops},
        "backward": backward,
        "views": views_out,
        "optimizer_steps": [_optimizer_step(s, shown) for s in trace.optimizer_steps
                            if s.index in steps_kept],
        "updates": [_update(u) for u in trace.updates if u.index in updates_kept],
        "zero_grads": _zero_grads(trace, after["zero_grad"]),
        "iterations": [_iteration(bp, trace, views[pass_view[bp.index]]) for bp in trace.passes],
        "forward": [_forward_step(f, shown) for f in trace.forward_steps],
        "events": compact_events(_events(trace, kept_nodes, kept_pass, steps_kept, updates_kept), shown,
                                 node_view.get),
        "parts": parts,
        "lenses": build_lenses(trace, kept_views, kept_nodes, kept_pass, shown_edges | _link_edges(plan),
                               whole),
    }
    annotate(trace, out, node_view, held)  # labels, names and the explanation model (app/worker/explain/)
    return out


def kept_of(trace: Trace) -> tuple:
    """What an answer keeps of a trace, whatever its drawing shows: ``(views, the backward pass ->
    view index, the kept views, their nodes, the indices of their backward passes)`` (a training
    loop keeps its first and last iterations in full)."""
    views, pass_view = build_views(trace)
    trim_views(views)
    kept_views = [v for v in views if v.kept]
    kept_nodes: set[int] = set().union(*(v.nodes for v in kept_views)) if kept_views else set()
    kept_pass = {i for i, v in pass_view.items() if views[v].kept}
    return views, pass_view, kept_views, kept_nodes, kept_pass


def _link_edges(plan: FoldPlan) -> set[int]:
    """The edges drawn on their own as links into and out of closed boxes (a link that stands for
    several edges, a shared weight's into a loop, is drawn once for all of them)."""
    return {link["edges"][0] for v in plan.views for link in v.links if len(link["edges"]) == 1}


def _parts(plan: FoldPlan) -> list[dict]:
    """The parts the answer describes: in each view, the open ones and the closed boxes."""
    out = []
    for v in plan.views:
        opened = set(v.open)
        out.extend(part_out(v.parts.parts[pid], pid in opened) for pid in v.known)
    return out


# ---- nodes and edges ---------------------------------------------------------------------------
def _node(n: LeafNode | OpNode, is_output: bool, is_saved: bool, view: int | None) -> dict:
    constant = n.kind == "leaf" and is_constant(n)
    common = {
        "id": n.id, "kind": n.kind, "shape": list(n.shape), "dtype": n.dtype,
        "value": values.value(n.value), "is_output": is_output, "is_saved": is_saved,
        "line": n.line, "col": n.col, "module": n.module, "iteration": view,
        "var": None if constant else n.name,
    }
    if n.kind == "leaf":
        common.update(name=n.name or "tensor", requires_grad=n.requires_grad, is_param=n.is_param,
                      is_constant=constant, obj=n.obj)
        return common
    common.update(
        name=n.grad_fn, requires_grad=True, op=n.op, description=n.description,
        formulas=list(n.formulas), params=jsonable(n.params), inputs=list(n.inputs),
        retains_grad=n.retains_grad, outputs=_outputs(n),
        saved=[{"name": s.name, "shape": list(s.shape), "value": values.value(s.value), "node": s.node}
               for s in n.saved],
    )
    if n.walked:  # (a CopySlices that wraps an op: the edges its steps send along)
        common["walked"] = list(n.walked)
    return common


def _outputs(n: OpNode) -> int:
    """How many outputs an op node has: the pieces of unbind (one per slice) and split, else 1."""
    return len(n.pieces) if n.pieces else 1


def _held(trace: Trace, kept: set[int]) -> set[int]:
    """The kept nodes whose values the page shows whatever it draws: named leaves (the tensors a
    program made and named, a module's parameters) and the non-leaves that keep their .grad
    (``retain_grad``). A named result of an op inside a closed part stays there: a loop rebinds
    such a name once per iteration, and the answer stays bounded by what it draws."""
    nodes = trace.nodes
    return {nid for nid in kept
            if ((n := nodes[nid]).kind == "leaf" and n.name is not None and not is_constant(n))
            or (n.kind == "op" and n.retains_grad)}


def _sinks(trace: Trace) -> set[int]:
    """Op nodes that feed nothing: the outputs of a program that never called backward."""
    used = {e.source for e in trace.edges}
    return {n.id for n in trace.nodes if n.kind == "op" and n.id not in used}


def _edge(e) -> dict:
    return {"id": e.id, "source": e.source, "target": e.target, "index": e.index,
            "shape": list(e.shape), "needs_grad": e.needs_grad, "output": e.output}


def _first_view(kept_views: list[View]) -> dict[int, int]:
    where: dict[int, int] = {}
    for v in kept_views:
        for nid in v.nodes:
            where.setdefault(nid, v.index)
    return where


# ---- backward ----------------------------------------------------------------------------------------
def _flow(f) -> dict:
    return {"edge": f.edge, "grad": values.value(f.grad)}


def _step(s) -> dict:
    out = {
        "index": s.index, "node": s.node, "kind": s.kind,
        "received": [_flow(f) for f in received_kept(s.received)], "upstream": values.value(s.upstream),
        "sent": [_flow(f) for f in s.sent],
        "grad_before": values.value(s.grad_before), "grad_after": values.value(s.grad_after),
        "retained": s.retained, "is_sum": len(s.received) > 1,
        "hook": s.hook, "hook_line": s.hook_line, "hook_col": s.hook_col,
    }
    if len(out["received"]) < len(s.received):
        out["received_count"] = len(s.received)
    return out


def _pass(bp, view: int, shown: set[int], held=()) -> dict:
    """A backward pass, its steps at the nodes ``shown`` but those at the nodes ``held``."""
    steps, hidden = steps_split(bp.steps, shown)
    return {
        "index": bp.index, "root": bp.root, "api": bp.api, "retain_graph": bp.retain_graph,
        "create_graph": bp.create_graph, "seed": values.value(bp.seed),
        "steps": [_step(s) for s in steps if s.node not in held], "hidden": hidden,
        "line": bp.line, "col": bp.col,
        "view": view, "freed": not bp.retain_graph,
    }


def _view(v: View, trace: Trace, plan: FoldPlan) -> dict:
    loss = None
    if v.passes:
        loss = _scalar(trace.nodes[trace.passes[v.passes[0]].root].value)
    fold = plan.views[v.index]
    return {"index": v.index, "passes": list(v.passes), "nodes": fold.nodes, "edges": fold.edges,
            "svg": "", "folded": len(fold.known) > len(fold.open), "loss": loss, "folds": [],
            "open": fold.open, "links": fold.links}


def _scalar(arr: np.ndarray):
    return values.number(arr.reshape(-1)[0]) if arr.size == 1 else None


def _iteration(bp, trace: Trace, view: View) -> dict:
    params: dict[str, dict] = {}
    for s in bp.steps:
        if s.kind != "leaf":
            continue
        leaf = trace.nodes[s.node]
        key = leaf.name or f"#{leaf.id}"
        if key in params:
            key = f"{key}#{leaf.id}"
        params[key] = {"value_norm": values.norm(leaf.value), "grad_norm": values.norm(s.grad_after)}
    return {"pass_index": bp.index, "loss": _scalar(trace.nodes[bp.root].value),
            "view": view.index if view.kept else None, "params": params}


def _forward_step(f, shown: set[int]) -> dict:
    return {
        "index": f.index, "op": f.op, "formulas": list(f.formulas),
        "inputs": [n if n in shown else None for n in f.inputs],
        "node": f.node if f.node in shown else None,
        "tangents": [values.value(t) for t in f.tangents], "shares": [values.value(x) for x in f.shares],
        "tangent": values.value(f.tangent), "line": f.line, "col": f.col,
    }


# ---- optimizer steps and events ---------------------------------------------------------------------
def _kept_after_passes(trace: Trace, kept_pass: set[int]) -> dict[str, set[int]]:
    """The optimizer steps (``"optim"``), in-place updates (``"update"``) and ``"zero_grad"``s that
    follow a kept pass (or no pass at all), by index; one walk of the events (a long program has
    one per op)."""
    kept: dict[str, set[int]] = {"optim": set(), "update": set(), "zero_grad": set()}
    last_pass = None
    for k, index in trace.events:
        if k == "op":
            continue
        if k == "backward":
            last_pass = index
        elif k in kept and (last_pass is None or last_pass in kept_pass):
            kept[k].add(index)
    return kept


def _optimizer_step(step, kept_nodes: set[int]) -> dict:
    params = []
    for p in step.params:
        node = p.get("node")
        params.append({
            "node": node if node in kept_nodes else None, "name": p.get("name"),
            "before": values.value(p.get("before")), "grad": values.value(p.get("grad")),
            "after": values.value(p.get("after")),
        })
    return {"index": step.index, "optimizer": step.optimizer, "rule": step.rule, "params": params,
            "line": step.line, "col": step.col}


def _zero_grads(trace: Trace, kept: set[int]) -> list[list[dict]]:
    """Per zero_grad (by its index), the .grads it reset; [] for one the answer leaves out
    (``kept``: the indices of those it keeps)."""
    return [[{"node": nid, "grad": values.value(g)} for nid, g in reset] if i in kept else []
            for i, reset in enumerate(trace.zero_grads)]


def _update(u) -> dict:
    """An in-place update; its nodes by id whether the answer holds their data or not (the page
    finds them when it does)."""
    return {"index": u.index, "node": u.node, "name": u.name, "op": u.op, "grad": u.grad,
            "before": values.value(u.before), "after": values.value(u.after), "next_node": u.next_node,
            "line": u.line, "col": u.col}


def _events(trace: Trace, kept_nodes: set[int], kept_pass: set[int], kept_steps: set[int],
            kept_updates: set[int]) -> list[tuple]:
    """The trace's events (kind, index) of what the answer keeps."""
    kept = {"op": kept_nodes, "backward": kept_pass, "optim": kept_steps, "update": kept_updates}
    return [(kind, index) for kind, index in trace.events if kind not in kept or index in kept[kind]]


# ---- params ------------------------------------------------------------------------------------------------
def jsonable(x, depth: int = 0):
    """Op parameters (dim=, exponent, dtype, shapes, index arrays) as JSON-safe data."""
    if depth > 4:
        return repr(x)
    if x is None or isinstance(x, (str, bool)):
        return x
    if isinstance(x, (int, float, np.number, np.bool_)):
        return values.number(x)
    if isinstance(x, np.ndarray):
        return values.value(x)
    if isinstance(x, (list, tuple)):
        return [jsonable(v, depth + 1) for v in x]
    if isinstance(x, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in x.items()}
    if isinstance(x, slice):
        return f"{'' if x.start is None else x.start}:{'' if x.stop is None else x.stop}" + \
            ("" if x.step is None else f":{x.step}")
    if isinstance(x, np.dtype):
        return values.dtype_name(x)
    name = getattr(x, "name", None)
    return name if isinstance(name, str) else repr(x)

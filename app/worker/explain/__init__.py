"""What the page says about a run, derived from the op table's explanations: each node's label and
name, what each op computes and its rules, and the worked arithmetic of every backward step.

``annotate(trace, answer, node_view)`` adds it to a serialized answer (app/worker/serialize.py) in place:
``label``, ``sym``, ``explain`` (and the source span) on graph nodes, ``explain`` on op steps.
"""

from __future__ import annotations

from engine.ops.table import OPS
from engine.trace import Trace

from . import copy_slices
from .model import _dry_rules, node_model, step_model
from .names import Names, Syms, is_constant

MAX_WORKED_INPUTS = 3000  # beyond this many, an answer's steps carry their rules without arithmetic


def annotate(trace: Trace, answer: dict, node_view: dict[int, int], held=frozenset()) -> None:
    """Add the explanation model to ``answer`` (the dict ``serialize_trace`` builds); the nodes
    ``held`` (the answer leaves them out: the page has them) are named but not explained."""
    graph = answer["graph"]["nodes"]
    # every node of the kept views is named, drawn or inside a closed part: a name does not change
    # when a part opens or the graph is drawn at another level
    kept = [trace.nodes[nid] for nid in sorted(node_view)] or [trace.nodes[n["id"]] for n in graph]
    constant = {n.id for n in kept if n.kind == "leaf" and is_constant(n)}
    names = Names(kept, node_view, constant,
                  lambda nid: [trace.edges[e].source for e in trace.nodes[nid].inputs])
    syms = Syms(names)
    rules: dict[int, list] = {}
    roots: dict[int, str] = {}  # the name of the loss each node's rules differentiate
    budget = MAX_WORKED_INPUTS
    for bp_out in answer["backward"]:
        bp = trace.passes[bp_out["index"]]
        # the output's own name, even one the page gave it (an expression's result): never an L
        # the program does not have
        root_name = syms.get(bp.root, "L") if bp.root not in constant else "L"
        for s_out in bp_out["steps"]:  # the steps the answer holds (not those inside closed parts)
            step = bp.steps[s_out["index"]]
            node = trace.nodes[step.node]
            if step.kind != "op" or not explained(node):
                continue
            if node.walked:  # a CopySlices that wraps an op: its steps run that op's rules
                model = copy_slices.step_model(trace, node, step, syms, root_name, worked=budget > 0)
                budget -= sum(1 for w in model["inputs"] if w is not None)
                s_out["explain"] = model
                continue
            model = step_model(trace, node, step, syms, root_name, worked=budget > 0)
            budget -= sum(1 for w in model["inputs"] if w is not None)
            s_out["explain"] = model
            roots.setdefault(node.id, root_name)
            known = rules.setdefault(node.id, [None] * len(node.inputs))
            for i, w in enumerate(model["inputs"]):
                if w is not None and known[i] is None:
                    known[i] = w["rule"]
    outputs = [n["id"] for n in graph if n.get("is_output")]
    alone = syms.get(outputs[0], "L") if len(outputs) == 1 else "L"  # rules of ops no pass visited
    for n in graph:
        n["label"], n["sym"] = names[n["id"]]
        node = trace.nodes[n["id"]]
        if n["kind"] == "op":
            n["end_line"], n["end_col"] = node.end_line, node.end_col
            if explained(node) and node.id not in held:
                root = roots.get(node.id, alone)
                known = _complete(trace, node, syms, rules.get(node.id), root)
                n["explain"] = node_model(trace, node, syms, known, root)


def explained(node) -> bool:
    """Whether the op table explains ``node`` (a recording of real PyTorch may hold ops it lacks)."""
    op = OPS.get(node.op) if node.kind == "op" else None
    return op is not None and op.explain is not None


def _complete(trace: Trace, node, syms: dict, known: list | None, root: str) -> list:
    """The rule of every input: those steps wrote, the rest worked out on a zero gradient."""
    if known is not None and all(r is not None for r in known):
        return known
    dry = _dry_rules(trace, node, syms, root)
    return [k if k is not None else d for k, d in zip(known or dry, dry)]

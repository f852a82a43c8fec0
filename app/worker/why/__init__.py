"""Why is a named tensor's gradient suspicious? Its diagnosis, read off the trace.

For each tensor the program bound to a name whose gradient is None, zero (entirely or in part),
not finite, or tiny or huge against its value (``symptoms.py`` holds the thresholds), ``diagnose``
walks the recorded backward pass from the tensor toward the loss and stops at the cause: ``cut``
(the tensor never reached the loss: a detach, ``.data``, ``.item()``, ``no_grad``, an integer or
boolean result; or it does not require grad), ``zeroed`` (a ReLU, clamp, where, a hook, a
``zero_grad`` after the pass), ``vanish`` / ``explode`` (the gradient's size along the path),
``nonfinite`` (the first op that made inf or NaN) or ``not_yet`` (no pass ran; a non-leaf without
``retain_grad()``). An op is blamed only for a cause it declares (engine/ops/causes.py). The
sentences, in English and Chinese, are ``words.py``'s, filled in with the program's names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import search
from .speak import say
from .symptoms import HUGE, TINY, scale, symptom
from .walks import Walks

PARAMS = 64  # the module parameters diagnosed at most (a deep model's others are only counted)


@dataclass
class Subject:
    """A tensor the program bound to a name, as the run ended."""

    name: str
    node: int | None
    requires_grad: bool
    is_leaf: bool
    retains_grad: bool
    grad: np.ndarray | None
    value: np.ndarray


def diagnose_all(trace, subjects: list[Subject]) -> dict:
    """``why`` of a RunResponse: the thresholds and, by name, each suspicious gradient's diagnosis:
    every tensor the program named, and the first ``PARAMS`` suspicious module parameters (``more``:
    how many others were left undiagnosed, when some were)."""
    out, w, params, more = {}, Walks(trace), 0, 0
    subjects = list(subjects)
    named = len(subjects)
    for k, s in enumerate(subjects + param_subjects(w, {s.name for s in subjects})):
        if np.asarray(s.value).dtype.kind != "f":
            continue
        if k >= named and params >= PARAMS:
            more += symptom(s.grad, s.value) is not None
            continue
        d = diagnose(w, s)
        if d is not None:
            out[s.name] = d
            params += k >= named
    why = {"tiny": TINY, "huge": HUGE, "tensors": out}
    if more:
        why["more"] = more
    return why


def diagnose(w: Walks, s: Subject) -> dict | None:
    """The diagnosis of ``s`` (None when its gradient looks healthy)."""
    sym = symptom(s.grad, s.value)
    if sym is None:
        return None
    found = _find(w, s, sym) or search.finding("unknown", "unknown", None, [], [])
    found.update(name=s.name, node=s.node, symptom=sym)
    found["text"] = say(w.trace, s.name, found)
    return found


def _find(w: Walks, s: Subject, sym: str) -> dict | None:
    trace = w.trace
    ids = w.same_tensor(s.node)
    if not s.requires_grad:
        return search.created(trace, s.node)
    if not s.is_leaf and not s.retains_grad:
        return search.finding("not_yet", "retain_grad", s.node, sorted(ids), [])
    if not trace.passes:
        return search.finding("not_yet", "backward", s.node, sorted(ids), [])
    bp = w.last_pass(ids)
    if bp is None:
        return search.unreached(w, ids, s.name)
    gone = search.reset(w, ids, bp)
    if gone is not None:
        return gone
    if sym == "none":
        return None
    if sym == "nonfinite":
        return search.nonfinite(w, bp, ids)
    if sym in ("zero", "part_zero"):
        return search.zeroed(w, bp, ids)
    limit = (TINY if sym == "tiny" else HUGE) * scale(s.value)
    mean = float(np.abs(np.asarray(s.grad, dtype=np.float64)).mean())
    return search.scaled(w, bp, ids, sym, limit, mean)


def engine_subjects(trace, tensors: dict) -> list[Subject]:
    """The named engine tensors of a run (``RunResult.variables``) as subjects."""
    from engine.tensor import Tensor
    from engine.trace import node_id

    out = []
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            continue
        grad = t.grad if t.is_leaf or t.retains_grad else None
        out.append(Subject(name, node_id(trace, t), bool(t.requires_grad), bool(t.is_leaf),
                           bool(t.retains_grad), None if grad is None else grad._data.copy(), t._data.copy()))
    return out


def param_subjects(w: Walks, taken: set[str]) -> list[Subject]:
    """The named parameters the program did not bind to a name of its own (a module's ``fc1.weight``,
    which the Named tensors table lists too), with the ``.grad`` the trace says each ended with."""
    trace = w.trace
    last: dict[int, int] = {}  # tensor object -> its latest leaf node
    for n in trace.nodes:
        if n.kind == "leaf" and n.is_param and n.requires_grad and n.name and n.name not in taken:
            last[n.obj] = n.id
    out = []
    for nid in last.values():
        n = trace.nodes[nid]
        grad = w.final_grad(w.same_tensor(nid))
        out.append(Subject(n.name, nid, True, True, False, grad, n.value))
    return out

"""One replay of a recorded graph: the ops below a node evaluated again in the order they ran, from
the trace alone (the program never runs a second time).

A ``Replay`` walks the ops the trace recorded under ``root`` (ids grow as ops are recorded, so
sorted ids put every source before its users) and pushes through them either values, with the op
table's forward functions (``values``: the check by hand moves one leaf element and replays in
float64), or tangents, with the table's forward-mode rules through ``engine.tangents.shares_of``,
the place the live engine sums them too (``tangents``: the forward-mode view, one unit tangent at a
time). Only ops of the table can be replayed; a program's own ``autograd.Function`` is not in it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .ops.pieces import piece_keys
from .ops.table import NP, OPS, SAVED_INPUT, Saved
from .tangents import shares_of
from .trace import Trace

_SLOTS = tuple(SAVED_INPUT)  # "a", "b", "c": the names the rules read the inputs by


class TooLarge(Exception):
    """The graph below the root holds more ops than the replay may walk."""


class Replay:
    """The recorded graph below ``root``: its ops in the order they ran (``ops``), its leaves
    (``leaves``), and the two walks over it. With ``max_ops``, a larger graph raises ``TooLarge``
    as soon as its walk finds one op too many."""

    def __init__(self, trace: Trace, root: int, max_ops: int | None = None):
        self.trace = trace
        self.root = root
        nodes = trace.nodes
        order = sorted(_ancestry(trace, root, max_ops))
        self.ops = [nid for nid in order if nodes[nid].kind == "op"]
        self.leaves = [nid for nid in order if nodes[nid].kind == "leaf"]
        self._saved: dict[int, Saved] = {}
        self._downstream: dict[int, list[int]] = {}

    def leaf_values(self, float64: bool = True) -> dict:
        """Each leaf's recorded value (floating ones in float64 with ``float64``), by node id."""
        cast = _f64 if float64 else np.asarray
        return {nid: cast(self.trace.nodes[nid].value) for nid in self.leaves}

    def values(self, given: dict, ops: list[int] | None = None, float64: bool = True) -> dict:
        """Each op of ``ops`` (all of them by default) computed again with the table's forward
        function, in order, into ``given`` (node id -> array; a source not in it reads its recorded
        value), which is returned. ``float64``: floating values and casts in float64."""
        return evaluate(self.trace, self.ops if ops is None else ops, given, float64)

    def downstream(self, leaf: int) -> list[int]:
        """The ops whose value depends on ``leaf``, in order."""
        if leaf not in self._downstream:
            edges, nodes = self.trace.edges, self.trace.nodes
            dirty = {leaf}
            out = []
            for nid in self.ops:
                if any(edges[e].source in dirty for e in nodes[nid].inputs):
                    dirty.add(nid)
                    out.append(nid)
            self._downstream[leaf] = out
        return self._downstream[leaf]

    def tangents(self, tangents: dict, on_step: Callable | None = None) -> int:
        """One forward-mode pass: each op whose inputs carry a tangent in ``tangents`` (node id ->
        array, filled in place) gets the sum of its inputs' shares, as the live engine gives it.
        ``on_step(nid, sources, tangents_in, shares)`` sees each such op. Returns how many rules
        were applied."""
        nodes, edges = self.trace.nodes, self.trace.edges
        rules = 0
        for nid in self.ops:
            node = nodes[nid]
            sources = [edges[e].source for e in node.inputs]
            ins = [carried(self.trace, edges[e], tangents.get(edges[e].source)) for e in node.inputs]
            if all(t is None for t in ins) or node.value.dtype.kind != "f":
                continue
            shares, tangents[nid] = shares_of(OPS[node.op], self.saved(nid), ins, node.value.shape,
                                              node.value.dtype)
            rules += sum(1 for x in shares if x is not None)
            if on_step is not None:
                on_step(nid, sources, ins, shares)
        return rules

    def saved(self, nid: int) -> Saved:
        """What a forward-mode rule reads of op ``nid``: its inputs, output, extras and params, as
        the engine had them when the op ran."""
        s = self._saved.get(nid)
        if s is None:
            s = self._saved[nid] = saved_of(self.trace, self.trace.nodes[nid])
        return s


def saved_of(trace: Trace, node) -> Saved:
    """A ``Saved`` of recorded op ``node`` for its forward-mode rules (see ``Replay.saved``)."""
    extras = {s.name: s.value for s in node.saved if s.name != "out" and s.name not in SAVED_INPUT}
    s = Saved(NP, dict(node.params), extras)
    inputs = [carried(trace, trace.edges[e], trace.nodes[trace.edges[e].source].value) for e in node.inputs]
    by_name = {x.name: x.value for x in node.saved}
    for i, key in enumerate(_SLOTS):
        if i < len(inputs):
            setattr(s, key, inputs[i])
        elif key in by_name:  # a data argument (``where``'s condition), saved by the op
            setattr(s, key, by_name[key])
    s.out = node.value
    return s


def carried(trace: Trace, edge, value):
    """What ``edge`` carries of ``value``, its source's value (or tangent): all of it, or the output
    it reads of a multi-output node (unbind, split), whose value is the whole."""
    return output_of(trace, edge.source, edge.output, value)


def output_of(trace: Trace, nid: int, output: int, value):
    """Output ``output`` of node ``nid`` given its ``value``: the value itself, or for a multi-output
    node (whose value is the whole) that piece of it."""
    node = trace.nodes[nid]
    if value is None or node.kind != "op" or not getattr(OPS.get(node.op), "multi", False):
        return value
    return value[piece_keys(value.shape, node.params["dim"], node.params["sizes"])[output]]


def evaluate(trace: Trace, ops: list[int], given: dict, float64: bool = True) -> dict:
    """The recorded ops ``ops`` (in order) computed again into ``given`` (see ``Replay.values``)."""
    nodes, edges = trace.nodes, trace.edges
    cast = _f64 if float64 else np.asarray
    for nid in ops:
        node = nodes[nid]
        op = OPS[node.op]
        args = []
        for e in node.inputs:
            src = edges[e].source
            args.append(carried(trace, edges[e], given[src] if src in given else cast(nodes[src].value)))
        if op.aux:  # data arguments (``where``'s condition) are saved by the op, not graph inputs
            saved = {s.name: s.value for s in node.saved}
            keys = [k for k, i in SAVED_INPUT.items() if i >= len(node.inputs)][:op.aux]
            args += [saved[k] for k in keys]
        params = _params(node.params) if float64 else node.params
        out = op.forward(*args, **params)
        if isinstance(out, tuple):
            out = out[0]
        given[nid] = cast(np.asarray(out))
    return given


def _ancestry(trace: Trace, root: int, max_ops: int | None) -> set[int]:
    """``root`` and every node its value was computed from; TooLarge as soon as they hold more
    than ``max_ops`` ops (a long chain is not walked to its end only to be refused)."""
    seen, todo, ops = set(), [root], 0
    nodes, edges = trace.nodes, trace.edges
    while todo:
        nid = todo.pop()
        if nid in seen:
            continue
        seen.add(nid)
        node = nodes[nid]
        if node.kind == "op":
            ops += 1
            if max_ops is not None and ops > max_ops:
                raise TooLarge
            todo.extend(edges[e].source for e in node.inputs)
    return seen


def _f64(a) -> np.ndarray:
    a = np.asarray(a)
    return a.astype(np.float64) if a.dtype.kind == "f" else a


def _params(params: dict) -> dict:
    """An op's arguments for a float64 replay: a cast to a floating dtype casts to float64."""
    out = dict(params)
    dt = out.get("dtype")
    if dt is not None and np.dtype(dt).kind == "f":
        out["dtype"] = np.dtype(np.float64)
    return out

"""Forward mode's state: the tangent of each dual tensor of the active dual level, and the one
place where an op's forward-mode rules (``OpDef.jvps``) turn its inputs' tangents into its
output's tangent.

``dispatch.apply`` reads ``ACTIVE`` on every op (one global read while no level is open). A
tangent lives only while its level is open, as in PyTorch: leaving ``dual_level()`` forgets them
all. Tangents are NumPy arrays shaped like their primals; ``torch.autograd.forward_ad`` is the
public face (``make_dual``, ``unpack_dual``).
"""

from __future__ import annotations

import weakref

import numpy as np

from . import trace as _trace
from .ops.table import NP, SAVED_INPUT, Saved

ACTIVE: Level | None = None  # the open dual level, or None
_SLOTS = tuple(SAVED_INPUT)  # "a", "b", "c": the names the rules read the inputs by


class Level:
    """One dual level: the tangent of each tensor that has one (keyed by identity, checked by a
    weak reference so a tensor's recycled id never inherits a tangent)."""

    __slots__ = ("index", "tangents")

    def __init__(self, index: int = 0):
        self.index = index
        self.tangents: dict[int, tuple] = {}

    def get(self, t) -> np.ndarray | None:
        entry = self.tangents.get(id(t))
        if entry is None or entry[0]() is not t:
            return None
        return entry[1]

    def set(self, t, tangent: np.ndarray | None) -> None:
        if tangent is None:
            self.tangents.pop(id(t), None)
        else:
            self.tangents[id(t)] = (weakref.ref(t), tangent)


def tangent_of(t) -> np.ndarray | None:
    """The tangent of tensor ``t`` in the open level (None: none, or no level is open)."""
    level = ACTIVE
    return None if level is None else level.get(t)


def push(level: Level, op, tensors, out, params, extras) -> None:
    """``op`` ran on ``tensors`` and gave ``out``: give ``out`` the sum of its inputs' shares of
    tangent (each input's rule applied to its tangent), if any input has one."""
    graph = len(tensors) - op.aux
    tangents = [level.get(tensors[i]) for i in range(graph)]
    if all(t is None for t in tangents) or out._data.dtype.kind != "f":
        return
    s = Saved(NP, params or {}, extras)
    for i, key in enumerate(_SLOTS[:len(tensors)]):
        setattr(s, key, tensors[i]._data)
    s.out = out._data
    shares, total = shares_of(op, s, tangents, out._data.shape, out._data.dtype)
    level.set(out, total)
    fn = out._grad_fn
    if fn is not None:  # the node's own copy of its output carries it too: a create_graph pass unpacks
        for key, kept, _ in fn._saved:  # that copy, and forward over reverse needs its tangent
            if key == "out":
                level.set(kept, total)
    rec = _trace.ACTIVE
    if rec is not None:
        rec.tangent_step(op, tensors[:graph], out, tangents, shares, total)


def shares_of(op, s: Saved, tangents: list, shape: tuple, dtype) -> tuple[list, np.ndarray]:
    """Each input's share of the output's tangent (None for an input without a tangent), broadcast
    to ``shape``, and their sum as a fresh array of ``dtype``: ``op``'s forward-mode rules applied
    to ``tangents`` with ``s`` (the op's inputs, output, extras and params). Used by the live engine
    (``push``) and by a replay of a recorded graph (``engine.replay``)."""
    total = None
    shares = []
    for i, t in enumerate(tangents):
        if t is None:
            shares.append(None)
            continue
        rule = op.jvps[0] if op.variadic else op.jvps[i] if op.jvps else None
        if rule is None:
            raise NotImplementedError(f"Trying to use forward AD with {op.name} that does not support it.")
        s.i = i
        share = np.asarray(rule(t, s))
        if share.shape != shape:
            share = np.broadcast_to(share, shape)
        shares.append(share)
        total = share.astype(dtype) if total is None else total + share
    return shares, np.array(total, dtype=dtype)  # a fresh array of its own (shares may be views)

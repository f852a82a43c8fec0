"""grad_fn objects: one ``Node`` per recorded op, one ``AccumulateGrad`` per leaf that requires grad.

A Node holds a reference to its op table entry, the tensors its rules need (with their version
at save time), and ``next_functions`` exactly as PyTorch builds them: ``(AccumulateGrad, 0)`` for
a leaf that requires grad, ``(grad_fn, 0)`` for a non-leaf, ``(None, 0)`` for an input that needs
no gradient. No closures: everything a rule needs is data on the node, so it can be shown.
"""

from __future__ import annotations

import itertools

from . import errors

_seq = itertools.count()
ACCUMULATE_SEQ = float("inf")  # PyTorch runs AccumulateGrad as soon as it is ready
_NO_GRAD = (None, 0)  # next_functions entry of an input that needs no gradient
_SLOT = {"a": 0, "b": 1, "c": 2}


class Node:
    """A grad_fn: the backward of one op application."""

    __slots__ = ("op", "next_functions", "params", "extras", "_versions", "in_meta",
                 "seq", "released", "_trace", "retained", "__weakref__")

    def __init__(self, op, inputs, out, params, extras):
        # Runs once per recorded op: explicit loops only (this is the engine's hot path).
        self.op = op
        self.params = params
        self.extras = extras
        self.seq = next(_seq)
        self.released = False
        self._trace = None
        self.retained = None  # the output tensor, once retain_grad() was called on it
        nf = []
        meta = []
        for t in (inputs[:len(inputs) - op.aux] if op.aux else inputs):
            if t._requires_grad:
                fn = t._grad_fn
                if fn is None:
                    fn = t._acc
                    if fn is None:
                        fn = t._accumulator()
                nf.append((fn, 0))
            else:
                nf.append(_NO_GRAD)
            d = t._data
            meta.append((d.shape, d.dtype))
        self.next_functions = tuple(nf)
        self.in_meta = meta
        saves = op.saves
        if saves:
            # (key, tensor, version at save time); the dict the rules read is built at backward.
            versions = []
            for k in saves:
                if k == "out":
                    versions.append((k, out, out._vc[0]))
                elif k != "indices":
                    t = inputs[_SLOT[k]]
                    versions.append((k, t, t._vc[0]))
            self._versions = versions
        else:
            self._versions = ()

    def name(self) -> str:
        """PyTorch's name of this grad_fn, e.g. ``MulBackward0``."""
        return self.op.grad_fn

    def __repr__(self) -> str:
        return f"<{self.op.grad_fn} object at {hex(id(self))}>"

    def saved_tensors(self) -> dict:
        """The tensors kept for backward, checked against in-place changes and release."""
        if not self.op.saves:
            return {}
        return {key: t for key, t, _ in self.checked_saves()}

    def checked_saves(self):
        """``(key, tensor, version)`` of each saved tensor, after the release and version checks."""
        if self.released:
            raise RuntimeError(errors.BACKWARD_TWICE)
        for key, t, version in self._versions:
            now = t._vc[0]
            if now != version:
                fn = t._grad_fn
                if key == "out":
                    where = f"{self.op.grad_fn}"
                elif fn is not None:
                    where = fn.name()
                else:
                    where = None
                raise RuntimeError(errors.inplace_modified(
                    t.dtype._type_desc, tuple(t._data.shape), 0, where or "", now, version))
        return self._versions

    def release(self) -> None:
        """Free the saved tensors (after a backward without retain_graph)."""
        self._versions = ()
        self.released = True


class AccumulateGrad:
    """The grad_fn-like node that writes into a leaf's ``.grad``."""

    __slots__ = ("variable", "next_functions", "seq", "_trace", "__weakref__")

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()
        self.seq = ACCUMULATE_SEQ
        self._trace = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

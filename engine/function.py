"""grad_fn objects: one ``Node`` per recorded op, one ``AccumulateGrad`` per leaf that requires grad.

A Node holds a reference to its op table entry, the tensors its rules need (with their version
at save time), and ``next_functions`` exactly as PyTorch builds them: ``(AccumulateGrad, 0)`` for
a leaf that requires grad, ``(grad_fn, 0)`` for a non-leaf, ``(None, 0)`` for an input that needs
no gradient. No closures: everything a rule needs is data on the node, so it can be shown.
"""

from __future__ import annotations

import itertools

from . import errors
from .addresses import alias
from .ops.table import SAVED_INPUT

_seq = itertools.count()
ACCUMULATE_SEQ = float("inf")  # PyTorch runs AccumulateGrad as soon as it is ready
_NO_GRAD = (None, 0)  # next_functions entry of an input that needs no gradient


class Node:
    """A grad_fn: the backward of one op application.

    Few objects per node (the garbage collector counts and visits each one, and a program makes
    many): ``_next`` holds the next grad_fn of each graph input (None: needs no grad), ``_meta``
    each input's shape and dtype (flat: shape0, dtype0, shape1, ...), ``_saved`` one
    ``(key, tensor, version at save time)`` per kept tensor.
    """

    __slots__ = ("op", "_next", "_nr", "_meta", "params", "extras", "_saved",
                 "seq", "released", "_trace", "retained", "hooks", "__weakref__")

    multi = False  # one output (see MultiNode)

    def __init__(self, op, inputs, out, params, extras):
        # Runs once per recorded op: explicit loops only (this is the engine's hot path).
        self.op = op
        self.params = params
        self.extras = extras
        self.seq = next(_seq)
        self.released = False
        self._trace = None
        self.retained = None  # the output tensor, once retain_grad() was called on it
        self.hooks = None  # the output's tensor hooks ({handle id: (hook, where registered)}), if any
        if len(inputs) == 1:  # most ops: one input, which requires grad (else no node is built)
            t = inputs[0]
            fn = t._grad_fn
            if fn is None:
                fn = t._accumulator()
            d = t._data
            self._next = (fn,)
            self._nr = (t._nr,) if fn.multi else None
            self._meta = (d.shape, d.dtype)
            mask = 1
        else:
            nxt, meta = [], []
            mask, bit, nrs = 0, 1, None
            for t in (inputs[:len(inputs) - op.aux] if op.aux else inputs):
                if t._requires_grad:
                    mask |= bit
                    fn = t._grad_fn
                    if fn is None:
                        fn = t._accumulator()
                    elif fn.multi:
                        nrs = _output_numbers(nrs, len(nxt), t._nr)
                    nxt.append(fn)
                else:
                    nxt.append(None)
                d = t._data
                meta.append(d.shape)
                meta.append(d.dtype)
                bit <<= 1
            self._next = tuple(nxt)
            self._nr = None if nrs is None else tuple(nrs + [0] * (len(nxt) - len(nrs)))
            self._meta = tuple(meta)
        keep = op.keep_by_mask
        keys = keep[mask] if keep is not None else op.save_keys
        if keys:
            if len(keys) == 1:
                k = keys[0]
                t = _output_alias(out) if k == "out" else inputs[SAVED_INPUT[k]]
                if type(t._vc) is not list:
                    raise RuntimeError(errors.INFERENCE_SAVED)
                self._saved = ((k, t, t._vc[0]),)
            else:
                saved = []
                for k in keys:
                    t = _output_alias(out) if k == "out" else inputs[SAVED_INPUT[k]]
                    if type(t._vc) is not list:
                        raise RuntimeError(errors.INFERENCE_SAVED)
                    saved.append((k, t, t._vc[0]))
                self._saved = tuple(saved)
        else:
            self._saved = ()

    @property
    def next_functions(self) -> tuple:
        """PyTorch's ``next_functions``: ``(grad_fn or AccumulateGrad, output number)``, or
        ``(None, 0)``; the output number is 0 but for a piece of a multi-output node."""
        nrs = self._nr
        if nrs is None:
            return tuple(_NO_GRAD if fn is None else (fn, 0) for fn in self._next)
        return tuple(_NO_GRAD if fn is None else (fn, nr) for fn, nr in zip(self._next, nrs))

    def name(self) -> str:
        """PyTorch's name of this grad_fn, e.g. ``MulBackward0``."""
        return self.op.grad_fn

    def __repr__(self) -> str:
        return f"<{self.op.grad_fn.rsplit('::', 1)[-1]} object at {alias(self)}>"

    def saved_tensors(self) -> dict:
        """The tensors kept for backward, checked against in-place changes and release."""
        if not self.op.saves:
            return {}
        return {key: t for key, t, _ in self.checked_saves()}

    def checked_saves(self) -> tuple:
        """The ``(key, tensor, version)`` of each saved tensor, once checked: not released by an
        earlier backward, and not changed in place since it was saved."""
        if self.released:
            raise RuntimeError(errors.BACKWARD_TWICE)
        saved = self._saved
        for key, t, version in saved:
            if t._vc[0] != version:
                raise self._modified(key, t, version)
        return saved

    def _modified(self, key: str, t, version: int) -> RuntimeError:
        """PyTorch's error for a saved tensor changed in place since it was saved."""
        fn = t._grad_fn
        if key == "out":
            where = self.op.grad_fn
        else:
            where = fn.name() if fn is not None else ""
        nr = t._nr if key != "out" and fn is not None and fn.multi else 0
        return RuntimeError(errors.inplace_modified(
            t.dtype._type_desc, tuple(t._data.shape), nr, where, t._vc[0], version))

    def resave_output(self, out) -> None:
        """An in-place op made ``out`` this node's output: watch its version from now on."""
        self._saved = tuple(("out", _output_alias(out), out._vc[0]) if key == "out" else (key, t, version)
                            for key, t, version in self._saved)

    def release(self) -> None:
        """Free the saved tensors (after a backward without retain_graph). A node that kept
        nothing can be walked again, as in PyTorch."""
        if self._saved or "indices" in self.op.saves:
            self._saved = ()
            self.released = True


def _output_numbers(nrs: list | None, i: int, nr: int) -> list:
    """The output numbers of a node's inputs so far, with input ``i`` reading output ``nr``."""
    nrs = [] if nrs is None else nrs
    nrs.extend([0] * (i - len(nrs)))
    nrs.append(nr)
    return nrs


class MultiNode(Node):
    """The grad_fn of an op with several outputs (unbind, split, chunk: PyTorch's
    ``UnbindBackward0``, ``SplitBackward0``): every output tensor has this one node as its grad_fn
    and its own output number (``Tensor.output_nr``). The walk gives it one gradient per output
    (None for an output no gradient reached) and joins them (``pieces``) into the gradient of its
    whole value, which its rule passes on. Tensor hooks and ``retain_grad`` are kept per output:
    ``hooks`` and ``retained`` map an output number to what a single-output node holds."""

    __slots__ = ("n_out",)

    multi = True

    def piece_shapes(self) -> list[tuple]:
        """The shape of each output: the input without ``dim`` (unbind), or cut along it (split)."""
        shape, dim, sizes = self._meta[0], self.params["dim"], self.params["sizes"]
        if sizes is None:
            return [shape[:dim] + shape[dim + 1:]] * shape[dim]
        return [shape[:dim] + (n,) + shape[dim + 1:] for n in sizes]


def _output_alias(out):
    """What a node keeps of its own output: the data and version counter without the history.
    Keeping the output itself would make a reference cycle (output -> grad_fn -> output) that
    only the cyclic GC frees; PyTorch saves outputs the same way and re-attaches the node when
    a saved output is unpacked for create_graph."""
    return out.__class__._make(out._data, False, out._vc)


def node_class(op) -> type:
    """The class of ``op``'s grad_fn objects, named as PyTorch names it (``MulBackward0``,
    ``CopySlices``), so ``type(y.grad_fn).__name__`` reads as in PyTorch. Made once per op."""
    cls = op.node_class
    if cls is None:
        cls = _NODE_CLASSES.get(op.grad_fn)
        if cls is None:
            name = op.grad_fn.rsplit("::", 1)[-1]
            cls = type(name, (MultiNode if op.multi else Node,), {
                "__slots__": (), "__module__": "builtins", "__qualname__": name,
                "__doc__": f"The grad_fn of ``{op.name}``."})
            _NODE_CLASSES[op.grad_fn] = cls
        object.__setattr__(op, "node_class", cls)  # the entry is frozen; this cache is its only change
    return cls


class CopySlices(Node):
    """The grad_fn of an in-place op through a view (``x[:, 0].mul_(2)``): the base written at the
    view's place. As in PyTorch it holds the op's own node (``extras["fn"]``) and, once
    ``wrap`` gave it that node, its inputs are torch's ``next_functions``: the base's grad_fn, then
    the op's other inputs (the view is the written part). The walk runs it as one step, as torch
    does: the gradient outside the written part goes to the base as it came; at the written part the
    op's own rules run on it (``engine/autograd/copy_slices.py``). ``x[0] = v`` wraps no op: its
    inputs are the base and v."""

    __slots__ = ()

    def wrap(self, fn: Node) -> None:
        """Hold ``fn`` (the op run on the view) and take its inputs but the view as this node's."""
        self.extras = {"fn": fn}
        self._next = self._next[:1] + fn._next[1:]
        self._meta = self._meta[:2] + fn._meta[2:]
        if fn._nr is not None:
            self._nr = (0,) + tuple(fn._nr[1:])

    def wrapped(self) -> Node | None:
        """The op's own node this CopySlices holds (None for ``x[key] = v``)."""
        return self.extras.get("fn") if self.extras else None


CopySlices.__module__ = "builtins"
CopySlices.__qualname__ = "CopySlices"
_NODE_CLASSES: dict[str, type] = {"torch::autograd::CopySlices": CopySlices}  # grad_fn name -> class


class AccumulateGrad:
    """The grad_fn-like node that writes into a leaf's ``.grad``."""

    __slots__ = ("variable", "seq", "_trace", "__weakref__")

    _next = ()
    _nr = None
    next_functions = ()
    multi = False

    def __init__(self, variable):
        self.variable = variable
        self.seq = ACCUMULATE_SEQ
        self._trace = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {alias(self)}>"


AccumulateGrad.__module__ = "builtins"  # PyTorch's node classes print as <class 'AccumulateGrad'>

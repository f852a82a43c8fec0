"""The Trace: what the engine records while a program runs, for the rest of gradviz.

Plain dataclasses with stable integer ids (a counter per Trace, never ``id()``).
One id space holds every graph node: leaf tensors and op nodes (grad_fn objects).
Edges have their own id space. Arrays are copies taken at record time, so later
in-place changes do not rewrite history.

Recording is off unless a ``Recorder`` is active (``with recording() as trace:``).
The engine checks one module global (``trace.ACTIVE``) before doing any work for it,
so recording off costs one attribute read per op.

Hooks for the program runner:
- ``rec.location = (line, col)`` before evaluating a statement or call: every node
  and step recorded afterwards carries it.
- ``rec.name_tensor(tensor, "w")`` when the user binds a tensor to a name.
- ``rec.module_stack`` (a list of module paths, pushed by ``nn.Module.__call__``).
- ``rec.note_print(text)`` is not needed: stdout is the runner's business.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# The active recorder, or None. Read by the engine on every op: keep it a plain global.
ACTIVE: Recorder | None = None


@dataclass
class LeafNode:
    """A tensor with no grad_fn that fed a recorded op: an input or a parameter."""

    id: int
    name: str | None
    shape: tuple[int, ...]
    dtype: str
    requires_grad: bool
    is_param: bool
    value: np.ndarray
    line: int | None = None
    col: int | None = None
    module: str | None = None
    kind: str = "leaf"


@dataclass
class SavedTensor:
    """A tensor an op saved for backward (shown in the UI, released after backward)."""

    name: str  # the rule's name for it: "self", "other", "result", "mask", ...
    shape: tuple[int, ...]
    value: np.ndarray
    node: int | None = None  # graph node that produced it, when it is a graph tensor


@dataclass
class OpNode:
    """One recorded forward op: a grad_fn node of the autograd graph."""

    id: int
    op: str  # op table key, e.g. "mul"
    grad_fn: str  # PyTorch's name, e.g. "MulBackward0"
    inputs: list[int]  # edge ids, one per tensor input, in argument order
    formulas: list[str]  # one local rule per tensor input, e.g. "∂(a·b)/∂a = b"
    shape: tuple[int, ...]
    dtype: str
    value: np.ndarray
    saved: list[SavedTensor] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)  # non-tensor arguments (dim=, exponent, ...)
    name: str | None = None  # the user's variable name for the output, if bound
    line: int | None = None
    col: int | None = None
    module: str | None = None  # innermost nn.Module path, e.g. "fc1"
    retains_grad: bool = False
    kind: str = "op"


@dataclass
class Edge:
    """A tensor flowing from a producer node into input ``index`` of an op node."""

    id: int
    source: int  # node id (leaf or op)
    target: int  # op node id
    index: int  # argument position at the target
    shape: tuple[int, ...]
    needs_grad: bool  # False: PyTorch puts (None, 0) in next_functions here


@dataclass
class Flow:
    """A gradient travelling along one edge (towards its source) during backward."""

    edge: int
    grad: np.ndarray | None  # None where the input needs no grad


@dataclass
class BackwardStep:
    """One node visited by a backward pass, in the order the engine visited them."""

    index: int
    node: int
    kind: str  # "op" (a grad_fn ran its rule) or "leaf" (AccumulateGrad wrote .grad)
    received: list[Flow]  # what arrived, one Flow per consumer edge (several: a fan-out sum)
    upstream: np.ndarray | None  # the sum of what arrived (for the root: the seed gradient)
    sent: list[Flow] = field(default_factory=list)  # op steps: one per input edge
    grad_before: np.ndarray | None = None  # leaf steps (and retain_grad non-leaves)
    grad_after: np.ndarray | None = None
    retained: bool = False  # a non-leaf whose .grad was kept by retain_grad()


@dataclass
class BackwardPass:
    """One call of ``backward()`` or ``autograd.grad()``."""

    index: int
    root: int  # node id of the tensor backward started from
    api: str  # "backward" or "autograd.grad"
    retain_graph: bool
    create_graph: bool
    seed: np.ndarray
    steps: list[BackwardStep] = field(default_factory=list)
    line: int | None = None
    col: int | None = None
    op_count: int = 0  # how many op nodes existed when the pass started (forward ops before it)


@dataclass
class OptimizerStep:
    """One ``optimizer.step()``: each parameter's value before, its grad and the update."""

    index: int
    optimizer: str  # "SGD" or "Adam"
    rule: str  # the update rule as text, e.g. "p ← p − lr·g"
    params: list[dict[str, Any]]  # {node, name, before, grad, after}
    line: int | None = None
    col: int | None = None
    op_count: int = 0


@dataclass
class Trace:
    """Everything one run recorded, in order."""

    nodes: list[LeafNode | OpNode] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    passes: list[BackwardPass] = field(default_factory=list)
    optimizer_steps: list[OptimizerStep] = field(default_factory=list)
    # Events in program order: ("op", node_id) | ("backward", pass_index) | ("optim", index)
    # | ("zero_grad", None)
    events: list[tuple[str, int | None]] = field(default_factory=list)

    def node(self, node_id: int) -> LeafNode | OpNode:
        """The node with this id (ids are list positions)."""
        return self.nodes[node_id]

    @property
    def op_count(self) -> int:
        return sum(1 for n in self.nodes if n.kind == "op")


class Recorder:
    """Collects a Trace. Created by ``recording()``; the engine calls its methods.

    A tensor or grad_fn belongs to this trace when its ``_trace`` slot holds
    ``(this recorder, node id)``; a stale tag from an earlier recorder is ignored.
    """

    def __init__(self, max_ops: int | None = None):
        self.trace = Trace()
        self.location: tuple[int, int] | None = None
        self.module_stack: list[str] = []
        self.max_ops = max_ops
        self.op_total = 0

    @property
    def module(self) -> str | None:
        return self.module_stack[-1] if self.module_stack else None

    def _loc(self) -> tuple[int | None, int | None]:
        return self.location if self.location is not None else (None, None)

    def _mine(self, obj) -> int | None:
        tag = obj._trace
        return tag[1] if tag is not None and tag[0] is self else None

    # ---- called by the engine --------------------------------------------------------
    def node_of(self, tensor) -> int:
        """The graph node that produced ``tensor``: its grad_fn's node, or its leaf node."""
        fn = tensor._grad_fn
        if fn is not None:
            nid = self._mine(fn)
            if nid is not None:
                return nid
        nid = self._mine(tensor)
        if nid is not None:
            return nid
        line, col = self._loc()
        nid = len(self.trace.nodes)
        self.trace.nodes.append(
            LeafNode(
                id=nid, name=tensor._name, shape=tuple(tensor._data.shape), dtype=tensor.dtype.name,
                requires_grad=tensor.requires_grad, is_param=tensor._is_param,
                value=np.array(tensor._data, copy=True), line=line, col=col, module=self.module,
            )
        )
        tensor._trace = (self, nid)
        return nid

    def op_node(self, fn, op: str, inputs, out, saved, params, formulas) -> int:
        """Record one forward op. ``inputs`` are its tensor arguments in order;
        ``saved`` is a list of (name, array) pairs."""
        if self.max_ops is not None and self.op_total >= self.max_ops:
            from .errors import LimitError

            raise LimitError(f"the program recorded more than {self.max_ops} ops (limit: max_ops)")
        self.op_total += 1
        sources = [self.node_of(t) for t in inputs]  # may add leaf nodes: take our id after them
        nid = len(self.trace.nodes)
        edge_ids = []
        for i, (t, src) in enumerate(zip(inputs, sources)):
            eid = len(self.trace.edges)
            self.trace.edges.append(
                Edge(id=eid, source=src, target=nid, index=i, shape=tuple(t._data.shape),
                     needs_grad=t.requires_grad)
            )
            edge_ids.append(eid)
        line, col = self._loc()
        self.trace.nodes.append(
            OpNode(
                id=nid, op=op, grad_fn=fn.name(), inputs=edge_ids, formulas=list(formulas),
                shape=tuple(out._data.shape), dtype=out.dtype.name,
                value=np.array(out._data, copy=True),
                saved=[SavedTensor(name=k, shape=tuple(np.shape(v)), value=np.array(v, copy=True))
                       for k, v in saved],
                params=dict(params), line=line, col=col, module=self.module,
            )
        )
        fn._trace = (self, nid)
        self.trace.events.append(("op", nid))
        return nid

    def name_tensor(self, tensor, name: str) -> None:
        """The user bound ``tensor`` to ``name``: label its node (the first name wins)."""
        if tensor._name is None:
            tensor._name = name
        fn = tensor._grad_fn
        nid = self._mine(fn) if fn is not None else self._mine(tensor)
        if nid is not None and self.trace.nodes[nid].name is None:
            self.trace.nodes[nid].name = name

    def start_pass(self, root, api: str, retain_graph: bool, create_graph: bool, seed) -> BackwardPass:
        """Open a BackwardPass; the engine appends its steps as it visits nodes."""
        line, col = self._loc()
        bp = BackwardPass(
            index=len(self.trace.passes), root=self.node_of(root), api=api,
            retain_graph=retain_graph, create_graph=create_graph, seed=np.array(seed, copy=True),
            line=line, col=col, op_count=self.op_total,
        )
        self.trace.passes.append(bp)
        self.trace.events.append(("backward", bp.index))
        return bp

    def event(self, kind: str, index: int | None = None) -> None:
        """Note a program event that is not an op (e.g. "zero_grad", "optim")."""
        self.trace.events.append((kind, index))


@contextmanager
def recording(max_ops: int | None = None):
    """Record every op and backward step run inside the block; yields the Recorder."""
    global ACTIVE
    prev = ACTIVE
    rec = Recorder(max_ops=max_ops)
    ACTIVE = rec
    try:
        yield rec
    finally:
        ACTIVE = prev

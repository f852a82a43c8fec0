"""The Trace: what the engine records while a program runs, for the rest of gradviz.

Its records are plain dataclasses (engine/trace_records.py) with stable integer ids.
One id space holds every graph node: leaf tensors and op nodes (grad_fn objects).
Edges have their own id space. Arrays are copies taken at record time, so later
in-place changes do not rewrite history.

Recording is off unless a ``Recorder`` is active (``with recording() as rec:``).
The engine checks one module global (``trace.ACTIVE``) before doing any work for it,
so recording off costs one attribute read per op.

The ``Recorder`` is the only writer of a Trace: the engine tells it what happened through its
named methods (an op ran, a pass started, a node's rule ran, a leaf's ``.grad`` was written, an
optimizer stepped, ...), and readers (the app) only read the dataclasses. A tensor or grad_fn is
linked to its node by a tag in its ``_trace`` slot, which only the trace's modules read or write.

Its parts: the records and their readers (``ancestry``, ``node_id``) in engine/trace_records.py,
the recorder's place in the program (location, modules, scopes) in engine/trace_scopes.py, its
notes of in-place changes no op records in engine/trace_inplace.py, the steps of one backward pass
in engine/trace_pass.py, what it reads of each op table entry in engine/trace_facts.py; the rest of
the recorder is here.

What the program runner sets on the active recorder:
- ``rec.at_node(node)`` before evaluating a statement or call (``rec.position_of(node)`` gives its
  ``rec.location``, (line, col)): every node and step recorded afterwards carries it;
  ``rec.location_node`` is that expression, and ``rec.end_of(node)`` says where it ends (an op
  node keeps its end too);
- ``rec.name_tensor(tensor, "w")`` when the user binds a tensor to a name;
- ``rec.push_module(path)`` / ``rec.pop_module()`` around an ``nn.Module`` call;
- ``rec.open_scope("loop", label)`` / ``rec.close_scope(frame)`` around a loop, and the same with
  ``"iteration"`` around each of its iterations (see ``Scope``).
"""

from __future__ import annotations

import weakref
from contextlib import contextmanager

import numpy as np

from .errors import LimitError
from .tensor import Tensor
from .trace_facts import DTYPE_NAMES, NOWHERE, OP_FACTS, first, number_first, op_facts
from .trace_inplace import InPlaceNotes
from .trace_pass import PassRecorder, copy_now
from .trace_records import (  # noqa: F401 - the records and their readers are read as engine.trace's
    BackwardPass,
    BackwardStep,
    Cut,
    Edge,
    Flow,
    ForwardStep,
    LeafNode,
    OpNode,
    OptimizerStep,
    SavedTensor,
    Scope,
    ScopeFrame,
    Trace,
    Update,
    ancestry,
    node_id,
)
from .trace_scopes import ProgramPlace

# The active recorder, or None. Read by the engine on every op: keep it a plain global.
ACTIVE: Recorder | None = None


def _saved_now(plan, tensors, value, nid: int, sources: list, extras) -> list:
    """The ``SavedTensor``s of an op recorded now (node ``nid``, output ``value``): what its save plan
    names, copied now, then the arrays its forward kept (``extras``)."""
    saved = []
    n = len(sources)
    for key, i in plan:
        if i is None:  # the op's own output: the same moment as its value
            saved.append(SavedTensor(key, value.shape, value, nid))
        else:
            d = tensors[i]._data
            saved.append(SavedTensor(key, d.shape, d.copy(), sources[i] if i < n else None))
    if extras:
        for key, extra in extras.items():
            if isinstance(extra, np.ndarray):
                saved.append(SavedTensor(key, extra.shape, copy_now(extra)))
    return saved


class Recorder(ProgramPlace, InPlaceNotes):
    """Collects a Trace. Created by ``recording()``; the engine calls its methods.

    A tensor or grad_fn belongs to this trace when its ``_trace`` tag is ``(this recorder,
    node id)``; a stale tag from an earlier recorder is ignored.
    """

    def __init__(self, max_ops: int | None = None):
        self.trace = Trace()
        self._location: tuple[int, int] | None = None
        self._pending = None  # the AST node whose position ``location`` works out when asked
        self.location_node = None
        self.end_of = None  # (AST node) -> (end line, end col), set by the program runner
        self.position_of = None  # (AST node) -> (line, col), set by the program runner
        self.module_stack: list[str] = []
        self.frames: list[ScopeFrame] = []  # open scopes, outermost first
        # Leaves bound to a name before any op read them: id -> (weak reference, the innermost
        # open scope then), so a leaf made before a loop is not taken for part of the loop.
        self._bound: dict[int, tuple] = {}
        self.max_ops = max_ops
        self._op_limit = max_ops if max_ops is not None else float("inf")
        self.op_total = 0
        self.open_pass: BackwardPass | None = None  # the backward pass running now, if any
        self.closed = False  # the recording block ended: frees after it are not the program's
        self._objects: dict[int, tuple] = {}  # id(tensor) -> (weak reference, object number)
        self._object_count = 0
        # weak reference to the grad_fn of each op node -> the node's id, until the grad_fn is freed
        self._alive: dict[weakref.ref, int] = {}
        self._on_free = self._freed  # bound once: every op node's weak reference calls it
        # Tensors changed in place since their node was recorded: id -> (weak reference, node id, the
        # updates' indices); their next use records a new node, which the updates then name
        self._updated: dict[int, tuple] = {}
        # The .grad tensors a backward pass wrote: id -> (weak reference, the node whose .grad it is)
        self._grads: dict[int, tuple] = {}
        # The leaves whose .grad a pass wrote: id -> (weak reference, the node of the last write), for
        # zero_grad to say which it reset (one entry per tensor: a parameter gets a node per step)
        self._grad_owners: dict[int, tuple] = {}
        # The arrays of recorded leaves and of those .grads: id -> (weak reference to the array, weak
        # reference to its tensor), so a change through another tensor on the same storage
        # (``w.data -= ...``, ``w.detach().zero_()``) is the change of that tensor
        self._storage: dict[int, tuple] = {}

    def _mine(self, obj) -> int | None:
        tag = obj._trace
        return tag[1] if tag is not None and tag[0] is self else None

    # ---- forward ---------------------------------------------------------------------------
    def node_of(self, tensor) -> int:
        """The graph node that produced ``tensor``: its grad_fn's node, or its leaf node (recorded
        now if it is new)."""
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
        self.trace.nodes.append(LeafNode(
            id=nid, name=tensor._name, shape=tuple(tensor._data.shape), dtype=tensor.dtype.name,
            requires_grad=tensor.requires_grad, is_param=tensor._is_param, value=copy_now(tensor),
            line=line, col=col, module=self.module, scope=self._leaf_scope(tensor),
            obj=self._object_number(tensor)))
        tensor._trace = (self, nid)
        self._share(tensor)
        if self._updated:
            entry = self._updated.pop(id(tensor), None)
            if entry is not None and entry[0]() is tensor:
                for i in entry[2]:
                    self.trace.updates[i].next_node = nid
        return nid

    def _object_number(self, tensor) -> int:
        """The same number for the same tensor object for as long as it lives (checked by a weak
        reference, so a recycled ``id`` never inherits one)."""
        entry = self._objects.get(id(tensor))
        if entry is not None and entry[0]() is tensor:
            return entry[1]
        self._object_count += 1
        number = self._object_count
        try:
            ref = weakref.ref(tensor)
        except TypeError:  # a stand-in without weak references (the recorder of real torch keeps it)
            def ref(t=tensor):
                return t
        self._objects[id(tensor)] = (ref, number)
        return number

    def op_node(self, fn, op, tensors, out, params, extras) -> int:
        """Record one forward op: ``fn`` its grad_fn, ``op`` its table entry, ``tensors`` its
        tensor arguments (the trailing ``op.aux`` of them are data, not graph inputs), ``extras``
        the arrays its forward kept for backward."""
        # Every op of every program comes here: locals only, the op's fixed facts looked up once.
        if self.op_total >= self._op_limit:
            raise LimitError(f"the program recorded more than {self.max_ops} ops (limit: max_ops)")
        self.op_total += 1
        facts = OP_FACTS.get(id(op))
        if facts is None or facts[0] is not op:
            facts = op_facts(op)
        _, name, grad_fn, description, formulas, plan, aux, variadic, commuted, multi = facts
        graph = tensors[:len(tensors) - aux] if aux else tensors
        sources, nid, inputs = self._inputs(graph)
        n = len(graph)
        value = out._data.copy()  # the arrays copied directly: _copy's generic path is slow for a tensor
        saved = _saved_now(plan, tensors, value, nid, sources, extras)
        line, col, end_line, end_col, scope, module = self._place()
        bp = self.open_pass
        kept = getattr(fn, "_saved", None)
        dtype_name = DTYPE_NAMES.get(value.dtype) if type(out) is Tensor else None
        node = OpNode(
            nid, name, grad_fn, description, inputs, formulas * n if variadic else formulas,
            value.shape, dtype_name or out.dtype.name, value, saved,
            dict(params) if params else {}, None, line, col, module, False, scope, "op", end_line, end_col,
            list(map(first, kept)) if kept else [],
            None if bp is None else (bp.index, len(bp.steps)),
            commuted and n == 2 and number_first(self.location_node))
        if multi and params and "sizes" in params:  # (not in a recording of PyTorch)
            node.pieces = [None] * (len(params["sizes"]) if params["sizes"] is not None
                                    else value.shape[params["dim"]])
        self.trace.nodes.append(node)
        fn._trace = (self, nid)
        try:
            self._alive[weakref.ref(fn, self._on_free)] = nid
        except TypeError:  # a grad_fn without weak references: its lifetime is not followed
            pass
        self.trace.events.append(("op", nid))
        return nid

    def _inputs(self, graph) -> tuple:
        """For an op about to be recorded: the node of each graph input (new leaves recorded now),
        the op's node id (after them), and the ids of its input edges (recorded now)."""
        sources = []
        for t in graph:  # node_of, its common cases inline (every input of every op comes here)
            fn_in = t._grad_fn
            tag = fn_in._trace if fn_in is not None else t._trace
            sources.append(tag[1] if tag is not None and tag[0] is self else self.node_of(t))
        nid = len(self.trace.nodes)
        edges = self.trace.edges
        eid = len(edges)
        n = len(graph)
        for i in range(n):
            t = graph[i]
            fn_in = t._grad_fn
            edges.append(Edge(eid + i, sources[i], nid, i, t._data.shape, t.requires_grad,
                              t._nr if fn_in is not None and fn_in.multi else 0))
        return sources, nid, list(range(eid, eid + n))

    def _place(self) -> tuple:
        """Where an op recorded now ran: (line, col, end line, end col, innermost scope id, module path)."""
        line, col = self._loc()
        node = self.location_node
        end_line, end_col = self.end_of(node) if node is not None and self.end_of is not None else NOWHERE
        frames = self.frames
        scope = None
        if frames:
            scope = frames[-1].id
            if scope is None:
                scope = self._scope()
        stack = self.module_stack
        return line, col, end_line, end_col, scope, stack[-1] if stack else None

    def _freed(self, ref) -> None:
        """The program let go of the grad_fn whose weak reference is ``ref`` (nothing refers to it
        any more)."""
        nid = self._alive.pop(ref, None)
        if nid is not None and not self.closed:
            self.trace.frees.append((len(self.trace.events), nid))

    def name_tensor(self, tensor, name: str, bound: bool = True) -> None:
        """The user bound ``tensor`` to ``name``: label its node (the first name wins). ``bound``
        False: a name given without a binding in the program (a module's parameter)."""
        if tensor._name is None:
            tensor._name = name
        fn = tensor._grad_fn
        nid = self._mine(fn if fn is not None else tensor)
        if nid is not None:
            node = self.trace.nodes[nid]
            if fn is not None and fn.multi:
                if node.pieces[tensor._nr] is None:
                    node.pieces[tensor._nr] = name
                    node.name = ", ".join(p or "_" for p in node.pieces)
            elif node.name is None:
                node.name = name
        if bound and nid is None and fn is None:
            old = self._bound.get(id(tensor))
            if old is None or old[0]() is not tensor:
                self._bound[id(tensor)] = (weakref.ref(tensor), self.frames[-1] if self.frames else None)

    def retains_grad(self, fn) -> None:
        """``retain_grad()`` was called on the output of ``fn``."""
        nid = self._mine(fn)
        if nid is not None:
            self.trace.nodes[nid].retains_grad = True

    def zero_grad(self) -> None:
        """An optimizer or module reset its parameters' gradients: of the leaves whose .grad a pass
        wrote, those whose .grad is now None or zeros (the event's index names them in
        ``trace.zero_grads``)."""
        reset = []
        for ref, nid in self._grad_owners.values():
            leaf = ref()
            if leaf is None:
                continue
            grad = getattr(leaf, "_grad", None)
            data = getattr(grad, "_data", None)  # (None for what the recorder of real torch hands over)
            if grad is None or (data is not None and not data.any()):
                reset.append((nid, None if grad is None else copy_now(data)))
        self.trace.events.append(("zero_grad", len(self.trace.zero_grads)))
        self.trace.zero_grads.append(reset)
        self.trace.zero_grad_lines.append(self._loc()[0])

    # ---- backward --------------------------------------------------------------------------
    def backward_pass(self, root, api: str, retain_graph: bool, create_graph: bool, seed) -> PassRecorder:
        """A backward pass from ``root`` starts: its steps go to the returned ``PassRecorder``."""
        line, col = self._loc()
        bp = BackwardPass(index=len(self.trace.passes), root=self.node_of(root), api=api,
                          retain_graph=retain_graph, create_graph=create_graph, seed=copy_now(seed),
                          line=line, col=col, root_output=int(getattr(root, "output_nr", 0) or 0))
        self.trace.passes.append(bp)
        self.trace.events.append(("backward", bp.index))
        self.open_pass = bp
        return PassRecorder(self, bp)

    def pass_done(self) -> None:
        """The backward pass that ran ended (ops recorded after it are the program's again)."""
        self.open_pass = None

    # ---- forward mode ----------------------------------------------------------------------
    def tangent_step(self, op, tensors, out, tangents, shares, tangent) -> None:
        """``op`` ran in forward mode: ``tangents`` of its inputs (None where an input has none)
        gave ``shares`` of the output's ``tangent`` by the op's forward-mode rules."""
        fn = out._grad_fn
        line, col = self._loc()
        self.trace.forward_steps.append(ForwardStep(
            index=len(self.trace.forward_steps), op=op.name, formulas=list(op.jvp_formulas),
            inputs=[self._node_if_any(t) for t in tensors], node=self._mine(fn) if fn is not None else None,
            tangents=[copy_now(t) for t in tangents], shares=[copy_now(x) for x in shares],
            tangent=copy_now(tangent), line=line, col=col))

    def _node_if_any(self, tensor) -> int | None:
        fn = tensor._grad_fn
        nid = self._mine(fn) if fn is not None else None
        return nid if nid is not None else self._mine(tensor)

    # ---- optimizer -------------------------------------------------------------------------
    def optimizer_step(self, optimizer: str, rule: str, before: list) -> None:
        """An optimizer updated its parameters in place; ``before`` holds ``(parameter, value
        before, grad)`` for each. A parameter it changed gets a new leaf node at its next use (its
        old node keeps the old value)."""
        entries = []
        for p, value, grad in before:
            entries.append({"node": self._mine(p), "name": p._name, "before": value, "grad": grad,
                            "after": copy_now(p)})
            if grad is not None:
                p._trace = None
        line, col = self._loc()
        index = len(self.trace.optimizer_steps)
        self.trace.optimizer_steps.append(OptimizerStep(index=index, optimizer=optimizer, rule=rule,
                                                        params=entries, line=line, col=col))
        self.trace.events.append(("optim", index))


def before_update(tensor):
    """What ``after_update`` needs when ``tensor`` is about to change in place without a graph op
    while a recording is active and knows it (the recorder, what it knows, the value before);
    None otherwise (nothing is copied)."""
    rec = ACTIVE
    known = rec.updating(tensor) if rec is not None else None
    return None if known is None else (rec, known, tensor._data.copy())


def after_update(tensor, op: str, pending) -> None:
    """``tensor`` was changed in place by ``op``: the trace notes its new value (``pending`` from
    ``before_update``), and its next use records a new node."""
    if pending is not None:
        rec, known, before = pending
        rec.updated(tensor, known, op, before)
    forget(tensor)


def note_cut(source, result, how: str, op: str | None = None, rec: Recorder | None = None) -> int | None:
    """A value was taken off the graph from ``source`` (a tensor that requires grad): ``result``
    (a tensor, or None for a Python number) carries no gradient back to it (see ``Cut``). ``rec``:
    the recorder (default: the active one). Returns the cut's index (None: nothing recorded)."""
    rec = rec or ACTIVE
    if rec is None or rec.open_pass is not None:
        return None
    line, col = rec._loc()
    cuts = rec.trace.cuts
    cuts.append(Cut(len(cuts), how, rec._node_if_any(source), getattr(source, "_name", None),
                    None if result is None else rec._object_number(result), op, line, col))
    return len(cuts) - 1


def name_cut(rec: Recorder, index: int, name: str | None) -> None:
    """The tensor cut off by cut ``index`` was bound to ``name`` after the cut (a recording of real
    torch names tensors as its block ends)."""
    cut = rec.trace.cuts[index]
    if cut.source_name is None:
        cut.source_name = name


def forget(obj) -> None:
    """``obj`` (a tensor) was changed in place: its node keeps the old value, and its next use
    records a new node."""
    obj._trace = None


def wrapped(cs, fn) -> None:
    """CopySlices ``cs`` took in op ``fn`` (an in-place op on a view): its backward steps send along
    the base's edge and ``fn``'s other inputs' edges (``OpNode.walked``)."""
    rec = ACTIVE
    if rec is None:
        return
    cs_id, fn_id = rec._mine(cs), rec._mine(fn)
    if cs_id is not None and fn_id is not None:
        nodes = rec.trace.nodes
        nodes[cs_id].walked = nodes[cs_id].inputs[:1] + nodes[fn_id].inputs[1:]


def share_node(copy, original) -> None:
    """``copy`` stands for ``original`` as it is now (the snapshot an in-place op reads)."""
    copy._trace = original._trace


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
        rec.closed = True
        rec._alive.clear()

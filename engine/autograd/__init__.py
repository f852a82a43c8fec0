"""The backward pass: one iterative walk in PyTorch's order, shared by ``Tensor.backward`` and
``autograd.grad``, which also hands each step to the recorder for the page.

As in PyTorch's engine: a ``GraphTask`` counts, for every node reachable from the roots, the
consumers that will deliver a gradient to it (the roots' first consumer is a ``GraphRoot`` that
delivers the seeds); a node is ready once all of them have, with its gradients summed. Among
ready nodes the most recently created runs first (PyTorch's sequence numbers) and
AccumulateGrad runs as soon as it is ready. A node runs its table rules in one of two worlds,
chosen once per pass: ``ArrayWorld`` (NumPy arrays: a first-order pass) or ``TensorWorld``
(engine Tensors, ``create_graph=True``: the rules themselves are recorded, so gradients can be
differentiated again), both in engine/autograd/worlds.py.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import KeysView
from heapq import heappop, heappush

import numpy as np

from .. import arguments, errors, grad_mode
from .. import hooks as _hooks
from .. import trace as _trace
from ..dtypes import from_numpy_dtype
from ..errors import not_supported
from ..factory import tensor as make
from ..function import AccumulateGrad, CopySlices, Node
from ..hooks import name_of, of_leaf
from ..tensor import Tensor
from . import copy_slices
from .worlds import ArrayWorld, TensorWorld

# ``torch.autograd`` for programs: the walk's own classes below are the engine's, not theirs.
__all__ = ["backward", "grad"]  # and, at the end, the modules and classes built on the walk

# ---- the public API ------------------------------------------------------------------------------------


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into the leaves' ``.grad``."""
    tensors = _tensor_list(tensors, "tensors")
    grad_tensors = _grad_list(grad_tensors, len(tensors), "grad_tensors")
    retain_graph, create_graph = _modes(retain_graph, create_graph)
    if inputs is not None:
        raise not_supported("backward(inputs=...)")
    if create_graph:
        warnings.warn(errors.CREATE_GRAPH_CYCLE, UserWarning, stacklevel=3)
    _run(tensors, grad_tensors, retain_graph, create_graph, None, "backward")


def _tensor_list(value, arg: str) -> list:
    """A tensor or a list/tuple of tensors (``arguments`` decides what is read)."""
    if isinstance(value, Tensor):
        return [value]
    return list(arguments.tensors(value, "backward", arg, None))


def _grad_list(value, n: int, arg: str) -> list:
    if value is None:
        return [None] * n
    if isinstance(value, Tensor):
        return [value]
    if type(value) not in (list, tuple):
        raise TypeError(arguments.must("backward", arg, None, "tuple of Tensors", value))
    return list(value)


def _modes(retain_graph, create_graph) -> tuple:
    if retain_graph is not None:
        retain_graph = arguments.flag(retain_graph, "backward", "retain_graph", strict=False)
    return retain_graph, arguments.flag(create_graph, "backward", "create_graph", strict=False)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         materialize_grads=False):
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs``, without touching ``.grad``."""
    outputs = _tensor_list(outputs, "outputs")
    inputs = _tensor_list(inputs, "inputs")
    grad_outputs = _grad_list(grad_outputs, len(outputs), "grad_outputs")
    retain_graph, create_graph = _modes(retain_graph, create_graph)
    materialize_grads = arguments.flag(materialize_grads, "grad", "materialize_grads", strict=False)
    if allow_unused is not None:
        allow_unused = arguments.flag(allow_unused, "grad", "allow_unused", strict=False)
    for i, t in enumerate(outputs):
        if not t._requires_grad:  # PyTorch looks at the outputs first
            raise RuntimeError(errors.NO_GRAD_FN.replace("element 0", f"element {i}"))
    for x in inputs:
        if not x._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if allow_unused is None:
        allow_unused = materialize_grads
    res = _run(list(outputs), list(grad_outputs), retain_graph, create_graph, inputs, "autograd.grad")
    out = []
    for index, (x, r) in enumerate(zip(inputs, res)):
        if r is None:
            if not allow_unused:
                raise RuntimeError(errors.UNUSED_INPUT.format(index=index))
            out.append(Tensor._make(np.zeros_like(x._data)) if materialize_grads else None)
        elif isinstance(r, Tensor):
            out.append(r)
        else:
            out.append(Tensor._make(np.array(r, copy=True)))
    return tuple(out)


# ---- one pass ------------------------------------------------------------------------------------------


def _run(tensors, grads, retain_graph, create_graph, inputs, api: str) -> list:
    """Walk back from ``tensors`` seeded with ``grads``. With ``inputs`` (autograd.grad) returns
    their gradients and writes no ``.grad``; without, accumulates into the leaves."""
    if retain_graph is None:
        retain_graph = create_graph
    for i, t in enumerate(tensors):
        if not t._requires_grad:
            raise RuntimeError(errors.NO_GRAD_FN.replace("element 0", f"element {i}"))
    roots = [_grad_fn(t) for t in tensors]
    seeds = [_seed(t, g, create_graph) for t, g in zip(tensors, grads)]
    world = TensorWorld if create_graph else ArrayWorld
    rec = _trace.ACTIVE
    if rec is not None:
        rec = rec.backward_pass(tensors[0], api, bool(retain_graph), bool(create_graph), seeds[0])
    task = GraphTask(roots, tensors, seeds, world, bool(retain_graph), inputs, rec)
    enabled = grad_mode._enabled
    grad_mode._enabled = bool(create_graph)  # the rules are recorded only for create_graph
    try:
        _execute(task)
    finally:
        grad_mode._enabled = enabled
        if rec is not None:
            rec.rec.pass_done()
    return task.results


def _grad_fn(t: Tensor):
    """Where the walk starts for ``t``: its grad_fn, or its AccumulateGrad for a leaf."""
    if not t._requires_grad:
        raise RuntimeError(errors.NO_GRAD_FN)
    fn = t.grad_fn  # (a view whose base changed is read again first)
    return fn if fn is not None else t._accumulator()


def _seed(t: Tensor, g, create_graph: bool):
    """The gradient the walk starts with at ``t``: ``g``, or 1 for a one-element ``t``."""
    if g is None:
        if t._data.size != 1:
            raise RuntimeError(errors.IMPLICIT_NON_SCALAR)
        arr = np.array(1, dtype=t._data.dtype)  # one element: a 0-d array of 1, shaped like t
        if t._data.ndim:
            arr = arr.reshape(t._data.shape)
        return Tensor._make(arr) if create_graph else arr
    if not isinstance(g, Tensor):

        g = make(g, dtype=t.dtype)
    if tuple(g._data.shape) != tuple(t._data.shape):
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a shape "
            f"of {t.shape}.")
    return g if create_graph else g._data


class GraphRoot:
    """Where a pass starts (PyTorch's GraphRoot): the roots are its inputs, the seeds what it sends
    (each to its tensor's output of its node: ``_nr``, as a Node's)."""

    __slots__ = ("_next", "_nr")
    _trace = None  # never recorded: its flows are the pass's seed

    def __init__(self, roots, tensors):
        self._next = tuple(roots)
        self._nr = tuple(t.output_nr for t in tensors) if any(fn.multi for fn in roots) else None


class GraphTask:
    """The state of one pass: how many gradients each node still waits for (``deps``), the sum of
    those that arrived so far (``buffers``; ``received`` lists them per edge while recording), the
    ready queue, and for autograd.grad the nodes worth running and the gradients to hand back.

    The ready queue is a heap of ``(-sequence number, tie, node, gradient)``: a node enters it
    with the sum of all its gradients once the last one has arrived (PyTorch's NodeTask); equal
    sequence numbers (AccumulateGrad) leave it in the order they entered."""

    __slots__ = ("deps", "buffers", "received", "ready", "world", "keep_graph", "accumulate", "needed",
                 "runs", "capture", "results", "rec", "inputs")

    def __init__(self, roots, tensors, seeds, world, keep_graph: bool, inputs, rec):
        root = GraphRoot(roots, tensors)
        self.inputs = inputs
        self.deps, reachable = _dependencies(root)
        self.world = world
        self.keep_graph = keep_graph
        self.rec = rec
        self.buffers = {}
        self.received = {}
        self.ready = []
        self.accumulate = inputs is None  # backward writes .grad; autograd.grad captures instead
        self.capture: dict = {}
        self.needed = self.runs = None
        self.results = [None] * (0 if inputs is None else len(inputs))
        if inputs is not None:
            for i, x in enumerate(inputs):
                self.capture.setdefault(_grad_fn(x), []).append(i)
            self.runs = _leading_to(reachable, self.capture)
            self.needed = self.runs | self.capture.keys()  # the nodes a gradient is sent to
        _deliver(self, root, seeds)


_tie = itertools.count()


def _dependencies(root: GraphRoot) -> tuple[dict, KeysView]:
    """The number of consumer edges of every node reachable from ``root``, and those nodes (the
    keys of the first)."""
    deps: dict = {}
    get = deps.get
    stack = [root]
    push, pop = stack.append, stack.pop
    while stack:
        for nxt in pop()._next:
            if nxt is not None:
                n = get(nxt)
                if n is None:  # reached for the first time (the root is no node's input)
                    deps[nxt] = 1
                    push(nxt)
                else:
                    deps[nxt] = n + 1
    return deps, deps.keys()


def _leading_to(reachable: KeysView, targets) -> set:
    """The nodes from which some target can be reached along an edge: autograd.grad runs only
    those. A target itself runs only when another target lies below it (PyTorch captures the
    gradient arriving at a non-leaf input and does not run its grad_fn)."""
    needed: set = set()
    changed = True
    while changed:  # a fixed point over the (finite, acyclic) graph; small graphs in practice
        changed = False
        for fn in reachable:
            if fn not in needed and any(nxt in needed or nxt in targets
                                        for nxt in fn._next if nxt is not None):
                needed.add(fn)
                changed = True
    return needed


# ---- the walk --------------------------------------------------------------------------------------------


def _execute(task: GraphTask) -> None:
    """Run ready nodes until none is left (each node once, after all its consumers)."""
    ready, received, world = task.ready, task.received, task.world
    rec, needed, accumulate, keep_graph = task.rec, task.needed, task.accumulate, task.keep_graph
    while ready:
        _, _, fn, g = heappop(ready)
        arrived = received.pop(fn, None) if rec is not None else None
        leaf = type(fn) is AccumulateGrad
        # most programs hook no leaf: then no leaf is looked up
        hooks = (of_leaf(fn.variable) if _hooks._LEAF else None) if leaf else fn.hooks
        parts = None
        if fn.multi:  # one gradient per output: each output's hooks, then the whole's gradient
            parts = [g[nr] if g[nr] is None or not hooks.get(nr) else _run_hooks(task, fn, hooks[nr], g[nr])
                     for nr in range(len(g))]
            g = world.join(fn, parts)
        elif hooks and g is not None:  # the program's tensor hooks see (and may replace) the gradient first
            g = _run_hooks(task, fn, hooks, g)
        if needed is not None and not _wanted(task, fn, g, parts):
            continue
        if leaf:
            if accumulate:
                _accumulate(task, fn.variable, g, arrived)
            continue
        if type(fn) is CopySlices:  # one step, as torch runs it: the wrapped op's rules at the written part
            sent = copy_slices.evaluate(fn, g, world, needed, _evaluate)
        else:
            sent = _evaluate(fn, g, world, needed)
        step = rec.op_step(fn, g, arrived, sent) if rec is not None else None
        if parts is not None:  # each output that retains its grad keeps its own gradient
            for nr, t in fn.retained.items():
                if parts[nr] is not None:
                    _retain(task, t, parts[nr], step)
        elif fn.retained is not None:  # retain_grad keeps it in autograd.grad passes too, as in PyTorch
            _retain(task, fn.retained, g, step)
        if not keep_graph:
            fn.release()
        # Unrecorded, a leaf made ready is accumulated at once (see _deliver); recorded, it waits
        # in the queue, where it is next anyway, so the record's steps keep their order. This
        # node's gradient is let go first: a leaf's may be a view of it, then kept as its .grad.
        g = None
        _deliver(task, fn, sent, rec is None and accumulate)
        sent = None  # the gradients now live in the buffers only (see ArrayWorld.added)


def _run_hooks(task: GraphTask, fn, hooks: dict, g):
    """Call each tensor hook of ``fn``'s tensor with the gradient; a tensor a hook returns replaces it
    (checked as PyTorch checks it). Each call is a step of the pass's record."""
    world = task.world
    target = fn.variable if type(fn) is AccumulateGrad else fn
    for hook, where in list(hooks.values()):
        given = g if world is TensorWorld else Tensor._make(np.array(g, copy=True))
        result = hook(given)
        new = g if result is None else _hook_result(result, g, hook, world)
        if task.rec is not None:
            task.rec.hook_step(target, name_of(hook), where, g, None if result is None else new)
        g = new
    return g


def _hook_result(result, g, hook, world):
    """A hook's replacement gradient, as the world's value (PyTorch's checks and errors)."""
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{arguments.type_name(result)}'")
    data = world.data(g)
    if result._data.shape != data.shape:
        raise RuntimeError(f"hook '{name_of(hook)}' has changed the size of value")
    if result._data.dtype != data.dtype:

        raise RuntimeError(f"hook '{name_of(hook)}' has changed the type of value (was "
                           f"{from_numpy_dtype(data.dtype)._type_desc} got {result.dtype._type_desc})")
    return result if world is TensorWorld else result._data


def _wanted(task: GraphTask, fn, g, parts) -> bool:
    """autograd.grad: keep the gradient of each requested input (an output's own, ``parts``, for a
    multi-output node); run ``fn`` only if it leads to one."""
    for i in task.capture.get(fn, ()):
        task.results[i] = g if parts is None else parts[task.inputs[i].output_nr]
    return fn in task.runs


def _evaluate(fn: Node, g, world, needed) -> list:
    """Apply ``fn``'s rule for each input that needs a gradient (None for the others), each
    result fitted to its input's shape and dtype."""
    op = fn.op
    vjps = op.vjps
    variadic = op.variadic
    meta = fn._meta
    s = world.saved(fn)
    out = []
    for i, nxt in enumerate(fn._next):
        if nxt is None or (needed is not None and nxt not in needed):
            out.append(None)
            continue
        rule = vjps[0] if variadic else vjps[i]
        if rule is None:
            raise RuntimeError(f"the derivative for '{op.name}' input {i} is not implemented")
        s.i = i
        r = rule(g, s)
        m = i + i  # the input's shape and dtype in meta
        # An array of the input's shape and dtype needs no fitting (most rules' results).
        if type(r) is not np.ndarray or r.shape != meta[m] or r.dtype is not meta[m + 1]:
            r = world.fit(r, meta[m], meta[m + 1])
        out.append(r)
    return out


def _deliver(task: GraphTask, fn: Node, sent: list, direct: bool = False) -> None:
    """Hand each input's gradient to the node that produced that input: summed in its buffer
    while more are due, or into the ready queue with the sum once it was the last.

    ``direct``: a leaf without hooks made ready is accumulated here and now, as PyTorch runs
    AccumulateGrad as soon as it is ready: the queue would hand it out next, in this order."""
    buffers, deps = task.buffers, task.deps
    received = task.received if task.rec is not None else None
    nrs = fn._nr
    for i, nxt in enumerate(fn._next):
        if nxt is None:
            continue
        gi = sent[i]
        if received is not None and gi is not None:
            received.setdefault(nxt, []).append((fn, i, gi))
        if nrs is not None and nxt.multi:  # a multi-output node keeps one gradient per output
            _add_part(buffers, nxt, nrs[i], gi)
            gi = None
        left = deps[nxt] - 1
        if left:
            deps[nxt] = left
            if gi is not None:
                prev = buffers.get(nxt)
                buffers[nxt] = gi if prev is None else prev + gi
        else:  # the last one: nxt is ready (with the sum, when others came before)
            if buffers:
                prev = buffers.pop(nxt, None)
                if prev is not None:
                    gi = prev if gi is None else prev + gi
            if direct and type(nxt) is AccumulateGrad and gi is not None and not _hooks._LEAF:
                sent[i] = None  # this local holds the only reference, as _execute's does (added)
                _accumulate(task, nxt.variable, gi, None)
            else:
                heappush(task.ready, (-nxt.seq, next(_tie), nxt, gi))


def _add_part(buffers: dict, fn, nr: int, g) -> None:
    """Add ``g`` to output ``nr``'s gradient in multi-output node ``fn``'s buffer (a list)."""
    parts = buffers.get(fn)
    if parts is None:
        parts = buffers[fn] = [None] * fn.n_out
    if g is not None:
        parts[nr] = g if parts[nr] is None else parts[nr] + g


def _accumulate(task: GraphTask, var: Tensor, g, arrived) -> None:
    """AccumulateGrad: add ``g`` into the leaf's ``.grad``."""
    before = var._grad
    var._grad = after = task.world.added(before, g)
    if task.rec is not None:
        task.rec.leaf_step(var, g, arrived, before, after)
    if _hooks._POST:
        _hooks.run_post_accumulate(var)


def _retain(task: GraphTask, var: Tensor, g, step) -> None:
    """``retain_grad()`` on a non-leaf: keep (accumulate) the gradient that reached it."""
    before = var._grad
    var._grad = after = task.world.added(before, g)
    if task.rec is not None:
        task.rec.retained(step, before, after)


# ---- the rest of torch.autograd ---------------------------------------------------------------------------
from . import forward_ad, function, functional  # noqa: E402  (they build on the walk above)
from .function import Function  # noqa: E402
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402  (the functions, as in torch, not the module)
from .variable import Variable  # noqa: E402

__all__ += ["Function", "Variable", "forward_ad", "function", "functional", "gradcheck", "gradgradcheck"]

"""The backward pass: one iterative walk in PyTorch's order, shared by ``Tensor.backward`` and
``autograd.grad``, which also emits the steps the page plays.

Order: a node runs once every consumer in the graph has delivered its gradient; among ready
nodes the most recently created runs first (PyTorch's sequence numbers), and AccumulateGrad runs
as soon as it is ready. Gradients are NumPy arrays, or Tensors with ``create_graph=True`` so the
rules themselves are recorded and can be differentiated again.
"""

from __future__ import annotations

import heapq
import itertools
from sys import getrefcount

import numpy as np

from . import arguments, errors, grad_mode
from . import trace as _trace
from .function import AccumulateGrad, Node
from .ops.table import NP, Saved, sum_to_shape
from .tensor import Tensor


def _collect(roots):
    """Dependencies (number of consumer edges) of every node reachable from ``roots``."""
    deps: dict = {}
    stack = [fn for fn in roots if fn is not None]
    seen = set(stack)
    while stack:
        fn = stack.pop()
        for nxt in fn._next:
            if nxt is None:
                continue
            if nxt in deps:  # already reached, so already seen
                deps[nxt] += 1
                continue
            deps[nxt] = 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, seen


def _needed(seen, targets):
    """Nodes from which some target is reachable (autograd.grad runs only those)."""
    needed = set(targets)
    changed = True
    order = list(seen)
    # Fixed point over the (finite, acyclic) graph; small graphs in practice.
    while changed:
        changed = False
        for fn in order:
            if fn in needed:
                continue
            if any(nxt in needed for nxt in fn._next if nxt is not None):
                needed.add(fn)
                changed = True
    return needed


def _seed(t: Tensor, g, create_graph: bool):
    if g is None:
        if t._data.size != 1:
            raise RuntimeError(errors.IMPLICIT_NON_SCALAR)
        arr = np.ones(t._data.shape, t._data.dtype)
        return Tensor._make(arr) if create_graph else arr
    if not isinstance(g, Tensor):
        from .factory import tensor as make

        g = make(g, dtype=t.dtype)
    if tuple(g._data.shape) != tuple(t._data.shape):
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of {g.shape} and output[0] has a shape "
            f"of {t.shape}.")
    return g if create_graph else g._data


def _run(tensors, grads, retain_graph, create_graph, inputs, api):
    """The walk. Returns the captured gradients of ``inputs`` (autograd.grad) or None."""
    if retain_graph is None:
        retain_graph = create_graph
    roots = []
    for t in tensors:
        if not t._requires_grad:
            raise RuntimeError(errors.NO_GRAD_FN)
        roots.append(t._grad_fn if t._grad_fn is not None else t._accumulator())
    seeds = [_seed(t, g, create_graph) for t, g in zip(tensors, grads)]

    deps, seen = _collect(roots)
    capture: dict = {}
    if inputs is not None:
        for i, x in enumerate(inputs):
            key = x._grad_fn if x._grad_fn is not None else x._accumulator()
            capture.setdefault(key, []).append(i)
        needed = _needed(seen, capture.keys())
    else:
        needed = None

    rec = _trace.ACTIVE
    bpass = rec.start_pass(tensors[0], api, bool(retain_graph), bool(create_graph), _data(seeds[0])) \
        if rec is not None else None

    buffers: dict = {}
    received: dict = {}
    for fn, s in zip(roots, seeds):
        buffers[fn] = s if fn not in buffers else buffers[fn] + s
    heap = []
    for fn in dict.fromkeys(roots):
        if deps.get(fn, 0) == 0:
            heapq.heappush(heap, (-fn.seq, next(_tie), fn))
    results = [None] * (len(inputs) if inputs is not None else 0)

    prev_mode = grad_mode._enabled
    grad_mode._enabled = bool(create_graph)
    try:
        heappop, heappush = heapq.heappop, heapq.heappush
        plain = bpass is None and not create_graph
        make, array, asarray = Tensor._make, np.array, np.asarray
        while heap:
            _, _, fn = heappop(heap)
            g = buffers.pop(fn, None)
            flows_in = received.pop(fn, None) if bpass is not None else None
            if needed is not None:  # autograd.grad: capture the inputs' gradients, run only what leads there
                if fn in capture:
                    for i in capture[fn]:
                        results[i] = g
                if fn not in needed:
                    continue
            if type(fn) is AccumulateGrad:
                if inputs is None:
                    if plain:  # _accumulate for a first-order, unrecorded backward
                        var = fn.variable
                        before = var._grad
                        if before is not None:
                            var._grad = make(asarray(before._data + g))
                        elif type(g) is np.ndarray and getrefcount(g) == 2 and _sole(g):
                            var._grad = make(g)  # nothing else holds it: PyTorch also steals it
                        else:
                            var._grad = make(array(g, copy=True))
                    else:
                        _accumulate(fn, g, create_graph, rec, bpass, flows_in)
                continue
            sent = _run_node(fn, g, create_graph, needed)
            step = _record_op_step(rec, bpass, fn, g, flows_in, sent) if bpass is not None else None
            if fn.retained is not None and inputs is None:
                _retain(fn.retained, g, create_graph, step)
            if not retain_graph:
                if fn._saved:  # release() inlined for the nodes that kept something
                    fn._saved = ()
                    fn.released = True
                else:
                    fn.release()
            i = -1
            for nxt in fn._next:  # hot loop: _dec inlined
                i += 1
                if nxt is None:
                    continue
                gi = sent[i]
                if gi is not None:
                    prev = buffers.get(nxt)
                    buffers[nxt] = gi if prev is None else prev + gi
                    if bpass is not None:
                        received.setdefault(nxt, []).append((fn, i, gi))
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0:
                    heappush(heap, (-nxt.seq, next(_tie), nxt))
            sent = gi = None  # the gradients live in the buffers only (see _sole)
    finally:
        grad_mode._enabled = prev_mode
    return results


_tie = itertools.count()


def _sole(g: np.ndarray) -> bool:
    """May a leaf's first gradient be ``g`` itself rather than a copy? As in PyTorch's
    AccumulateGrad, when nothing else can see it: the caller checked that only the walk holds
    ``g``; its memory must also be its own or that of a base only ``g`` holds (a transposed
    matmul result), and it must be writable and compact (``.grad`` is changed in place)."""
    flags = g.flags
    if not flags.writeable or not (flags.c_contiguous or flags.f_contiguous):
        return False
    base = g.base
    # References to base: ``g``'s, this local's and getrefcount's argument.
    return base is None or (type(base) is np.ndarray and base.base is None and base.size == g.size
                            and getrefcount(base) == 3)


def _run_node(fn: Node, g, create_graph: bool, needed):
    """Apply each needed rule of ``fn`` to the upstream ``g``; undo broadcasting; cast."""
    if create_graph:
        return _run_node_tx(fn, g, needed)
    op = fn.op
    s = Saved(NP, fn.params or _NO_PARAMS, fn.extras)
    if op.saves:
        saved = fn._saved
        if fn.released:
            fn.checked_saves()  # raises
        for j in range(0, len(saved), 3):  # checked_saves inlined; it raises on a stale version
            t = saved[j + 1]
            if t._vc[0] != saved[j + 2]:
                fn.checked_saves()
            setattr(s, saved[j], t._data)
    vjps, variadic, meta = op.vjps, op.variadic, fn._meta
    out = []
    i = -1
    for nxt in fn._next:
        i += 1
        if nxt is None or (needed is not None and nxt not in needed):
            out.append(None)
            continue
        if variadic:
            rule = vjps[0]
            s.i = i
        else:
            rule = vjps[i]
        if rule is None:
            raise RuntimeError(f"the derivative for '{op.name}' input {i} is not implemented")
        gi = rule(g, s)
        if type(gi) is not np.ndarray:
            gi = np.asarray(gi)
        shape, dt = meta[2 * i], meta[2 * i + 1]
        if gi.shape != shape:
            gi = sum_to_shape(gi, shape)
        if gi.dtype is not dt and gi.dtype != dt:
            gi = gi.astype(dt)
        out.append(gi)
    return out


def _run_node_tx(fn: Node, g, needed):
    """``_run_node`` with create_graph=True: the rules run on Tensors and are recorded."""
    from .dispatch import _cast
    from .ops.tensor_xp import TX

    op = fn.op
    s = Saved(TX, fn.params or {}, fn.extras)
    if op.saves:
        for k, t in fn.checked_saves():
            if k == "out":  # the node's own output, re-attached to the node (see _output_alias)
                t = Tensor._make(t._data, True, t._vc)
                t._grad_fn = fn
            setattr(s, k, t)
    out = []
    for i, nxt in enumerate(fn._next):
        if nxt is None or (needed is not None and nxt not in needed):
            out.append(None)
            continue
        if op.variadic:
            rule = op.vjps[0]
            s.i = i
        else:
            rule = op.vjps[i]
        if rule is None:
            raise RuntimeError(f"the derivative for '{op.name}' input {i} is not implemented")
        shape, dt = fn._meta[2 * i], fn._meta[2 * i + 1]
        gi = TX.sum_to(rule(g, s), shape)
        if gi._data.dtype != dt:
            gi = _cast(gi, dt)
        out.append(gi)
    return out


_NO_PARAMS: dict = {}  # shared, never written: what a rule sees as ``s.p`` for an op without params


def _added(before: Tensor | None, g, create_graph: bool) -> Tensor:
    """``.grad`` after adding ``g``: a copy of ``g`` the first time, else before + g (as torch)."""
    if create_graph:
        return g if before is None else before + g
    # 0-d arrays add up to NumPy scalars: keep .grad an ndarray so in-place ops on it work.
    data = np.array(g, copy=True) if before is None else np.asarray(before._data + g)
    return Tensor._make(data)


def _accumulate(acc: AccumulateGrad, g, create_graph, rec, bpass, flows_in) -> None:
    var = acc.variable
    before = var._grad
    new = var._grad = _added(before, g, create_graph)
    if bpass is not None:
        _record_leaf_step(rec, bpass, var, g, flows_in, before, new)


def _retain(var: Tensor, g, create_graph, step) -> None:
    """retain_grad() on a non-leaf: keep (accumulate) the gradient that reached it."""
    before = var._grad
    new = var._grad = _added(before, g, create_graph)
    if step is not None:
        step.retained = True
        step.grad_before = None if before is None else np.array(before._data, copy=True)
        step.grad_after = np.array(new._data, copy=True)


def _data(x):
    if x is None:
        return None
    return x._data if isinstance(x, Tensor) else x


def _flows(rec, flows_in):
    out = []
    for src, i, gi in flows_in or ():
        nid = rec._mine(src)
        if nid is None:
            continue
        out.append(_trace.Flow(edge=rec.trace.nodes[nid].inputs[i], grad=np.array(_data(gi), copy=True)))
    return out


def _record_op_step(rec, bpass, fn, g, flows_in, sent):
    nid = rec._mine(fn)
    if nid is None:
        return None
    node = rec.trace.nodes[nid]
    step = _trace.BackwardStep(
        index=len(bpass.steps), node=nid, kind="op", received=_flows(rec, flows_in),
        upstream=np.array(_data(g), copy=True),
    )
    if sent is not None:
        step.sent = [_trace.Flow(edge=e, grad=None if gi is None else np.array(_data(gi), copy=True))
                     for e, gi in zip(node.inputs, sent)]
    bpass.steps.append(step)
    return step


def _record_leaf_step(rec, bpass, var, g, flows_in, before, after):
    nid = rec._mine(var)
    if nid is None:
        return
    bpass.steps.append(_trace.BackwardStep(
        index=len(bpass.steps), node=nid, kind="leaf", received=_flows(rec, flows_in),
        upstream=np.array(_data(g), copy=True),
        grad_before=None if before is None else np.array(before._data, copy=True),
        grad_after=np.array(after._data, copy=True),
    ))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None) -> None:
    """``torch.autograd.backward``: accumulate gradients of ``tensors`` into the leaves' ``.grad``."""
    tensors = _tensor_list(tensors, "tensors")
    grad_tensors = _grad_list(grad_tensors, len(tensors), "grad_tensors")
    retain_graph, create_graph = _modes(retain_graph, create_graph)
    if inputs is not None:
        raise RuntimeError("backward(inputs=...) is not supported by gradviz")
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

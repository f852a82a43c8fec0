"""A backward pass of torch's engine, as ``gradviz.record()`` reads it into the trace.

Two kinds of hooks, both torch's own: a ``Walk`` puts a pre-hook (the gradient a Node is about to
use, in the order torch's engine runs them) and a hook (what it sends to each input) on every Node
the pass can reach, and removes them when the pass ends; ``recorded_hook`` wraps a hook the program
registers with ``Tensor.register_hook``, so each call of it is a hook step of the pass running then.
torch runs a tensor's hooks before its Node's pre-hooks, so that step comes before the node's own,
as in the engine.
"""

from __future__ import annotations

import functools

import numpy as np

from .torch_parts import to_numpy


class Walk:
    """The hooks of one backward pass on every Node torch's engine can reach from the roots."""

    def __init__(self, session, pass_rec, accumulate: bool):
        self.s = session
        self.rec = pass_rec
        self.accumulate = accumulate
        self.handles: list = []
        self.received: dict[int, list] = {}
        self.upstream: dict[int, object] = {}
        self.grad_at_start: dict[int, np.ndarray | None] = {}

    def hook(self, roots) -> None:
        seen = set()
        stack = [r.grad_fn if r.grad_fn is not None else _accumulator(r) for r in roots]
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen:
                continue
            seen.add(id(fn))
            self.handles.append(fn.register_prehook(self._pre(fn)))
            self.handles.append(fn.register_hook(self._post(fn)))
            out = self.s.outputs.get(id(fn))
            if out is not None and out.tensor.retains_grad:
                self.s.rec.retains_grad(self.s.fns[id(fn)])
                g = out.tensor.grad
                self.grad_at_start[id(fn)] = None if g is None else to_numpy(g)
            stack.extend(n for n, _ in fn.next_functions if n is not None)

    def unhook(self) -> None:
        for h in self.handles:
            h.remove()
        self.handles = []

    def _pre(self, fn):
        def pre(grad_outputs):
            fv = self.s.fns.get(id(fn))
            if fv is not None and fv.multi:
                self.upstream[id(fn)] = self._joined(fv, grad_outputs)
                return None
            g = grad_outputs[0] if grad_outputs else None
            self.upstream[id(fn)] = None if g is None else to_numpy(g)
            if type(fn).__name__ == "AccumulateGrad":
                v = fn.variable.grad
                self.grad_at_start[id(fn)] = None if v is None else to_numpy(v)
            return None
        return pre

    def _joined(self, fv, grad_outputs) -> np.ndarray:
        """The gradient of the whole a node of several outputs cut (one gradient per output, None
        for an output none reached), as the engine's walk joins it: zeros where none came, the
        pieces put back along the node's dim (stacked for unbind, concatenated for split)."""
        node = self.s.rec.trace.nodes[fv._trace[1]]
        dim, sizes = node.params["dim"], node.params["sizes"]
        whole = node.value
        out = np.zeros(whole.shape, dtype=whole.dtype)
        start = 0
        for nr, g in enumerate(grad_outputs):
            width = 1 if sizes is None else sizes[nr]
            if g is not None:
                part = to_numpy(g)
                key = (slice(None),) * dim + (start if sizes is None else slice(start, start + width),)
                out[key] = part
            start += width
        return out

    def _post(self, fn):
        def post(grad_inputs, grad_outputs):
            session = self.s
            received = self.received.pop(id(fn), [])
            upstream = self.upstream.pop(id(fn), None)
            if type(fn).__name__ == "AccumulateGrad":
                if self.accumulate:
                    var = fn.variable
                    after = None if var.grad is None else to_numpy(var.grad)
                    self.rec.leaf_step(session.view_of(var), upstream, received,
                                       self.grad_at_start.get(id(fn)), after)
                return None
            fv = session.fns.get(id(fn))
            nexts = fn.next_functions
            # A Function's backward may return a gradient for an input that needs none: torch drops it.
            sent = [None if g is None or (i < len(nexts) and nexts[i][0] is None) else to_numpy(g)
                    for i, g in enumerate(grad_inputs)]
            step = self.rec.op_step(fv, upstream, received, sent) if fv is not None else None
            out = session.outputs.get(id(fn))
            if step is not None and out is not None and out.tensor.retains_grad and self.accumulate:
                g = out.tensor.grad
                self.rec.retained(step, self.grad_at_start.get(id(fn)), None if g is None else to_numpy(g))
            for i, ((nxt, _), g) in enumerate(zip(nexts, sent)):
                if nxt is not None and g is not None and fv is not None:
                    self.received.setdefault(id(nxt), []).append((fv, i, g))
            return None
        return post


def recorded_hook(session, hook, target, where):
    """``hook`` (a program's tensor hook, registered at ``where`` on ``target``: a grad_fn's view or a
    leaf's), calling the pass recorder's ``hook_step`` each time it runs in a recorded pass with the
    gradient it was given and what it returned."""
    from engine.hooks import name_of

    name = name_of(hook)
    tensor_type = session.torch.Tensor

    def hooked(grad):
        result = hook(grad)
        walk = session.walks[-1] if session.walks else None
        valid = result is None or (isinstance(result, tensor_type) and  # else torch refuses it
                                   result.shape == grad.shape and result.dtype == grad.dtype)
        if walk is not None and target is not None and valid:
            after = None if result is None else to_numpy(result)
            walk.rec.hook_step(target, name, where, to_numpy(grad), after)
        return result

    try:
        functools.update_wrapper(hooked, hook)  # torch names the hook in its errors
    except (AttributeError, TypeError):
        hooked.__name__ = name
    return hooked


def _accumulator(t):
    """A leaf's AccumulateGrad Node (what backward from a leaf starts at)."""
    if not t.requires_grad:
        return None
    try:
        return t.view_as(t).grad_fn.next_functions[0][0]
    except (AttributeError, IndexError, RuntimeError):
        return None

"""The recorder of one backward pass (``PassRecorder``): the steps of a pass, in the order the walk
visits nodes, written into the Trace (engine/trace.py) by the walk (engine/autograd/). Also
``copy_now``, the copy of an array every record takes at record time."""

from __future__ import annotations

import numpy as np

from .trace_records import BackwardPass, BackwardStep, Flow


def copy_now(x) -> np.ndarray | None:
    """A copy of an array (or a NumPy scalar, or a Tensor's array), taken now (None stays None)."""
    if x is None:
        return None
    if type(x) is np.ndarray:
        return x.copy()
    return np.array(getattr(x, "_data", x), copy=True)


class PassRecorder:
    """Records the steps of one backward pass, in the order the walk visits nodes. ``received``
    lists what arrived at a node as ``(consumer grad_fn, input index, gradient)``."""

    def __init__(self, rec, bpass: BackwardPass):
        self.rec = rec
        self.steps = bpass.steps
        # edge id -> the copy its sender's step took of the gradient sent along it, until it arrives:
        # what arrives is what was sent, so the arrival shares that copy (a trace's arrays are
        # never written to)
        self._in_flight: dict[int, np.ndarray] = {}

    def _flows(self, received) -> list[Flow]:
        out = []
        if not received:
            return out
        rec, in_flight, nodes = self.rec, self._in_flight, self.rec.trace.nodes
        for src, i, g in received:
            tag = src._trace  # rec._mine(src), inline: every gradient of every pass comes here
            if tag is not None and tag[0] is rec:
                node = nodes[tag[1]]
                edge = (node.walked or node.inputs)[i]
                sent = in_flight.pop(edge, None)
                if sent is None:
                    sent = copy_now(g)
                out.append(Flow(edge, sent))
        return out

    def _step(self, nid: int, kind: str, upstream, received) -> BackwardStep:
        flows = self._flows(received)
        if len(flows) == 1 and received[0][2] is upstream:  # one arrival, unchanged: the sum is it
            kept = flows[0].grad
        else:
            kept = copy_now(upstream)
        step = BackwardStep(len(self.steps), nid, kind, flows, kept)
        self.steps.append(step)
        return step

    def op_step(self, fn, upstream, received, sent) -> BackwardStep | None:
        """``fn``'s rules turned ``upstream`` into ``sent`` (one gradient or None per input)."""
        tag = fn._trace  # self.rec._mine(fn), inline: every op step comes here
        if tag is None or tag[0] is not self.rec:
            return None
        nid = tag[1]
        step = self._step(nid, "op", upstream, received)
        in_flight = self._in_flight
        flows = []
        node = self.rec.trace.nodes[nid]
        for e, g in zip(node.walked or node.inputs, sent):
            if g is not None:
                g = in_flight[e] = copy_now(g)
            flows.append(Flow(e, g))
        step.sent = flows
        return step

    def leaf_step(self, tensor, upstream, received, before, after) -> None:
        """AccumulateGrad wrote ``tensor.grad``: ``before`` (Tensor or None) became ``after``."""
        nid = self.rec._mine(tensor)
        if nid is not None:
            step = self._step(nid, "leaf", upstream, received)
            step.grad_before, step.grad_after = copy_now(before), copy_now(after)
            self.rec._wrote_grad(nid, after, tensor)

    def hook_step(self, target, name: str, where, before, after) -> None:
        """A tensor hook ``name`` (registered at ``where``) ran on the gradient ``before`` reaching
        ``target`` (a grad_fn, or a leaf tensor) and returned ``after`` (None: nothing)."""
        nid = self.rec._mine(target)
        if nid is None:
            return
        step = self._step(nid, "hook", before, None)
        step.grad_before, step.grad_after = copy_now(before), copy_now(after)
        step.hook = name
        step.hook_line, step.hook_col = where if where is not None else (None, None)

    def retained(self, step: BackwardStep | None, before, after) -> None:
        """The non-leaf of an op step keeps its gradient (``retain_grad``): ``before`` became ``after``."""
        if step is not None:
            step.retained = True
            step.grad_before, step.grad_after = copy_now(before), copy_now(after)
            self.rec._wrote_grad(step.node, after)

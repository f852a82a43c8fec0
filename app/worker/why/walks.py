"""What the diagnoses of one run read off its trace, each worked out once for all of them: who reads
each node, the nodes of each tensor, each pass's gradients by edge and their sizes, the ancestry
of each pass's root, the pass that last wrote each node's ``.grad`` and the ``.grad`` each leaf
ended with. A deep model has thousands of parameters to diagnose: each diagnosis walking the whole
trace again for these made the work grow with the square of the model's size."""

from __future__ import annotations

import numpy as np

from engine.trace import ancestry


class Walks:
    """The indexes of ``trace`` the diagnoses share (the trace must not change while it is used)."""

    def __init__(self, trace):
        self.trace = trace
        self._users: dict[int, list[int]] | None = None
        self._leaves: dict[int, list[int]] | None = None
        self._written: dict[int, int] | None = None
        self._final: dict[int, tuple[int, object]] | None = None
        self._grad_events: list[tuple[str, int]] | None = None
        self._ancestry: dict[int, set[int]] = {}
        self._sent: dict[int, dict] = {}
        self._upstream: dict[int, dict] = {}
        self._sizes: dict[tuple[int, int], float] = {}
        self._zeros: dict[int, tuple[object, float]] = {}
        self.hops: dict[tuple[int, int], tuple | None] = {}  # (pass, node) -> its largest sent edge
        self.links: dict[tuple[int, int], dict] = {}  # (pass, edge) -> the link of a scale chain
        self.zeroing: dict[int, list] = {}  # pass -> its steps that sent more zeros (search.py)

    def users(self) -> dict[int, list[int]]:
        """node -> the edges that read its tensor."""
        if self._users is None:
            self._users = {}
            for e in self.trace.edges:
                self._users.setdefault(e.source, []).append(e.id)
        return self._users

    def grad_events(self) -> list[tuple[str, int]]:
        """The trace's events that write or reset a ``.grad`` (backward, zero_grad, update), in order."""
        if self._grad_events is None:
            kinds = ("backward", "zero_grad", "update")
            self._grad_events = [(k, i) for k, i in self.trace.events if k in kinds]
        return self._grad_events

    def ancestry(self, root: int) -> set[int]:
        """``root`` and every node its value was computed from (shared: do not change it)."""
        if root not in self._ancestry:
            self._ancestry[root] = ancestry(self.trace, root)
        return self._ancestry[root]

    def same_tensor(self, node: int | None) -> set[int]:
        """The nodes of the tensor of ``node``: a leaf's nodes of its tensor object (a parameter gets
        a node after each optimizer step), else the node itself."""
        if node is None:
            return set()
        n = self.trace.nodes[node]
        if n.kind != "leaf":
            return {node}
        if self._leaves is None:
            self._leaves = {}
            for m in self.trace.nodes:
                if m.kind == "leaf":
                    self._leaves.setdefault(m.obj, []).append(m.id)
        return set(self._leaves[n.obj])

    def last_pass(self, ids: set[int]):
        """The last backward pass that wrote the gradient of the tensor (``ids``: its nodes)."""
        if self._written is None:
            self._written = {}
            for bp in self.trace.passes:
                for st in bp.steps:
                    if st.kind == "leaf" or st.retained:
                        self._written[st.node] = bp.index
        last = max((self._written[i] for i in ids if i in self._written), default=None)
        return None if last is None else self.trace.passes[last]

    def final_grad(self, ids: set[int]):
        """The ``.grad`` of the leaf whose nodes are ``ids`` after the last event of the trace: what
        the last backward pass wrote there, unless a zero_grad or an in-place change came after."""
        if self._final is None:
            self._final = self._final_grads()
        last = max((self._final[i] for i in ids if i in self._final), default=None, key=lambda x: x[0])
        return None if last is None else last[1]

    def _final_grads(self) -> dict[int, tuple[int, object]]:
        """leaf node -> (the order of the last write of its ``.grad``, what was written)."""
        trace, out, order = self.trace, {}, 0
        for kind, i in trace.events:
            if kind == "backward":
                writes = [(st.node, st.grad_after) for st in trace.passes[i].steps if st.kind == "leaf"]
            elif kind == "zero_grad":
                writes = list(trace.zero_grads[i])
            elif kind == "update" and trace.updates[i].grad:
                writes = [(trace.updates[i].node, trace.updates[i].after)]
            else:
                continue
            for node, grad in writes:
                order += 1
                out[node] = (order, grad)
        return out

    def sent(self, bp) -> dict[int, np.ndarray]:
        """edge -> the gradient pass ``bp`` sent along it."""
        if bp.index not in self._sent:
            self._sent[bp.index] = {f.edge: f.grad for s in bp.steps if s.kind == "op" for f in s.sent
                                    if f.grad is not None}
        return self._sent[bp.index]

    def upstream(self, bp) -> dict[int, np.ndarray]:
        """op node -> the gradient it received in pass ``bp``."""
        if bp.index not in self._upstream:
            self._upstream[bp.index] = {s.node: s.upstream for s in bp.steps
                                        if s.kind == "op" and s.upstream is not None}
        return self._upstream[bp.index]

    def sent_size(self, bp, edge: int) -> float:
        """The mean |gradient| pass ``bp`` sent along ``edge``."""
        key = (bp.index, edge)
        if key not in self._sizes:
            self._sizes[key] = mean_abs(self.sent(bp)[edge])
        return self._sizes[key]

    def zero_share(self, arr) -> float:
        """The share of elements of a recorded array that are exactly 0."""
        seen = self._zeros.get(id(arr))
        if seen is None or seen[0] is not arr:  # (the array is held, so its id is its own)
            seen = (arr, zero_share(arr))
            self._zeros[id(arr)] = seen
        return seen[1]


def mean_abs(arr) -> float:
    """The mean absolute value of an array (0 for an empty one)."""
    a = np.asarray(arr)
    if a.size == 1:  # the same number without NumPy's reduction (a long chain asks once per op)
        return abs(float(a.reshape(-1)[0]))
    a = np.abs(a.astype(np.float64, copy=False))
    return float(a.mean()) if a.size else 0.0


def zero_share(arr) -> float:
    """The share of elements that are exactly 0 (the zeros counted, then one division: the same
    number as the mean of ``a == 0``, without making that array)."""
    a = np.asarray(arr)
    return (a.size - np.count_nonzero(a)) / a.size if a.size else 0.0

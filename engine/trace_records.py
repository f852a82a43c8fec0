"""The records of a Trace (engine/trace.py): plain dataclasses with stable integer ids (a counter
per Trace, never ``id()``). Arrays in them are copies taken at record time, never written to
afterwards. Only the ``Recorder`` of engine/trace.py builds or changes them; readers only read. Two
readers live here too: ``ancestry`` (the nodes a value was computed from) and ``node_id`` (a tensor's
node)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(slots=True)
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
    scope: int | None = None  # innermost Scope recorded around it (None: the program's top level)
    kind: str = "leaf"
    # Which tensor object this is: leaf nodes of the same object share it (a parameter gets a new
    # node after an optimizer step, but stays the same object), numbered per trace
    obj: int = 0


@dataclass(slots=True)
class SavedTensor:
    """A tensor an op saved for backward (shown in the UI, released after backward)."""

    name: str  # the table's key for it: "a", "b", "c" (inputs), "out", or an extra ("coef", ...)
    shape: tuple[int, ...]
    value: np.ndarray
    node: int | None = None  # the graph node whose output it is (None: data only the op holds)


@dataclass(slots=True)
class OpNode:
    """One recorded forward op: a grad_fn node of the autograd graph."""

    id: int
    op: str  # op table key, e.g. "mul"
    grad_fn: str  # PyTorch's name, e.g. "MulBackward0"
    description: str  # what the op computes, in words, e.g. "a · b"
    inputs: list[int]  # edge ids, one per tensor input, in argument order
    formulas: tuple[str, ...]  # one local rule per tensor input, e.g. "∂(a·b)/∂a = b"
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
    scope: int | None = None  # innermost Scope recorded around it (None: the program's top level)
    kind: str = "op"
    end_line: int | None = None  # where the expression that ran it ends (col: just after it)
    end_col: int | None = None
    kept: list[str] = field(default_factory=list)  # the saved keys the grad_fn really holds
    # A backward pass with create_graph=True recorded this op: (pass index, index of the step
    # whose rule ran it); None for an op the program ran
    made_by: tuple[int, int] | None = None
    # The program wrote the number first (``4 * x`` runs as mul(x, 4), as in PyTorch): the page
    # writes the op in the program's order
    swapped: bool = False
    # An op with several outputs (unbind, split): the name the program bound each output to (None:
    # unnamed); ``name`` joins them as the program wrote them (``a, b, c``). None: one output
    pieces: list[str | None] | None = None
    # The edges its backward step sends along, one per input of its grad_fn as the walk runs it: a
    # CopySlices that wraps an op (``v.mul_(10)`` on a view) sends to the base's edge, then along the
    # op's other inputs' edges, as torch's next_functions list them. None: ``inputs``
    walked: list[int] | None = None


@dataclass(slots=True)
class Edge:
    """A tensor flowing from a producer node into input ``index`` of an op node."""

    id: int
    source: int  # node id (leaf or op)
    target: int  # op node id
    index: int  # argument position at the target
    shape: tuple[int, ...]
    needs_grad: bool  # False: PyTorch puts (None, 0) in next_functions here
    output: int = 0  # which output of the source it carries (a multi-output node's: unbind, split)


@dataclass(slots=True)
class Flow:
    """A gradient travelling along one edge (towards its source) during backward."""

    edge: int
    grad: np.ndarray | None  # None where the input needs no grad


@dataclass(slots=True)
class BackwardStep:
    """One node visited by a backward pass, in the order the engine visited them."""

    index: int
    node: int
    kind: str  # "op" (a grad_fn ran its rule), "leaf" (AccumulateGrad wrote .grad) or "hook" (see below)
    received: list[Flow]  # what arrived, one Flow per consumer edge (several: a fan-out sum)
    upstream: np.ndarray | None  # the sum of what arrived (for the root: the seed gradient)
    sent: list[Flow] = field(default_factory=list)  # op steps: one per input edge
    grad_before: np.ndarray | None = None  # leaf steps (and retain_grad non-leaves)
    grad_after: np.ndarray | None = None
    retained: bool = False  # a non-leaf whose .grad was kept by retain_grad()
    # "hook" steps: a tensor hook of the program ran on the gradient reaching ``node`` (grad_before);
    # grad_after is what it returned instead (None: it returned None, the gradient goes on unchanged)
    hook: str | None = None  # the hook function's name
    hook_line: int | None = None  # where the program registered it
    hook_col: int | None = None


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
    root_output: int = 0  # which output of the root's node it is (a piece of unbind, split)


@dataclass
class OptimizerStep:
    """One ``optimizer.step()``: each parameter's value before, its grad and the update."""

    index: int
    optimizer: str  # "SGD" or "Adam"
    rule: str  # the update rule as text, e.g. "p ← p − lr·g"
    params: list[dict[str, Any]]  # {node, name, before, grad, after}
    line: int | None = None
    col: int | None = None


@dataclass
class Update:
    """An in-place change of a recorded tensor that no graph op records (under ``no_grad``, or of a
    tensor nothing needs a gradient of): ``w -= lr * w.grad``, ``w.grad.zero_()``."""

    index: int
    node: int  # the tensor's node until now (it keeps the value the ops before read)
    name: str | None
    op: str  # the op's table key, e.g. "sub"
    before: np.ndarray
    after: np.ndarray
    grad: bool = False  # the tensor changed is the ``.grad`` of ``node``, not its value
    next_node: int | None = None  # the new node of the tensor at its next use, when it gets one
    line: int | None = None
    col: int | None = None


@dataclass
class Cut:
    """A tensor of the graph gave a value that carries no gradient back to it: ``.detach()``,
    ``.data``, ``.item()``, an op under ``no_grad``, an integer or boolean result (a cast,
    ``argmax``, a comparison). ``how`` says which; the value made is the tensor object ``result``
    (``LeafNode.obj`` of its leaf node once an op reads it; None: a Python number)."""

    index: int
    how: str  # "detach" | "data" | "item" | "no_grad" | "integer" | "argmax" | "compare"
    source: int | None  # the node of the tensor cut off (None: a tensor no op had read yet)
    source_name: str | None  # the name the program bound the tensor cut off to, if any
    result: int | None
    op: str | None = None  # the op that ran (its table key or function name), for no_grad / integer
    line: int | None = None
    col: int | None = None


@dataclass
class Scope:
    """A stretch of the program that recorded nodes: an ``nn.Module`` call, a loop, or one
    iteration of a loop. Scopes nest (``parent``); a node names the innermost one it was recorded
    in. Only scopes in which a node was recorded exist (a loop that records nothing leaves none)."""

    id: int
    kind: str  # "module" | "loop" | "iteration"
    label: str  # the module path ("fc1"), the loop's header ("for t in range(250)")
    parent: int | None
    line: int | None = None
    col: int | None = None
    index: int | None = None  # an iteration's number in its loop, from 0
    type_name: str | None = None  # a module call's class, e.g. "Linear"


class ScopeFrame:
    """An open scope (``Recorder.open_scope``): it becomes a ``Scope`` when the first node is
    recorded inside it, and keeps that id if it is opened again (a generator's loop resumes)."""

    __slots__ = ("kind", "label", "line", "col", "index", "type_name", "id")

    def __init__(self, kind: str, label: str, line, col, index, type_name: str | None = None):
        self.kind, self.label, self.line, self.col, self.index = kind, label, line, col, index
        self.type_name = type_name
        self.id: int | None = None


@dataclass
class ForwardStep:
    """One op run in forward mode (a dual level was open): its rules turned the tangents of its
    inputs into its output's tangent."""

    index: int
    op: str  # op table key
    formulas: list[str]  # the forward-mode rule of each input, e.g. "ȧ·b"
    inputs: list[int | None]  # graph node of each input, where the trace has one
    node: int | None  # the op's node, when it also built a grad_fn
    tangents: list[np.ndarray | None]  # each input's tangent (None: it had none)
    shares: list[np.ndarray | None]  # what each input's rule gave (broadcast to the output)
    tangent: np.ndarray  # the output's tangent: the sum of the shares
    line: int | None = None
    col: int | None = None


@dataclass
class Trace:
    """Everything one run recorded, in order."""

    nodes: list[LeafNode | OpNode] = field(default_factory=list)  # a node's id is its position
    edges: list[Edge] = field(default_factory=list)
    passes: list[BackwardPass] = field(default_factory=list)
    optimizer_steps: list[OptimizerStep] = field(default_factory=list)
    forward_steps: list[ForwardStep] = field(default_factory=list)  # forward-mode AD, in order
    updates: list[Update] = field(default_factory=list)  # in-place changes no op records, in order
    # per zero_grad: (node, .grad after it: None, or zeros) of each leaf it reset
    zero_grads: list[list[tuple[int, np.ndarray | None]]] = field(default_factory=list)
    zero_grad_lines: list[int | None] = field(default_factory=list)  # per zero_grad: the line that called it
    # Events in program order: ("op", node_id) | ("backward", pass_index) | ("optim", index)
    # | ("update", index) | ("zero_grad", index into zero_grads)
    events: list[tuple[str, int | None]] = field(default_factory=list)
    # grad_fn objects the program let go of (nothing referred to them any more: their saved
    # tensors were freed), as (number of events recorded by then, node id)
    frees: list[tuple[int, int]] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)  # a scope's id is its position
    cuts: list[Cut] = field(default_factory=list)  # values taken off the graph, in order


def ancestry(trace: Trace, root: int) -> set[int]:
    """The ids of ``root`` and of every node its value was computed from."""
    nodes, edges = trace.nodes, trace.edges
    seen, todo = {root}, [root]
    while todo:
        node = nodes[todo.pop()]
        if node.kind == "op":
            for e in node.inputs:
                source = edges[e].source
                if source not in seen:
                    seen.add(source)
                    todo.append(source)
    return seen


def node_id(trace: Trace, tensor) -> int | None:
    """The node of ``tensor`` in ``trace`` (its grad_fn's node, else its leaf node), if it has one."""
    for obj in (tensor._grad_fn, tensor):
        tag = getattr(obj, "_trace", None) if obj is not None else None
        if tag is not None and tag[0].trace is trace:
            return tag[1]
    return None

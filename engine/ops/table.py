"""The op table: for every primitive, its forward, its vector-Jacobian rules, its PyTorch
grad_fn name and the formulas the UI shows, side by side.

A rule is ``rule(g, s) -> gradient for one input``. ``g`` is the gradient of the op's output.
``s`` is a ``Saved`` view with the op's inputs ``s.a, s.b, s.c`` (only those the entry lists in
``saves``), its output ``s.out`` (if saved), the extra arrays its forward returned (``s.x``), its
non-tensor arguments ``s.p`` and a namespace ``s.xp`` of functions.

The same rule runs in two worlds:
- first-order backward: ``g`` and the saved values are NumPy arrays and ``s.xp`` is ``NP``;
- ``create_graph=True``: they are engine Tensors and ``s.xp`` is the differentiable twin,
  so gradients of gradients come from the same table.
A rule may return a gradient shaped like the broadcast output: the walk undoes broadcasting
in one place (``sum_to``), and casts to the input's dtype.

Forward mode has its rules beside them: ``jvp(t, s) -> share of the output's tangent`` for the
tangent ``t`` of one input, with ``s`` as above plus every tensor input (forward mode runs while
the op runs, so nothing needs saving). The shares are broadcast to the output and added up in one
place (``engine.tangents``).

Each op module (``arithmetic``, ``elementwise``, ``reduce``, ``scans``, ``linalg``, ``shape``,
``pieces``, ``indexing``, ``gathering``, ``masked``, ``combine``, ``fill``, ``convert``, ``activations``,
``losses``, ``losses_binary``) holds its entries and, beside each, its public function: derived from the entry
(``atan = math_function(register(...))``), or written out with its argument checks and published
with ``@public(...)``. ``engine.ops.api`` builds ``torch``'s functions, the Tensor's methods and
``torch.nn.functional`` from those registrations, so a new op is its entry (with its explanation
for the page, ``explain=``, see ``engine.ops.explain``) and its oracle case
(tests/engine/oracle_cases*.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import FunctionType
from typing import Any

import numpy as np

from .cascade import torch_sum


@dataclass(frozen=True, slots=True)
class OpDef:
    """One primitive of the engine."""

    name: str  # table key, e.g. "mul"
    grad_fn: str  # PyTorch's grad_fn name, e.g. "MulBackward0"
    forward: Callable[..., Any]  # (*arrays, **params) -> array | (array, extras dict)
    vjps: tuple[Callable | None, ...]  # one per tensor input (None: not differentiable there)
    formulas: tuple[str, ...]  # one per tensor input, e.g. "∂(a·b)/∂a = b"
    # which of "a", "b", "c", "out" backward reads; "indices": index data that backward reads (kept in
    # params or extras, not a tensor) - it is freed with the graph all the same, as in PyTorch
    saves: tuple[str, ...] = ()
    promote: bool = False  # cast the tensor inputs to torch's promoted dtype first
    description: str = ""  # what the op computes, in words, for the UI
    view: bool = False  # the output shares the first input's storage and version counter
    variadic: bool = False  # any number of tensor inputs, all served by vjps[0] (it reads ``s.i``)
    aux: int = 0  # trailing tensor arguments that are data, not graph inputs (where's condition)
    save_keys: tuple[str, ...] = ()  # ``saves`` without "indices": the tensors a Node keeps
    # Which saved keys each input's rule reads (None: all of them). A Node keeps only what the
    # rules of its inputs that require grad read, as PyTorch does, so an in-place change to a
    # tensor nobody will read is not an error. Derived: bitmask of grad inputs -> keys to keep.
    needs: tuple | None = None
    keep_by_mask: dict | None = None
    explain: Any = None  # how the page explains it (``engine.ops.explain.Explain``): data, never a closure
    node_class: type | None = None  # the grad_fn class programs see (``function.node_class``), made once
    # Forward mode: one rule per tensor input, ``jvp(t, s) -> that input's share of the output's
    # tangent`` (``t`` the input's tangent; the shares add up, broadcast to the output), and its formula.
    jvps: tuple[Callable, ...] = ()
    jvp_formulas: tuple[str, ...] = ()
    # Several outputs (unbind, split): the forward gives the whole, read as pieces; one MultiNode
    # (engine/function.py) is the grad_fn of every piece, and its rule gets the pieces' gradients joined
    multi: bool = False


OPS: dict[str, OpDef] = {}

# The tensor input a saved key names ("a" is the first tensor argument, ...; "out" is the output).
SAVED_INPUT = {"a": 0, "b": 1, "c": 2}

# What the op modules publish, by namespace: "torch" (the functions of ``import engine as torch``),
# "Tensor" (methods, properties and operators) and "F" (``torch.nn.functional``).
PUBLIC: dict[str, dict[str, Any]] = {"torch": {}, "Tensor": {}, "F": {}}


def public(*spaces: str, name: str | None = None):
    """Decorator: publish a function (or, with ``name``, any object such as a property) in each
    namespace of ``spaces`` under ``name`` (default: the function's own), once per namespace.

    A function published first under ``name`` takes it as its own ``__name__`` (``torch.max``
    is defined as ``_max`` beside the builtin it would shadow). A function only
    ``torch.nn.functional`` has reports that module as its own (as NumPy's ``set_module`` does),
    which is where users and the program runner find it."""

    def publish(obj):
        key = name or obj.__name__
        for space in spaces:
            if key in PUBLIC[space]:
                raise ValueError(f"{space}.{key} is published twice")
            PUBLIC[space][key] = obj
        if isinstance(obj, FunctionType) and id(obj) not in _PUBLISHED:
            obj.__name__ = obj.__qualname__ = key
            if spaces == ("F",):
                obj.__module__ = f"{_ENGINE}.nn.functional"
        _PUBLISHED.add(id(obj))
        return obj

    return publish


_ENGINE = __package__.rpartition(".")[0]  # "engine", or "gradviz.engine" when installed
_PUBLISHED: set[int] = set()  # ids of the objects published so far (they stay alive in PUBLIC)


def register(name: str, grad_fn: str, forward, vjps, formulas, saves=(), promote=False,
             description: str = "", view: bool = False, variadic: bool = False, aux: int = 0,
             needs=None, jvps=(), jvp_formulas=(), explain=None, multi: bool = False) -> OpDef:
    """Add one entry to the table (each name once)."""
    if name in OPS:
        raise ValueError(f"op {name!r} is registered twice")
    if len(vjps) != len(formulas):
        raise ValueError(f"op {name!r}: one formula per rule")
    if len(jvps) != len(jvp_formulas) or (jvps and len(jvps) != len(vjps)):
        raise ValueError(f"op {name!r}: one forward-mode rule and formula per input")
    save_keys = tuple(k for k in saves if k != "indices")
    keep = None
    if needs is not None:
        if len(needs) != len(vjps) or variadic:
            raise ValueError(f"op {name!r}: needs lists the saved keys of each input")
        keep = {}
        for mask in range(1 << len(needs)):
            used = {k for i, ks in enumerate(needs) if mask >> i & 1 for k in ks}
            keep[mask] = tuple(k for k in save_keys if k in used)
    if explain is not None and len(explain.rules()) != (1 if variadic else len(vjps)):
        raise ValueError(f"op {name!r}: its explanation needs one rule per input")
    entry = OpDef(name, grad_fn, forward, tuple(vjps), tuple(formulas), tuple(saves), promote, description,
                  view, variadic, aux, save_keys, needs, keep, explain=explain, jvps=tuple(jvps),
                  jvp_formulas=tuple(jvp_formulas), multi=multi)
    OPS[name] = entry
    return entry


class Saved:
    """What a rule sees of its op: saved inputs/output, extras, params and the xp namespace.
    Only the keys the node kept are set (a rule reads only those its entry's ``needs`` name)."""

    __slots__ = ("a", "b", "c", "out", "x", "p", "xp", "i")

    def __init__(self, xp, p, x):
        self.xp = xp
        self.p = p
        self.x = x


def sum_to_shape(g: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Undo broadcasting: sum ``g`` down to ``shape`` (the one place this happens), in PyTorch's
    order (its ``sum_to`` is one ``sum`` over those dims)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead > 0 and shape and g.shape[lead:] == shape:  # only leading dims added (a bias): one reduction
        return torch_sum(g, tuple(range(lead)))
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
    if axes:
        g = torch_sum(g, axes, keepdims=True)
    if lead:
        g = g.reshape(g.shape[lead:])
    return g.reshape(shape)


class NP:
    """The array world of the rules (first-order backward)."""

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sqrt = staticmethod(np.sqrt)
    sign = staticmethod(np.sign)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    where = staticmethod(np.where)
    matmul = staticmethod(np.matmul)
    sum_to = staticmethod(sum_to_shape)

    # Array methods where the value is an ndarray: NumPy's module functions add a Python wrapper.
    @staticmethod
    def sum(x, axis=None, keepdims=False):
        if type(x) is np.ndarray:  # ndarray.sum's own wrapper skipped: the same reduction
            return np.add.reduce(x, axis=axis, keepdims=keepdims)
        return np.sum(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def broadcast_to(x, shape):
        return np.broadcast_to(x, shape)

    # PyTorch's fused backward formulas (engine.ops.fused_backward records them in the Tensor world).
    @staticmethod
    def tanh_backward(g, y):
        return g * (1 - y * y)

    @staticmethod
    def sigmoid_backward(g, y):
        return g * y * (1 - y)

    @staticmethod
    def threshold_backward(g, y, threshold=0.0):
        return g * (y > threshold)

    @staticmethod
    def mul_scalar(x, other):
        return x * other

    @staticmethod
    def mse_loss_backward(g, x, y, reduction):
        if reduction == "mean":
            g = g / x.size
        return 2 * (x - y) * g

    @staticmethod
    def softmax_backward_data(g, y, dim):
        return y * (g - NP.sum(g * y, axis=dim if y.ndim else None, keepdims=True))

    @staticmethod
    def log_softmax_backward_data(g, y, dim):
        e = np.exp(y)
        if type(e) is not np.ndarray or type(g) is not np.ndarray or g.shape != e.shape or g.dtype != e.dtype:
            return g - e * NP.sum(g, axis=dim if y.ndim else None, keepdims=True)
        # g − exp(y)·Σg, the same operations in one buffer (cross_entropy's every backward)
        np.multiply(e, np.add.reduce(g, axis=dim, keepdims=True), out=e)
        return np.subtract(g, e, out=e)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape) if type(x) is np.ndarray else np.reshape(x, shape)

    @staticmethod
    def squeeze_to(x, shape):
        return NP.reshape(x, shape)

    @staticmethod
    def unsqueeze_to(x, shape):
        return NP.reshape(x, shape)

    @staticmethod
    def transpose(x, axes):
        return x.transpose(axes) if type(x) is np.ndarray else np.transpose(x, axes)

    @staticmethod
    def mT(x):
        """Swap the last two dims (a matrix transpose, batched)."""
        return x.swapaxes(-1, -2)

    @staticmethod
    def const(x, like):
        """A constant (not differentiated) array in the rule's world, with ``like``'s dtype."""
        return np.asarray(x, dtype=like.dtype)

    @staticmethod
    def data(x):
        """The raw array behind a value of this world."""
        return x

    @staticmethod
    def getitem(x, key):
        """``x[key]`` (key: a NumPy index tuple)."""
        return x[key]

    @staticmethod
    def scatter_add(g, shape, key):
        """Zeros of ``shape`` with ``g`` added at ``key`` (repeated indices add up)."""
        z = np.zeros(shape, dtype=g.dtype)
        if is_basic(key):
            z[key] = g
        else:
            np.add.at(z, key, g)
        return z


def is_basic(key) -> bool:
    """True when an index tuple holds only ints and slices (no repeated positions possible)."""
    return all(type(k) is int or type(k) is slice or k is Ellipsis or k is None for k in key)

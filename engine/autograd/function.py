"""``torch.autograd.Function``: an op whose forward and backward the program writes itself.

``MyFn.apply(*args)`` runs the program's ``forward(ctx, *args)`` with grad mode off, then (where
an input requires grad) gives the result a grad_fn named ``MyFnBackward`` whose inputs are the
tensor arguments. That node is a node of the ordinary backward walk: its one rule
(``_function_vjp``) calls the program's ``backward(ctx, *grads)`` once per visit and hands each
input its gradient, so the walk, the trace and the page treat it like any built-in node. The
tensors given to ``ctx.save_for_backward`` are the node's saved tensors (version-checked, and
freed after a backward without ``retain_graph``, as PyTorch frees them).

The program's functions are called directly: the program runner hands engine code only callables
that come back through its call policy (its own functions are interpreted).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import arguments as A
from .. import grad_mode
from .. import tangents as _tangents
from .. import trace as _trace
from ..addresses import alias
from ..errors import not_supported
from ..function import Node, node_class
from ..naming import torch_path
from ..ops.table import OpDef, sum_to_shape
from ..tensor import Tensor

__all__ = ["Function", "FunctionCtx"]

OP_NAME = "autograd_function"  # the trace's op name of every node a Function makes
NO_JVP = ("You must implement the jvp function for custom autograd.Function to use it with forward mode "
          "AD.")


@torch_path("torch.autograd.function")
class FunctionCtx:
    """``ctx``: what ``forward`` leaves for ``backward`` (saved tensors, and any attribute the
    program sets on it)."""

    def __init__(self):
        self._to_save: tuple = ()
        self._node = None
        self._pending = None
        self._non_differentiable: tuple = ()
        self._backward = None
        self._arg_is_tensor: tuple = ()
        self.needs_input_grad: tuple = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        """Keep these tensors (or None) for ``backward`` (``ctx.saved_tensors``)."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{A.type_name(t)}")
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        raise not_supported("ctx.save_for_forward (forward-mode rules of an autograd.Function)")

    @property
    def saved_tensors(self) -> tuple:
        """The saved tensors, checked: not freed by an earlier backward, not changed in place."""
        node = self._node
        if node is None:
            return tuple(self._to_save)
        saved = node.checked_saves()
        by_index = {key: t for key, t, _ in saved}
        out = []
        for i in range(len(self._to_save)):
            t = by_index.get(f"saved{i}")
            if t is not None and grad_mode._enabled and t is not self._to_save[i]:
                t = _reattached(t, node)  # a saved output, for create_graph: with its grad_fn again
            out.append(t)
        return tuple(out)

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def mark_dirty(self, *tensors) -> None:
        raise not_supported("ctx.mark_dirty (in-place autograd.Function)")

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = A.flag(value, "set_materialize_grads", "value", strict=False)


def _reattached(alias: Tensor, node) -> Tensor:
    t = Tensor._make(alias._data, True, alias._vc)
    t._grad_fn = node
    return t


@torch_path("torch.autograd.function")
class BackwardCFunction(Node):
    """The grad_fn of a Function's output (``MyFnBackward``, a class made per Function)."""

    __slots__ = ()

    def __repr__(self) -> str:

        return f"<torch.autograd.function.{type(self).__name__} object at {alias(self)}>"

    def _modified(self, key: str, t, version: int) -> RuntimeError:
        """A saved tensor changed in place: PyTorch names this Function when it saved its own output."""
        if key in self.extras.get("saved_outputs", ()):
            return super()._modified("out", t, version)
        return super()._modified(key, t, version)


@torch_path("torch.autograd.function")
class Function:
    """Subclass it with ``@staticmethod forward(ctx, ...)`` and ``backward(ctx, *grads)``, then
    call ``MyFn.apply(...)``."""

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all "
                      "static, so you should invoke them on the class itself. Instantiating an autograd "
                      "function will raise an error in a future version of PyTorch.", DeprecationWarning,
                      stacklevel=2)

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(NO_JVP)

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and, where an input requires grad, attach a ``<Name>Backward`` node."""
        if kwargs:
            raise not_supported("keyword arguments to autograd.Function.apply")
        if cls is Function:
            raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                               "Please use new-style autograd function with static forward method.")
        ctx = FunctionCtx()
        tensors = tuple(a for a in args if isinstance(a, Tensor))
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)

        if _tangents.ACTIVE is not None and any(_tangents.tangent_of(t) is not None for t in tensors):
            raise NotImplementedError(NO_JVP)
        rec = _trace.ACTIVE
        where = rec.location if rec is not None else None  # the node belongs to the apply call's line
        with grad_mode.no_grad():
            out = cls.forward(ctx, *args)
        if rec is not None:
            rec.location = where
        if type(out) in (tuple, list):
            raise not_supported("an autograd.Function whose forward returns several outputs")
        if not isinstance(out, Tensor):
            return out
        needs = grad_mode._enabled and out._data.dtype.kind == "f" and any(t._requires_grad for t in tensors)
        needs = needs and not any(out is t for t in ctx._non_differentiable)
        if not needs:
            return out
        if any(out is t for t in tensors) or out._grad_fn is not None:
            out = Tensor._make(out._data, False, out._vc)  # the output is a new tensor (a view of an input)
        return _attach(cls, ctx, args, tensors, out)


def _attach(cls, ctx: FunctionCtx, args: tuple, tensors: tuple, out: Tensor) -> Tensor:
    """Make ``out`` the output of a ``<Name>Backward`` node over the tensor arguments."""
    op = _op_for(cls, len(tensors))
    extras = {"ctx": ctx}
    for i, t in enumerate(ctx._to_save):
        if isinstance(t, Tensor):
            extras[f"saved{i}"] = t._data  # shown as the node's saved tensors
    out._requires_grad = True
    node = node_class(op)(op, tensors, out, None, extras)
    saved = []
    for i, t in enumerate(ctx._to_save):
        if isinstance(t, Tensor):
            kept = Tensor._make(t._data, False, t._vc) if t is out else t  # no cycle through the output
            saved.append((f"saved{i}", kept, t._vc[0]))
            if t is out:
                extras.setdefault("saved_outputs", set()).add(f"saved{i}")
    node._saved = tuple(saved)
    ctx._node = node
    ctx._backward = cls.backward
    ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
    out._grad_fn = node
    rec = _trace.ACTIVE
    if rec is not None:
        rec.op_node(node, op, tensors, out, {"function": cls.__name__}, extras)
    return out


_OPS: dict = {}  # (Function class, number of tensor inputs) -> its OpDef


def _op_for(cls, n: int) -> OpDef:
    key = (cls, n)
    op = _OPS.get(key)
    if op is None:
        name = cls.__name__
        grad_fn, description, formula = node_texts(name)
        op = OpDef(OP_NAME, grad_fn, None, (_function_vjp,), (formula,), saves=(), description=description,
                   variadic=True, jvps=(_function_jvp,), jvp_formulas=(f"ẏ = {name}.jvp(ctx, ẋ)",))
        object.__setattr__(op, "node_class", _backward_class(name))
        _OPS[key] = op
    return op


def node_texts(name: str) -> tuple[str, str, str]:
    """The node of Function ``name`` as the trace shows it: its grad_fn's name, what its forward
    computes and its backward rule (texts in code only: they read the same in every language)."""
    description = f"{name}.forward(ctx, …) (torch.autograd.Function)"
    return f"{name}Backward", description, f"gₓ = {name}.backward(ctx, g)"


def _backward_class(name: str) -> type:
    attrs = {"__slots__": (), "__module__": "torch.autograd.function", "__qualname__": f"{name}Backward"}
    return type(f"{name}Backward", (BackwardCFunction,), attrs)


# ---- the node's rules -------------------------------------------------------------------------------------
def _function_vjp(g, s):
    """The gradient for tensor input ``s.i``: from one call of the program's ``backward`` per visit
    (the walk asks once per input with the same ``g``)."""
    ctx = s.x["ctx"]
    pending = ctx._pending
    if pending is None or pending[0] is not g:
        pending = ctx._pending = (g, _run_backward(ctx, g, s.xp))
    grads = pending[1]
    return grads[s.i]


def _function_jvp(t, s):
    raise NotImplementedError(NO_JVP)


def _run_backward(ctx: FunctionCtx, g, xp) -> list:
    """Call the program's ``backward(ctx, grad)``; the gradients of the tensor arguments, each an
    array (a first-order pass) or a tensor (create_graph), zeros where it gave None."""
    node = ctx._node
    cls_name = type(node).__name__
    arrays = xp.data(g) is g
    grad_out = Tensor._make(np.array(g, copy=True)) if arrays else g
    result = ctx._backward(ctx, grad_out)
    results = tuple(result) if type(result) in (tuple, list) else (result,)
    flags = ctx._arg_is_tensor
    if len(results) != len(flags):
        raise RuntimeError(f"function {cls_name} returned an incorrect number of gradients (expected "
                           f"{len(flags)}, got {len(results)})")
    grads = []
    meta = node._meta
    for index, (r, is_tensor) in enumerate(zip(results, flags)):
        if not is_tensor:
            continue
        k = len(grads)
        shape, dtype = meta[2 * k], meta[2 * k + 1]
        if r is None:
            grads.append(np.zeros(shape, dtype) if arrays else Tensor._make(np.zeros(shape, dtype)))
            continue
        if not isinstance(r, Tensor):
            raise TypeError(f"{cls_name}.backward returned {A.type_name(r)} for input {index}: expected a "
                            "Tensor or None")
        if r._data.shape != shape and not _sums_to(r._data.shape, shape):
            raise RuntimeError(f"Function {cls_name} returned an invalid gradient at index {index} - got "
                               f"{list(r._data.shape)} but expected shape compatible with {list(shape)}")
        grads.append(r._data if arrays else r)
    return grads


def _sums_to(shape: tuple, target: tuple) -> bool:
    """Whether a gradient of ``shape`` can be summed down to ``target`` (broadcasting undone)."""
    try:
        return sum_to_shape(np.zeros(shape), target).shape == target
    except ValueError:
        return False

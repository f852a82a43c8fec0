"""Module hooks: functions a program registers on an ``nn.Module`` to see (and change) its inputs and
output on every call (forward pre-hooks, forward hooks) and the gradients through it (full backward
hooks and backward pre-hooks), called in PyTorch's order with PyTorch's checks.

Full backward hooks work as PyTorch's ``BackwardHook`` does: the module's tensor input and its output
pass through an identity node, ``BackwardHookFunctionBackward``, which the graph shows. When the
walk reaches the output's node it keeps the gradients of the outputs (backward pre-hooks may replace
them); when it reaches the input's node it calls each hook with ``(module, grad_input, grad_output)``,
and a tuple the hook returns replaces the gradients of the inputs. Without an input that requires
grad, the hooks are called at the output's node with ``grad_input`` all None, and warned about.
gradviz wraps one tensor input and one tensor output (what course modules take and give).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from .. import arguments as A
from .. import grad_mode
from ..autograd.function import Function
from ..errors import not_supported
from ..tensor import Tensor
from ..utils.hooks import RemovableHandle

KINDS = ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_backward_pre_hooks")
NO_INPUT_GRAD = ("Full backward hook is firing when gradients are computed with respect to module outputs "
                 "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                 "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


class ModuleHooks:
    """The ``register_*_hook`` methods of ``nn.Module``."""

    def _hook_table(self, kind: str) -> OrderedDict:
        table = self.__dict__.get(kind)
        if table is None:
            table = self.__dict__[kind] = OrderedDict()
        return table

    def _add_hook(self, kind: str, hook, prepend, with_kwargs=False) -> RemovableHandle:
        if not callable(hook):
            raise TypeError(f"'{type(hook).__name__}' object is not callable")
        name = "register" + kind.rstrip("s")
        prepend = A.flag(prepend, name, "prepend", strict=False)
        with_kwargs = A.flag(with_kwargs, name, "with_kwargs", strict=False)
        table = self._hook_table(kind)
        handle = RemovableHandle(table)
        table[handle.id] = (hook, with_kwargs)
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)`` before every forward; a value it returns replaces the arguments."""
        return self._add_hook("_forward_pre_hooks", hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output)`` after every forward; a value it returns replaces the output."""
        A.flag(always_call, "register_forward_hook", "always_call", strict=False)
        return self._add_hook("_forward_hooks", hook, prepend, with_kwargs)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output)`` when the gradients of the inputs are computed."""
        return self._add_hook("_backward_hooks", hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output)`` when the gradients of the outputs arrive; may replace them."""
        return self._add_hook("_backward_pre_hooks", hook, prepend)


def has_hooks(module) -> bool:
    d = module.__dict__
    return any(d.get(kind) for kind in KINDS)


def call_with_hooks(module, run, args: tuple, kwargs: dict):
    """``module(*args, **kwargs)`` with its hooks: pre-hooks, the input's backward node, ``run``
    (the forward, traced or not), forward hooks, the output's backward node."""
    d = module.__dict__
    for hook, with_kwargs in list(d.get("_forward_pre_hooks", {}).values()):
        if with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if type(result) is not tuple or len(result) != 2:
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if type(result) is tuple else (result,)
    watch = None
    if d.get("_backward_hooks") or d.get("_backward_pre_hooks"):
        watch = _BackwardWatch(module)
        args = watch.wrap_inputs(args)
    out = run(args, kwargs)
    for hook, with_kwargs in list(d.get("_forward_hooks", {}).values()):
        result = hook(module, args, kwargs, out) if with_kwargs else hook(module, args, out)
        if result is not None:
            out = result
    if watch is not None:
        if not isinstance(out, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                          f"Tensors but received {type(out)}", UserWarning, stacklevel=3)
        out = watch.wrap_output(out)
    return out


class _BackwardWatch:
    """One call's ``BackwardHook``: where the module's tensors sit among its arguments, and the
    gradients of its outputs until the inputs' node hands them to the hooks."""

    def __init__(self, module):
        self.module = module
        self.input_index: list | None = None
        self.n_inputs = 0
        self.grad_outputs: tuple | None = None

    def wrap_inputs(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if not (grad_mode._enabled and any(args[i]._requires_grad for i in index)):
            return args
        if len(index) != 1:
            raise not_supported("full backward hooks on a module called with several tensors")
        self.input_index = index
        args = list(args)
        args[index[0]] = BackwardHookFunction.apply(args[index[0]], (self, "input"))
        return tuple(args)

    def wrap_output(self, out):
        single = isinstance(out, Tensor)
        if not single:
            if type(out) is tuple and any(isinstance(t, Tensor) for t in out):
                raise not_supported("full backward hooks on a module that returns several tensors")
            return out
        if not (grad_mode._enabled and out._requires_grad):
            return out
        return BackwardHookFunction.apply(out, (self, "output"))

    def outputs_arrived(self, g: Tensor) -> Tensor:
        self.grad_outputs = (g,)
        for hook, _ in list(self.module.__dict__.get("_backward_pre_hooks", {}).values()):
            result = hook(self.module, self.grad_outputs)
            if result is None:
                continue
            result = tuple(result) if type(result) in (tuple, list) else (result,)
            if len(result) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                   f"{len(result)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = result
        given = self.grad_outputs
        if self.input_index is None:
            warnings.warn(NO_INPUT_GRAD, UserWarning, stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook, _ in list(self.module.__dict__.get("_backward_hooks", {}).values()):
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (type(res) is tuple and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
            self.grad_outputs = None
        return given[0]

    def inputs_arrived(self, g: Tensor) -> Tensor:
        if self.grad_outputs is None:
            return g
        res = [None] * self.n_inputs
        res[self.input_index[0]] = g
        res = tuple(res)
        for hook, _ in list(self.module.__dict__.get("_backward_hooks", {}).values()):
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            out = tuple(out) if type(out) in (tuple, list) else (out,)
            if len(out) != len(res):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, "
                                   f"but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return res[self.input_index[0]]


class BackwardHookFunction(Function):
    """The identity node a full backward hook puts on a module's input and output."""

    @staticmethod
    def forward(ctx, x, side):
        ctx.side = side
        return x

    @staticmethod
    def backward(ctx, g):
        watch, which = ctx.side
        got = watch.outputs_arrived(g) if which == "output" else watch.inputs_arrived(g)
        return got, None

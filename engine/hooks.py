"""Tensor hooks (``tensor.register_hook(fn)``): functions the backward walk calls with the gradient
that reached a tensor, before it is used (and which may return a replacement).

A non-leaf tensor's hooks live on its grad_fn (they run when the walk reaches that node, before
its rules and before ``retain_grad`` keeps the gradient, as in PyTorch); a leaf's hooks live here,
by tensor, and run before AccumulateGrad writes ``.grad``. Each is kept with where the program
registered it, for the trace.
"""

from __future__ import annotations

import weakref

from . import trace as _trace
from .utils.hooks import RemovableHandle

_LEAF: dict[int, tuple] = {}  # id(leaf) -> (weak reference to it, {handle id: (hook, location)})
# Hooks that run after AccumulateGrad wrote a leaf's .grad (register_post_accumulate_grad_hook),
# the same way by leaf.
_POST: dict[int, tuple] = {}


def register(tensor, hook, table: dict | None = None) -> RemovableHandle:
    """Add ``hook`` to ``tensor`` (which requires grad); the handle removes it again. ``table``:
    the leaves' table to add it to (default: hooks on the gradient before it is accumulated)."""
    fn = tensor._grad_fn
    if fn is not None and table is None:
        if fn.multi:  # an output of a multi-output node: its hooks are that output's
            hooks = fn.hooks.setdefault(tensor._nr, {})
        else:
            if fn.hooks is None:
                fn.hooks = {}
            hooks = fn.hooks
    else:
        table = _LEAF if table is None else table
        entry = table.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            entry = (weakref.ref(tensor, _forget), {})
            table[id(tensor)] = entry
        hooks = entry[1]
    handle = RemovableHandle(hooks)
    rec = _trace.ACTIVE
    hooks[handle.id] = (hook, rec.location if rec is not None else None)
    return handle


def _forget(ref) -> None:
    """A hooked leaf was freed: drop its hooks (few leaves have hooks, so a scan is fine)."""
    for table in (_LEAF, _POST):
        for key, entry in list(table.items()):
            if entry[0] is ref:
                del table[key]


def of_leaf(tensor, table: dict | None = None) -> dict | None:
    """The hooks of a leaf tensor (in ``table``, default the gradient hooks), if it has any."""
    entry = (_LEAF if table is None else table).get(id(tensor))
    if entry is None or entry[0]() is not tensor or not entry[1]:
        return None
    return entry[1]


def register_post_accumulate(tensor, hook) -> RemovableHandle:
    """``tensor.register_post_accumulate_grad_hook(hook)``: ``hook(tensor)`` after each write of
    ``.grad`` by the backward walk (a leaf only, as in PyTorch)."""
    if tensor._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return register(tensor, hook, _POST)


def run_post_accumulate(tensor) -> None:
    """Call the post-accumulate hooks of ``tensor`` (after AccumulateGrad wrote its ``.grad``)."""
    hooks = of_leaf(tensor, _POST)
    if hooks:
        for hook, _ in list(hooks.values()):
            if hook(tensor) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def name_of(hook) -> str:
    """How PyTorch names a hook in its errors: the function's name."""
    for attr in ("__name__", "name"):
        value = getattr(hook, attr, None)
        if type(value) is str:
            return value
    return type(hook).__name__

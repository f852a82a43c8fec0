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


def register(tensor, hook) -> RemovableHandle:
    """Add ``hook`` to ``tensor`` (which requires grad); the handle removes it again."""
    fn = tensor._grad_fn
    if fn is not None:
        if fn.hooks is None:
            fn.hooks = {}
        hooks = fn.hooks
    else:
        entry = _LEAF.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            entry = (weakref.ref(tensor, _forget), {})
            _LEAF[id(tensor)] = entry
        hooks = entry[1]
    handle = RemovableHandle(hooks)
    rec = _trace.ACTIVE
    hooks[handle.id] = (hook, rec.location if rec is not None else None)
    return handle


def _forget(ref) -> None:
    """A hooked leaf was freed: drop its hooks (few leaves have hooks, so a scan is fine)."""
    for key, entry in list(_LEAF.items()):
        if entry[0] is ref:
            del _LEAF[key]


def of_leaf(tensor) -> dict | None:
    """The hooks of a leaf tensor, if it has any."""
    entry = _LEAF.get(id(tensor))
    if entry is None or entry[0]() is not tensor or not entry[1]:
        return None
    return entry[1]


def name_of(hook) -> str:
    """How PyTorch names a hook in its errors: the function's name."""
    for attr in ("__name__", "name"):
        value = getattr(hook, attr, None)
        if type(value) is str:
            return value
    return type(hook).__name__

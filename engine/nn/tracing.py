"""The trace hooks of ``nn.Module.__call__`` (used only while a recorder is active).

A call pushes the module's path ("fc1", "net.0") onto the recorder's module stack while its forward
runs, so every op recorded inside carries it. The outermost call (the root) is traced under its
label (the name the user bound it to, via ``name_module``, else its class name) and names the
parameters it owns in the trace ("fc1.weight"; "layer.weight" for a bare root layer) unless the
user named them first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .module import Module

# One entry per active outermost module call: {module: path} for that module's whole tree.
_ROOT_PATHS: list[dict] = []


def name_module(module: Module, name: str) -> None:
    """Runner hook: the user bound ``module`` to ``name``; an outermost call of it is traced under
    that name (otherwise under its class name, e.g. "MSELoss")."""
    if module.__dict__.get("_gv_label") is None:
        object.__setattr__(module, "_gv_label", name)


def traced_call(module: Module, rec, args, kwargs):
    """``module(*args)`` with a recorder active: push the module path while forward runs."""
    paths = _ROOT_PATHS[-1] if _ROOT_PATHS else None
    path = paths.get(module) if paths is not None else None
    root = path is None
    if root:
        label = module._gv_label or type(module).__name__
        paths = {m: p for p, m in module.named_modules()}
        paths[module] = label
        path = label
        for name, p in module.named_parameters():
            rec.name_tensor(p, name if "." in name else f"{label}.{name}", bound=False)
        _ROOT_PATHS.append(paths)
    rec.push_module(path, type(module).__name__)
    try:
        return module.forward(*args, **kwargs)
    finally:
        rec.pop_module()
        if root:
            _ROOT_PATHS.pop()

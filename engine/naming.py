"""The module path a program sees for an engine class: PyTorch's (``<class 'torch.Tensor'>``,
``torch.nn.modules.linear.Linear``), so ``print(type(x))`` and ``torch.typename`` read as in PyTorch.

The class keeps where it is really defined in ``__engine_module__``, which the program runner's
allow-list reads (``engine.runner.policy``) to tell the engine's own API from what it imports.
"""

from __future__ import annotations


def torch_path(path: str):
    """Class decorator: show the class under PyTorch's module ``path``."""

    def rename(cls: type) -> type:
        cls.__engine_module__ = cls.__module__
        cls.__module__ = path
        return cls

    return rename


def home(value) -> str:
    """The engine module a function or class is defined in (for a renamed class, its own)."""
    if isinstance(value, type):
        own = vars(value).get("__engine_module__")
        if isinstance(own, str):
            return own
    mod = getattr(value, "__module__", None)
    return mod if isinstance(mod, str) else ""

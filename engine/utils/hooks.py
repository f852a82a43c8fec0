"""``torch.utils.hooks``: the handle a hook registration returns."""

from __future__ import annotations

import itertools

from ..naming import torch_path

__all__ = ["RemovableHandle"]

_ids = itertools.count()


@torch_path("torch.utils.hooks")
class RemovableHandle:
    """``handle.remove()`` takes the hook away again."""

    def __init__(self, hooks: dict):
        self.id = next(_ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

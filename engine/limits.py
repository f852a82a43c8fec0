"""Resource limits the program runner turns on (off by default: the engine as a library is unlimited).

``ACTIVE`` is None, or a ``Budget``; factories and ops call ``check_alloc`` before they allocate.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import LimitError


@dataclass
class Budget:
    """What one run may allocate."""

    max_elements: int = 1_000_000
    max_bytes: int = 64 * 1024 * 1024
    used_bytes: int = 0


ACTIVE: Budget | None = None


def check_alloc(numel: int, itemsize: int) -> None:
    """Refuse a tensor over the element limit, or one that would bring the run over its byte budget."""
    b = ACTIVE
    if b is None:
        return
    if numel > b.max_elements:
        raise LimitError(
            f"a tensor of {numel:,} elements is over the limit of {b.max_elements:,} elements per tensor "
            "(limit: max_tensor_elements)")
    b.used_bytes += numel * itemsize
    if b.used_bytes > b.max_bytes:
        raise LimitError(
            f"the program allocated more than {b.max_bytes // (1024 * 1024)} MB of tensors "
            "(limit: max_tensor_bytes)")

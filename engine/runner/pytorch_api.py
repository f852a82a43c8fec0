"""PyTorch's public names (torch 2.13, listed in ``pytorch_names.txt``), so that a name gradviz lacks
but PyTorch has (``torch.linalg.inv``, ``nn.Conv2d``, ``x.cholesky()``) is reported as not supported
yet, with where the supported operations are listed, instead of looking like a typo."""

from __future__ import annotations

from pathlib import Path

OPS_PAGE = "/ops"  # the page listing what gradviz supports (app/routes/ops.py)

# Read once when the runner is imported (before any worker is forked from the template).
_LINES = Path(__file__).with_name("pytorch_names.txt").read_text().splitlines()
_NAMES = frozenset(line.strip() for line in _LINES if line.strip() and not line.startswith("#"))


def is_pytorch(path: str) -> bool:
    """Whether ``path`` (``torch.linalg``, ``torch.nn.Conv2d``, ``Tensor.cholesky``) is PyTorch's."""
    return path in _NAMES


def not_supported(path: str) -> str:
    """What to say about a PyTorch name gradviz does not have."""
    return f"{path} is part of PyTorch, but gradviz does not support it yet (the supported operations are " \
           f"listed at {OPS_PAGE})"

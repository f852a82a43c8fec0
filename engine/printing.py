"""Tensors printed as PyTorch prints them (placeholder: replaced by the full formatter)."""

from __future__ import annotations

import numpy as np


def tensor_repr(t) -> str:
    body = np.array2string(t._data, precision=4, separator=", ")
    extra = ""
    if t._grad_fn is not None:
        extra = f", grad_fn=<{t._grad_fn.name()}>"
    elif t._requires_grad:
        extra = ", requires_grad=True"
    return f"tensor({body}{extra})"

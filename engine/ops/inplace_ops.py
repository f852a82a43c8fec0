"""Ops of the table that only exist in place: zero_, fill_, copy_ (they overwrite their target).

They run through ``dispatch.apply_inplace``, so the target's old history is their first input,
as in PyTorch; the old values get no gradient (they were overwritten).
"""

from __future__ import annotations

import numpy as np

from .table import register


def _nothing(g, s):
    return g * 0.0


def _copy(a, b):
    return np.broadcast_to(b, a.shape).astype(a.dtype)


register("zero", "ZeroBackward0", np.zeros_like,
         [_nothing], ["∂(x.zero_())/∂x = 0"], description="fill with zeros in place")
register("fill", "FillBackward2", lambda a, value: np.full_like(a, value),
         [_nothing], ["∂(x.fill_(v))/∂x = 0"], description="fill with a number in place")
register("fill_tensor", "FillBackward3", lambda a, b: np.full_like(a, b),
         [_nothing, lambda g, s: g],
         ["∂(x.fill_(v))/∂x = 0", "∂(x.fill_(v))/∂v = Σ g"], description="fill with a 0-dim tensor in place")
register("copy", "torch::autograd::CopyBackwards", _copy,
         [_nothing, lambda g, s: g],
         ["∂(x.copy_(src))/∂x = 0", "∂(x.copy_(src))/∂src = 1"], description="copy src into x in place")

"""Reductions of the table: sum, mean (whole tensor or along dims)."""

from __future__ import annotations

import numpy as np

from .table import register


def _expand_back(g, s):
    """Broadcast a reduced gradient back to the input's shape (dims were kept or are re-inserted)."""
    xp = s.xp
    shape = s.p["shape"]
    dims = s.p.get("dim")
    if dims is not None and not s.p.get("keepdim", False):
        kept = list(xp.data(g).shape)
        for d in sorted(dims):
            kept.insert(d, 1)
        g = xp.reshape(g, tuple(kept))
    return xp.broadcast_to(g, shape)


def _count(p) -> int:
    shape = p["shape"]
    if p.get("dim") is None:
        return int(np.prod(shape, dtype=np.int64))
    return int(np.prod([shape[d] for d in p["dim"]], dtype=np.int64))


register("sum", "SumBackward0", lambda a, shape: np.sum(a),
         [lambda g, s: s.xp.broadcast_to(g, s.p["shape"])],
         ["∂(Σx)/∂xᵢ = 1"], description="Σ x")
register("sum_dim", "SumBackward1", lambda a, shape, dim, keepdim: np.sum(a, axis=dim, keepdims=keepdim),
         [_expand_back],
         ["∂(Σ_d x)/∂xᵢ = 1"], description="Σ over dim")
register("mean", "MeanBackward0", lambda a, shape: np.mean(a, dtype=a.dtype),
         [lambda g, s: s.xp.broadcast_to(g / _count(s.p), s.p["shape"])],
         ["∂(mean x)/∂xᵢ = 1/n"], description="mean of x")
register("mean_dim", "MeanBackward1",
         lambda a, shape, dim, keepdim: np.mean(a, axis=dim, keepdims=keepdim, dtype=a.dtype),
         [lambda g, s: _expand_back(g / _count(s.p), s)],
         ["∂(mean_d x)/∂xᵢ = 1/n"], description="mean over dim")

"""What is suspicious about a gradient, with the thresholds the page states."""

from __future__ import annotations

import numpy as np

# A gradient is tiny or huge against its tensor's value: its mean |g| below TINY, or above HUGE,
# times max(mean |value|, 1).
TINY = 1e-5
HUGE = 1e4


def scale(value) -> float:
    """max(mean |value|, 1): what TINY and HUGE multiply."""
    v = np.abs(np.asarray(value, dtype=np.float64))
    return max(float(v.mean()) if v.size else 0.0, 1.0)


def symptom(grad, value) -> str | None:
    """``none``, ``nonfinite``, ``zero`` (every element), ``part_zero``, ``tiny``, ``huge``, or None
    for a gradient that looks healthy."""
    if grad is None:
        return "none"
    g = np.asarray(grad, dtype=np.float64)
    if g.size == 0:
        return None
    if not np.isfinite(g).all():
        return "nonfinite"
    zeros = g == 0
    if zeros.all():
        return "zero"
    if zeros.any():
        return "part_zero"
    m = float(np.abs(g).mean())
    s = scale(value)
    if m < TINY * s:
        return "tiny"
    if m > HUGE * s:
        return "huge"
    return None

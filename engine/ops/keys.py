"""An index key as the trace keeps it: JSON-friendly data (ints, None, "...", slice dicts, lists of
ints) and back to a NumPy index tuple, and the keys ``select`` and ``slice`` take. Indexing
(``engine.ops.indexing``) stores keys this way in an op's params; the explanations' worked steps
(``engine.ops.explain``) read them back.
"""

from __future__ import annotations

import numpy as np

_FULL = slice(None)


def encode_key(key: tuple) -> tuple:
    """NumPy index tuple -> JSON-friendly tuple (ints, None, "...", slice dicts, lists of ints)."""
    out = []
    for k in key:
        if k is None:
            out.append(None)
        elif k is Ellipsis:
            out.append("...")
        elif type(k) is slice:
            out.append({"start": k.start, "stop": k.stop, "step": k.step})
        elif isinstance(k, np.ndarray):
            out.append(k.tolist())
        else:
            out.append(int(k))
    return tuple(out)


def decode_key(enc: tuple) -> tuple:
    """The inverse of ``encode_key``."""
    out = []
    for k in enc:
        if k is None:
            out.append(None)
        elif k == "...":
            out.append(Ellipsis)
        elif type(k) is dict:
            out.append(slice(k["start"], k["stop"], k["step"]))
        elif type(k) is list:
            out.append(np.asarray(k, dtype=np.int64))
        else:
            out.append(k)
    return tuple(out)


def key_mask(shape, key) -> np.ndarray:
    """Boolean array of ``shape``: True where ``key`` writes."""
    m = np.zeros(shape, dtype=np.bool_)
    m[key] = True
    return m


def select_key(p) -> tuple:
    """The index that ``select(dim, index)`` with params ``p`` takes from its input."""
    return (_FULL,) * p["dim"] + (p["index"], Ellipsis)


def slice_key(p) -> tuple:
    """The index that a slice along ``p["dim"]`` (start, stop, step) takes from its input."""
    return (_FULL,) * p["dim"] + (slice(p["start"], p["stop"], p["step"]),)

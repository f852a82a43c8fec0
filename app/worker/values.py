"""NumPy arrays → JSON-ready values: in full up to ``FULL_LIMIT`` elements, else a summary.

JSON has no NaN or infinity: non-finite numbers become the strings ``"NaN"``, ``"Infinity"``
and ``"-Infinity"`` (JavaScript's ``Number(s)`` reads them back). float32/float16 numbers are
written with their shortest decimal form (0.1, not 0.10000000149011612).
"""

from __future__ import annotations

import math

import numpy as np

FULL_LIMIT = 64  # elements sent in full; above this, shape + summary
HEAD = 8  # first elements kept in a summary

_NONFINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}
_F64 = np.dtype(np.float64)


def number(x) -> float | int | bool | str | None:
    """One Python number, JSON-safe."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    f = float(x)
    if math.isfinite(f):
        return f
    return "NaN" if f != f else _NONFINITE[f]


def nested(arr: np.ndarray):
    """The array as nested lists of JSON-safe Python numbers."""
    kind = arr.dtype.kind
    if arr.ndim == 0:  # the common case in teaching examples: one number
        x = arr[()]
        if kind == "f":
            return number(float(str(x)) if arr.dtype.itemsize < 8 else float(x))
        return number(x) if kind in "biu" else str(x)
    if kind == "f" and arr.dtype.itemsize < 8:
        arr = shortest(arr)
    if kind == "f" and not np.isfinite(arr).all():
        obj = arr.astype(object)
        obj[np.isnan(arr)] = "NaN"
        obj[np.isposinf(arr)] = "Infinity"
        obj[np.isneginf(arr)] = "-Infinity"
        return obj.tolist()
    if kind == "c":
        return [str(v) for v in arr.ravel()]
    return arr.tolist()


class _ByContent:
    """What was worked out of each distinct array (by dtype, shape and bytes), for one answer, which
    writes the same tensor several times over (a node's value, a step's gradient, an explanation, a
    course view); it starts over when it holds ``entries`` arrays or ``nbytes`` of their bytes."""

    def __init__(self, entries: int | None = None, nbytes: int | None = None):
        self.entries, self.nbytes = entries, nbytes
        self.held: dict = {}
        self.held_bytes = 0

    def get(self, arr: np.ndarray, work):
        """``work(arr)``, worked out once for arrays of the same content."""
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        got = self.held.get(key)
        if got is None:
            if (self.entries is not None and len(self.held) >= self.entries) or \
                    (self.nbytes is not None and self.held_bytes + len(key[2]) > self.nbytes):
                self.held.clear()
                self.held_bytes = 0
            got = self.held[key] = work(arr)
            self.held_bytes += len(key[2])
        return got


_SHORTEST = _ByContent(entries=4096)  # each array at most FULL_LIMIT elements
_SUMMARIES = _ByContent(nbytes=32 * 2**20)  # large arrays: bounded by their bytes


def shortest(arr: np.ndarray) -> np.ndarray:
    """A float32/float16 array as float64 holding each element's shortest decimal (what
    ``float(str(v))`` gives). NumPy's per-element printing is most of the cost of writing values:
    each distinct array is converted once."""
    return _SHORTEST.get(arr, _shortest)


def _shortest(arr: np.ndarray) -> np.ndarray:
    got = np.array([float(str(v)) for v in arr.ravel()], dtype=np.float64).reshape(arr.shape)
    got.flags.writeable = False  # shared by every later copy of the same tensor
    return got


def summary(arr: np.ndarray) -> dict:
    """min, max, mean, norm and the first elements of a (large) array. A 50-step MLP's answer
    summarizes 218 arrays of which 85 are distinct (a node's value, a step's gradient, an
    explanation's values): each distinct one is computed once."""
    if arr.size == 0:
        return {"min": None, "max": None, "mean": None, "norm": None, "head": []}
    got = _SUMMARIES.get(arr, _summary)
    return dict(got, head=list(got["head"]))  # a copy: what a caller does with it stays its own


def _summary(arr: np.ndarray) -> dict:
    a = arr.astype(np.float64, copy=False)
    return {
        "min": number(a.min()),
        "max": number(a.max()),
        "mean": number(a.mean()),
        "norm": number(np.sqrt(np.sum(a * a))),
        "head": nested(arr.ravel()[:HEAD]),
    }


def value(arr) -> dict | None:
    """A ``Value`` (schemas): shape, dtype, then data in full or a summary. A tensor without
    elements is ``[]`` whatever its shape, as PyTorch prints it (``tensor([], size=(3000000, 0))``):
    its shape alone would otherwise expand into millions of empty lists."""
    if arr is None:
        return None
    arr = np.asarray(arr)
    out = {"shape": list(arr.shape), "dtype": dtype_name(arr.dtype)}
    if arr.size == 0:
        out["data"] = []
        out["summary"] = None
    elif arr.size <= FULL_LIMIT:
        out["data"] = nested(arr)
        out["summary"] = None
    else:
        out["data"] = None
        out["summary"] = summary(arr)
    return out


def norm(arr) -> float | str | None:
    """The 2-norm of an array (JSON-safe), for iteration summaries."""
    if arr is None:
        return None
    if type(arr) is not np.ndarray or arr.dtype is not _F64:  # (most are float64 arrays already)
        arr = np.asarray(arr, dtype=np.float64)
    v = arr.reshape(-1)
    n = math.sqrt(float(v @ v))  # one BLAS call: thousands of these in a training run
    return n if math.isfinite(n) else number(n)


_DTYPE_NAMES: dict = {}


def dtype_name(dt: np.dtype) -> str:
    """torch's name for a NumPy dtype (float32, int64, bool, ...); cached (``dtype.name`` is slow)."""
    name = _DTYPE_NAMES.get(dt)
    if name is None:
        name = _DTYPE_NAMES[dt] = "bool" if dt == np.bool_ else dt.name
    return name

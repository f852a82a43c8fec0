"""``Tensor.exponential_`` and ``torch.multinomial``, drawn from the generator as ATen's CPU
kernels draw them (bit for bit with torch for the same seed):

- exponential_: −1/λ · log1p(−u) per element, u a 53-bit uniform;
- multinomial without replacement, or one sample: ``argmax`` / ``topk`` of p / q with q drawn by
  exponential_(1) over the whole input (the Gumbel trick torch uses);
- with replacement: per row, the running sum of the probabilities in the input's type divided by
  their total (the last set to 1), then per sample a 53-bit uniform u and the first class whose
  cumulative probability is ≥ u.
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import generator as G
from .. import trace as _trace
from ..dtypes import scalar_name
from ..tensor import Tensor
from .sampling import _target, _written
from .table import public


@public("Tensor")
def exponential_(self: Tensor, lambd=1.0, *, generator=None) -> Tensor:
    """Fill with Exp(λ) samples in place."""
    self = _target(self, "exponential_")
    lambd = A.real(lambd, "exponential_", "lambd", 1)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    data = self._data
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"exponential_cpu\" not implemented for '{scalar_name(self.dtype)}'")
    pending = _trace.before_update(self)
    gen = G.pick(generator, "exponential_")
    data[...] = G.exponential(gen, data.size, data.dtype, lambd).reshape(data.shape)
    self._vc[0] += 1
    return _written(self, "exponential_", pending)


def _checked(input, num_samples, replacement) -> tuple[np.ndarray, int, bool]:
    input = A.tensor(input, "multinomial", "input", 1)
    n = A.integer(num_samples, "multinomial", "num_samples", 2)
    replacement = A.flag(replacement, "multinomial", "replacement", strict=False)
    p = input._data
    if p.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{scalar_name(input.dtype)}")
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not replacement and n > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    return p, n, replacement


def _gumbel(gen, p: np.ndarray, n: int) -> np.ndarray:
    """torch's path without replacement (or for one sample): the largest p / q, q ~ Exp(1)."""
    if not (np.all(p >= 0) and np.all(p < np.inf)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(p.sum(axis=-1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = G.exponential(gen, p.size, p.dtype, 1.0).reshape(p.shape)
    ratio = (p / q).astype(p.dtype)
    if n == 1:
        return np.argmax(ratio, axis=-1)[..., None]
    return np.argsort(-ratio, axis=-1, kind="stable")[..., :n]


def _with_replacement(gen, p: np.ndarray, n: int) -> np.ndarray:
    rows = p.reshape(-1, p.shape[-1])
    out = np.empty((rows.shape[0], n), dtype=np.int64)
    for i, row in enumerate(rows):
        if np.any(row < 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.all(np.isfinite(row)):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity "
                               "or NaN)")
        cum = np.add.accumulate(row)  # one element after another, in the input's type, as ATen
        total = cum[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = (cum / total).astype(row.dtype)
        cum[-1] = 1
        u = G._unit(gen, n, np.dtype(np.float64))
        out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out.reshape(p.shape[:-1] + (n,))


@public("torch", "Tensor")
def multinomial(input: Tensor, num_samples, replacement=False, *, generator=None) -> Tensor:
    """``num_samples`` class indices per row of probabilities (rows need not sum to 1)."""
    p, n, replacement = _checked(input, num_samples, replacement)
    gen = G.pick(generator, "multinomial")
    if not replacement or n == 1:
        return Tensor._make(_gumbel(gen, p, n).astype(np.int64))
    return Tensor._make(_with_replacement(gen, p, n))

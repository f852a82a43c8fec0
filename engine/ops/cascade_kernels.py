"""The reductions that add in orders of their own, beside ``torch_sum``'s cascade
(engine/ops/cascade.py, whose iterator order and helpers they use): ``torch_norm`` as vector_norm's
kernel, ``torch_var`` as var/std's, ``nll_sum`` as nll_loss's. Each gives PyTorch's CPU result to
the last bit for float32 (and float64 where the order matters)."""

from __future__ import annotations

import math

import numpy as np

from . import cascade


def torch_norm(a: np.ndarray, ord: float, axis=None, keepdims: bool = False):  # noqa: A002
    """The vector p-norm of a float32 ``a`` (p finite and not 0) as PyTorch's CPU kernels add it, or
    None for what they do not cover here (other dtypes and orders: exact or left to NumPy).

    p = 2 over one contiguous innermost dim (a row, or a whole contiguous tensor) runs on vectors
    of 8 lanes: x·x added per lane, the lanes added in order, then the leftover elements, the first
    in fours (a product rounded, then added), the last one to three with a fused multiply-add.
    Otherwise each output is a running sum of |x|ᵖ over its elements in the iterator's order (for
    a single output of 32768 or more elements, one running sum per thread, then added)."""
    a = np.asarray(a)
    if a.dtype != np.float32 or ord == 0 or not np.isfinite(ord) or a.size == 0:
        return None
    a, reduced, out_shape = cascade.prepared(a, axis, keepdims)
    dims = cascade.iterator_dims(a.shape, a.strides, reduced)
    nred = sum(1 for d in dims if d[2] == 0)
    f32 = np.float32
    if nred == 0:  # only dims of size 1 reduced: PyTorch gives |x| as it is
        return np.abs(a).reshape(out_shape) if reduced else None
    view = cascade.iterated(a, dims)
    kept = list(reversed(dims[nred:]))
    if ord == 2 and nred == 1 and dims[0][1] == a.itemsize:
        n = view.shape[-1]
        nv = n // 8
        vec = view[..., :nv * 8].reshape(view.shape[:-1] + (nv, 8))
        sq = vec * vec
        lanes = np.add.accumulate(sq, axis=-2)[..., -1, :] if nv else np.zeros(view.shape[:-1] + (8,), f32)
        acc = np.add.accumulate(lanes, axis=-1)[..., -1]
        tail = nv * 8
        for k in range(tail, n):
            x = view[..., k]
            if k < tail + (n - tail) // 4 * 4:
                acc = acc + x * x
            else:  # fused: one rounding of acc + x² (exact in float64, then to float32)
                acc = (acc.astype(np.float64) + np.square(x.astype(np.float64))).astype(f32)
        return cascade.to_output(np.sqrt(acc), a, kept, out_shape)
    x = np.abs(view)
    terms = x * x if ord == 2 else x if ord == 1 else x ** f32(ord)
    terms = terms.reshape(terms.shape[:len(kept)] + (-1,))
    n = terms.shape[-1]
    if not kept and n >= cascade.GRAIN_SIZE and cascade.THREADS > 1:
        chunk = -(-n // min(cascade.THREADS, -(-n // cascade.GRAIN_SIZE)))
        acc = f32(0)
        for start in range(0, n, chunk):
            acc = acc + np.add.accumulate(terms[start:start + chunk])[-1]
    else:
        acc = np.add.accumulate(terms, axis=-1)[..., -1]
    return cascade.to_output(_project(acc, ord), a, kept, out_shape)


def _project(acc, ord):  # noqa: A002
    """‖x‖ₚ from Σ|x|ᵖ (p = 1: as it is)."""
    if ord == 2:
        return np.sqrt(acc)
    return acc if ord == 1 else acc ** np.float32(1.0 / ord)


def torch_var(a: np.ndarray, axis=None, ddof=1, keepdims: bool = False, sqrt: bool = False) -> np.ndarray:
    """Variance (standard deviation with ``sqrt``) as PyTorch's CPU kernels give it: a float32
    tensor's is computed in float64 (a two-pass sum or Welford's updates) and rounded once at the
    end, so the float64 result rounded to float32 is PyTorch's."""
    a = np.asarray(a)
    if a.dtype == np.float64 and len(cascade.reduced_dims(a.ndim, axis)) == a.ndim and a.size - ddof > 0:
        return _var_all(a, ddof, keepdims, sqrt)
    if a.dtype != np.float32:
        return (np.std if sqrt else np.var)(a, axis=axis, ddof=ddof, keepdims=keepdims)
    var = np.var(a.astype(np.float64), axis=axis, ddof=ddof, keepdims=keepdims)
    return np.asarray(np.sqrt(var) if sqrt else var).astype(np.float32)


def _var_all(a: np.ndarray, ddof, keepdims: bool, sqrt: bool) -> np.ndarray:
    """float64 variance of all elements as ``std_var_all_cpu``: the mean (a cascade sum), then a
    running sum of (x − mean)² in memory order (one per thread for 32768 elements or more, the
    threads' sums added in order), divided by n − correction."""
    mean = float(cascade.torch_mean(a))
    d = a.ravel(order="K") - mean
    sq = d * d
    n = sq.shape[0]
    if n >= cascade.GRAIN_SIZE and cascade.THREADS > 1:
        chunk = -(-n // min(cascade.THREADS, -(-n // cascade.GRAIN_SIZE)))
        total = 0.0
        for start in range(0, n, chunk):
            total = total + float(np.add.accumulate(sq[start:start + chunk])[-1])
    else:
        total = float(np.add.accumulate(sq)[-1])
    var = total / (n - ddof)
    r = np.float64(math.sqrt(var) if sqrt else var)
    return np.asarray(r).reshape((1,) * a.ndim if keepdims else ())


def nll_sum(terms: np.ndarray, kept: np.ndarray | None = None):
    """Sum of ``terms`` (one per target, in the targets' order) as ``nll_loss`` adds them: its own
    running cascade of 8 levels over the batch, where target b, once added, passes each level's
    sum up while b's low 4-bit groups are zero (target 0 goes straight to the top). A target not
    ``kept`` (ignore_index) is skipped: it neither adds nor passes a sum up."""
    terms = np.asarray(terms)
    dtype = terms.dtype.type
    if kept is None or kept.all():
        if terms.size == 0:
            return dtype(0)
        first = dtype(0) + terms.reshape(-1)[0]
        if terms.size == 1:
            return first
        return cascade.multi_row(terms.reshape(-1)[1:], levels=8) + first
    # Targets skipped: the loop itself (a rare case; its pass-ups no longer fall on a grid).
    power = max(4, cascade.ceil_log2(terms.size) // 8)
    mask = (1 << power) - 1
    acc = [dtype(0)] * 8
    for b in np.flatnonzero(kept.reshape(-1)).tolist():
        acc[0] = acc[0] + terms.flat[b]
        for j in range(7):
            if b & (mask << (j * power)):
                break
            acc[j + 1] = acc[j + 1] + acc[j]
            acc[j] = dtype(0)
    total = dtype(0)
    for v in acc:
        total = total + v
    return total

"""Floating-point reductions in PyTorch's CPU order, so that float32 results agree to the last bit.

PyTorch sums floating tensors on the CPU with a cascade (``cascade_sum`` in ATen's
``SumKernel.cpp``): a running sum over chunks of 16 or more elements, the chunks' sums summed the
same way on up to four levels, with vector registers of ``VECTOR_BYTES`` and four accumulators
side by side. NumPy's pairwise summation adds in another order, so a float32 ``mean`` of a
hundred 0.1 gave 0.10000003 where PyTorch gives 0.099999994. ``torch_sum`` repeats PyTorch's
order with whole-array NumPy additions (each an exact IEEE operation per element): every
sequential run of additions is one NumPy call, vectorized over all the sums computed side by side.

What decides the order, as in PyTorch: the TensorIterator's dimension order (reduced dims first,
then by stride), its coalescing of dims, the kernel chosen for the innermost two dims (inner or
outer reduction, vectorized or scalar), and for a full reduction of at least 32768 elements the
split among threads (``THREADS``: PyTorch's default intra-op thread count, one per core).
``nll_sum``, ``torch_norm`` and ``torch_var`` (engine/ops/cascade_kernels.py) follow the kernels of
nll_loss, vector_norm and var/std, which add in orders of their own.
"""

from __future__ import annotations

import math
import os

import numpy as np

VECTOR_BYTES = 32  # AVX2 and aarch64: 8 floats, 4 doubles (a PyTorch running AVX-512 kernels has 64)
GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE
THREADS = max(1, os.cpu_count() or 1)

_CASCADED = (np.dtype(np.float32), np.dtype(np.float64))
_FIRST_AXIS = ((0,), 0)  # axis arguments that reduce axis 0 alone


def ceil_log2(n: int) -> int:
    """⌈log₂ n⌉ (0 for n ≤ 1)."""
    return 0 if n <= 1 else (n - 1).bit_length()


def _rowwise(x: np.ndarray) -> bool:
    """Whether NumPy reduces axis 0 of ``x`` one row after the other: when another axis (of size
    > 1) has a smaller stride, that one is its innermost loop (its pairwise summation is only for
    an innermost loop that is the summed axis)."""
    if x.ndim < 2:
        return False
    if x.shape[-1] > 1 and x.strides[-1] == x.itemsize and x.strides[0] > x.itemsize:
        return True  # the usual case, without the general look below
    inner = [abs(st) for st, n in zip(x.strides[1:], x.shape[1:]) if n > 1]
    return bool(inner) and min(inner) < abs(x.strides[0])


def _run(x: np.ndarray) -> np.ndarray:
    """Sequential sum over axis 0 (x₀ + x₁ + …), one sum per trailing element, in one NumPy call."""
    if x.shape[0] == 1:
        return x[0]
    if _rowwise(x):
        return np.add.reduce(x, axis=0)
    return np.add.accumulate(x, axis=0)[-1]


def _runs(x: np.ndarray) -> np.ndarray:
    """Sequential sums over axis 1 of ``x`` (groups, steps, …): one per group."""
    return _run(x.swapaxes(0, 1))


def multi_row(x: np.ndarray, levels: int = 4, min_power: int = 4) -> np.ndarray:
    """``multi_row_sum``: the cascade over axis 0 of ``x`` (every trailing element a sum of its own).

    Running sums of ``step`` rows feed level 1; levels 1 to ``levels`` − 2 pass their sum up every
    ``step`` entries, the top level keeps running; rows after the last full chunk are summed
    alone; at the end level 0 + 1 + … + top. (A level that holds nothing is left out: adding an
    exact zero changes no sum but the sign of a zero one, and the final store adds 0 anyway.)"""
    size = x.shape[0]
    rest = x.shape[1:]
    if size == 0:
        return np.zeros(rest, dtype=x.dtype)
    power = (size - 1).bit_length() // levels  # ceil_log2(size), inline: every bias gradient comes here
    step = 1 << (power if power > min_power else min_power)
    if size <= step:  # one chunk at most: its running sum is the sum (one level holds it)
        return _run(x)
    nb = size // step
    if nb < step and x.flags.c_contiguous and (x.ndim == 1 or x.shape[-1] > 1):
        return _one_level(x, nb, step)
    acc = _run(x[nb * step:]) if nb * step < size else None
    chunks = _runs(x[:nb * step].reshape((nb, step) + rest))  # (nb, *rest)
    for _ in range(levels - 2):
        full = len(chunks) // step
        if full == 0:
            break
        if full * step < len(chunks):
            left = _run(chunks[full * step:])
            acc = left if acc is None else acc + left
        chunks = _runs(chunks[:full * step].reshape((full, step) + rest))
    top = _run(chunks)
    return top if acc is None else acc + top


def _one_level(x: np.ndarray, nb: int, step: int) -> np.ndarray:
    """``multi_row`` of fewer than ``step`` chunks (no level passes a sum up) over a C-contiguous
    ``x``, 1-D or with a last axis longer than 1, with the runs ``_run`` would choose and without
    its look at the strides (a bias's gradient and nll_loss's sum, every training step): rows are
    added by one ``add.reduce`` down axis 0, which NumPy adds row after row (``_rowwise``); the
    numbers of a 1-D ``x`` by ``add.accumulate``, each chunk's along its own row."""
    if x.ndim == 1:
        run = np.add.accumulate
        top = run(x[:nb * step].reshape(nb, step), axis=1)[:, -1]
        top = run(top)[-1] if nb > 1 else top[0]
        left = x[nb * step:]
        if left.shape[0] == 0:
            return top
        return (run(left)[-1] if left.shape[0] > 1 else left[0]) + top
    reduce = np.add.reduce
    top = reduce(x[:nb * step].reshape((nb, step) + x.shape[1:]).swapaxes(0, 1), axis=0)
    top = reduce(top, axis=0) if nb > 1 else top[0]
    if nb * step == x.shape[0]:
        return top
    left = x[nb * step:]
    return (reduce(left, axis=0) if left.shape[0] > 1 else left[0]) + top


def _row_sum(x: np.ndarray) -> np.ndarray:
    """``row_sum``: axis 0 read as rows of 4 (four cascades side by side), the leftover entries
    added to the first, then the four added in order."""
    size = x.shape[0]
    n4 = size // 4
    parts = multi_row(x[:n4 * 4].reshape((n4, 4) + x.shape[1:]))  # (4, *rest)
    if n4 * 4 < size:
        parts = np.concatenate((parts[:1], x[n4 * 4:], parts[1:]))
    return _run(parts)  # first + leftovers + second + third + fourth


def _inner_vectorized(rows: np.ndarray, lanes: int) -> np.ndarray:
    """``vectorized_inner_sum``: each row (last axis, contiguous) as vectors of ``lanes``; a
    ``row_sum`` of the vectors; then 0 + the leftover elements + the vector's lanes, in order."""
    size = rows.shape[-1]
    nvec = size // lanes
    lead = rows.shape[:-1]
    vecs = rows[..., :nvec * lanes].reshape(lead + (nvec, lanes))
    vec = _row_sum(vecs.swapaxes(0, 1) if len(lead) == 1 else np.moveaxis(vecs, -2, 0))  # (*lead, lanes)
    seq = np.concatenate([rows[..., nvec * lanes:], vec], axis=-1)
    return _run(np.moveaxis(seq, -1, 0)) + rows.dtype.type(0)


def _columns(v: np.ndarray, width: int) -> np.ndarray:
    """``vectorized_outer_sum`` / ``scalar_outer_sum``: the sums over the last axis of ``v``
    (…, columns, rows)."""
    return _down_columns(np.moveaxis(v, -1, 0), width)


def _down_columns(t: np.ndarray, width: int) -> np.ndarray:
    """The sums over axis 0 of ``t`` (rows, …, columns): the first columns in groups of ``width``
    by one cascade over all the rows, the rest by ``row_sum``."""
    cols = t.shape[-1]
    split = cols // width * width
    if split == cols:
        return multi_row(t)
    if split == 0:
        return _row_sum(t)
    out = np.empty(t.shape[1:], dtype=t.dtype)
    out[..., :split] = multi_row(t[..., :split])
    out[..., split:] = _row_sum(t[..., split:])
    return out


def _serial(flat: np.ndarray, lanes: int):
    """A contiguous 1-D run summed by one call of the kernel (0 + its sum)."""
    n = flat.shape[0]
    if n < lanes:
        return _row_sum(flat) + flat.dtype.type(0)
    nvec = n // lanes
    vec = _row_sum(flat[:nvec * lanes].reshape(nvec, lanes))
    seq = np.concatenate((flat[nvec * lanes:], vec))
    return np.add.accumulate(seq)[-1] + flat.dtype.type(0)


def _full(flat: np.ndarray, lanes: int):
    """All of a contiguous 1-D run, split among threads as PyTorch splits it."""
    if flat.shape[0] >= GRAIN_SIZE and THREADS > 1:
        return _two_pass(flat, lanes)
    return _serial(flat, lanes)


def _contiguous(a: np.ndarray, reduced: tuple, lanes: int):
    """The sum of a C-contiguous ``a`` over one block of adjacent axes, as (A, R, C) with R reduced:
    rows (C = 1), columns, or all (A = C = 1); the iterator's dims are these. None otherwise."""
    lo, hi = reduced[0], reduced[-1] + 1
    if hi - lo != len(reduced):
        return None
    shape = a.shape
    outer, r, c = math.prod(shape[:lo]), math.prod(shape[lo:hi]), math.prod(shape[hi:])
    if r == 1:
        return np.add(a, 0, dtype=a.dtype)
    if outer * c == 1:
        return _full(a.reshape(-1), lanes)
    if c == 1:
        rows = a.reshape(outer, r)
        if r >= lanes:
            return _inner_vectorized(rows, lanes) + a.dtype.type(0)
        return _row_sum(rows.T) + a.dtype.type(0)
    t = a.reshape(outer, r, c).swapaxes(0, 1)
    sums = _down_columns(t, 4 * lanes if c >= lanes else 4)  # a new array (r > 1)
    return np.add(sums, 0, out=sums)


def _loop2d(v: np.ndarray, in0: int, in1: int, lanes: int) -> np.ndarray:
    """The reduction of cascade_sum's 2-D loop over the last axis of ``v`` (…, size1, size0), by
    the kernel PyTorch picks from the strides (bytes) of the two innermost dims."""
    size0, size1 = v.shape[-1], v.shape[-2]
    item = v.dtype.itemsize
    if in0 == item and size0 >= lanes:
        return _inner_vectorized(v, lanes)
    if in1 == item and size1 >= lanes:
        return _columns(v, 4 * lanes)
    if in0 < in1:
        return _row_sum(np.moveaxis(v, -1, 0))
    return _columns(v, 4)


def iterator_dims(shape, strides, reduced):
    """TensorIterator's dims for the reduction, innermost first: size-1 dims dropped, reduced dims
    moved to the front, then ordered by the output's and the input's strides, then coalesced.
    Each dim is [size, input stride, output stride, original axes (innermost first)]."""
    kept = [a for a in range(len(shape)) if a not in reduced]
    out_stride = {}
    acc = 1
    for a in reversed(kept):
        out_stride[a] = acc
        acc *= shape[a]
    axes = [a for a in range(len(shape)) if shape[a] != 1]
    perm = axes[::-1]

    def swap(d0, d1):  # should_swap: > 0 when d1 goes inside d0
        o0, o1 = out_stride.get(d0, 0), out_stride.get(d1, 0)
        if (o0 == 0) != (o1 == 0):
            return 1 if o1 == 0 else -1
        for s0, s1 in ((o0, o1), (strides[d0], strides[d1])):
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    dims = []
    for a in perm:
        size, st, ost = shape[a], strides[a], out_stride.get(a, 0) if a not in reduced else 0
        if dims:
            prev = dims[-1]
            if prev[0] * prev[1] == st and prev[0] * prev[2] == ost:
                prev[0] *= size
                prev[3].append(a)
                continue
        dims.append([size, st, ost, [a]])
    return dims


def reduced_dims(ndim: int, axis) -> set:
    """The axes ``axis`` names in an array of ``ndim`` dims (every one for None), as a set."""
    if axis is None:
        return set(range(ndim))
    if not ndim:
        return set()
    return {d % ndim for d in ((axis,) if isinstance(axis, (int, np.integer)) else axis)}


def iterated(a: np.ndarray, dims) -> np.ndarray:
    """``a`` seen through the iterator's dims: outermost first, the innermost (a reduced dim) last."""
    return np.lib.stride_tricks.as_strided(
        a, shape=[d[0] for d in reversed(dims)], strides=[d[1] for d in reversed(dims)], writeable=False)


def to_output(r: np.ndarray, a: np.ndarray, kept, out_shape) -> np.ndarray:
    """Results laid out along the kept iterator dims ``kept`` (outermost first) put back in the
    order of the original axes, shaped as the output."""
    sizes, axes = [], []
    for d in kept:
        for ax in reversed(d[3]):
            sizes.append(a.shape[ax])
            axes.append(ax)
    r = np.asarray(r).reshape(sizes)
    if axes:
        r = np.transpose(r, np.argsort(axes))
    return r.reshape(out_shape)


def prepared(a: np.ndarray, axis, keepdims: bool):
    """(array, reduced axes, output shape): a PyTorch-like array (no negative strides: a copy)."""
    reduced = reduced_dims(a.ndim, axis)
    if not a.flags.c_contiguous and any(s < 0 for s in a.strides):
        a = np.ascontiguousarray(a)
    out_shape = tuple(1 if d in reduced else n for d, n in enumerate(a.shape) if keepdims or d not in reduced)
    return a, reduced, out_shape


def torch_sum(a: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
    """Sum of ``a`` over ``axis`` (None: all; an int or a tuple) as PyTorch's CPU kernel adds it.

    float32 and float64 follow PyTorch's summation order bit for bit; other dtypes use NumPy
    (integer sums are exact; float16 is summed in float32 by PyTorch)."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if a.dtype not in _CASCADED:
        return np.sum(a, axis=axis, keepdims=keepdims)
    if axis in _FIRST_AXIS and a.ndim == 2 and not keepdims and a.flags.c_contiguous:
        rows, cols = a.shape
        if rows > 1 and cols > 1:  # a bias's gradient (sum_to_shape): _contiguous's case, called directly
            lanes = VECTOR_BYTES // a.itemsize
            sums = _down_columns(a, 4 * lanes if cols >= lanes else 4)  # a new array
            return np.add(sums, 0, out=sums)
    if a.size <= 1:
        return np.add(np.add.reduce(a, axis=axis, keepdims=keepdims), 0, dtype=a.dtype)
    a, reduced, out_shape = prepared(a, axis, keepdims)
    lanes = VECTOR_BYTES // a.dtype.itemsize
    if a.flags.c_contiguous and reduced:
        r = _contiguous(a, sorted(reduced), lanes)
        if r is not None:
            return np.asarray(r).reshape(out_shape)
    dims = iterator_dims(a.shape, a.strides, reduced)
    if not dims or dims[0][2] != 0:  # nothing of size > 1 reduced: a copy (0 + x)
        return np.add(a, 0, dtype=a.dtype).reshape(out_shape)
    if len(dims) == 1:
        flat = np.lib.stride_tricks.as_strided(a, shape=(dims[0][0],), strides=(dims[0][1],), writeable=False)
        if dims[0][1] == a.itemsize:
            return np.asarray(_full(flat, lanes)).reshape(out_shape)
        if a.size >= GRAIN_SIZE and THREADS > 1:
            return np.asarray(_two_pass(flat, lanes)).reshape(out_shape)
    view = iterated(a, dims)
    in1 = dims[1][1] if len(dims) > 1 else 0
    if len(dims) == 1:
        view = view[None]
    r = _loop2d(view, dims[0][1], in1, lanes)  # axes: outer dims (outermost first), then size1
    # Sums landing in one output element are added to it in the iterator's order (dim 1 fastest).
    order = list(reversed(dims[1:] or [[1, 0, 0, []]]))  # r's axes
    red = [i for i, d in enumerate(order) if d[2] == 0]
    keep = [i for i, d in enumerate(order) if d[2] != 0]
    r = np.transpose(r, keep + red)
    r = r.reshape(r.shape[:len(keep)] + (-1,))
    r = np.add.accumulate(r, axis=-1)[..., -1] + a.dtype.type(0)
    return to_output(r, a, [order[i] for i in keep], out_shape)


def torch_mean(a: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
    """Mean as PyTorch computes it on the CPU: ``torch_sum`` divided by the count, in the dtype."""
    a = np.asarray(a)
    if a.dtype not in _CASCADED:
        return np.mean(a, axis=axis, keepdims=keepdims, dtype=a.dtype)
    if axis is None:
        count = a.size
    else:
        count = 1
        for d in ((axis,) if isinstance(axis, (int, np.integer)) else axis):
            count *= a.shape[d]
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty mean is nan, without a warning
        return np.asarray(np.divide(torch_sum(a, axis, keepdims), count, dtype=a.dtype))


def _two_pass(flat: np.ndarray, lanes: int):
    """A full reduction split among threads (``two_pass_reduction``): each thread's slice summed
    into its own zero, then the threads' sums summed as a small tensor."""
    n = flat.shape[0]
    tasks = min(THREADS, -(-n // GRAIN_SIZE))
    chunk = -(-n // tasks)
    buffer = np.zeros(THREADS, dtype=flat.dtype)
    for t in range(tasks):
        part = flat[t * chunk:(t + 1) * chunk]
        if part.size:
            buffer[t] = _strided_serial(part, lanes)
    return _serial(buffer, lanes) + flat.dtype.type(0)


def _strided_serial(flat: np.ndarray, lanes: int):
    """A 1-D run (contiguous or not) summed by one call of the kernel."""
    if flat.strides[0] == flat.itemsize or flat.shape[0] == 1:
        return _serial(flat, lanes)
    return _row_sum(flat) + flat.dtype.type(0)  # scalar path: a strided run is never vectorized

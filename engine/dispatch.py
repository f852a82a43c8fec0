"""Running one op of the table forward: compute, build the grad_fn, record it.

Every differentiable op of the engine goes through ``apply`` (or ``apply_inplace``), so grad
mode, requires_grad propagation, type promotion and tracing happen in exactly one place.
"""

from __future__ import annotations

import numpy as np

from . import dtypes, errors, grad_mode, view_history
from . import limits as _limits
from . import tangents as _tangents
from . import trace as _trace
from .function import node_class
from .ops.keys import encode_key
from .ops.table import OPS, OpDef
from .tensor import Tensor

_FLOAT_NP = (np.float16, np.float32, np.float64)
_make = Tensor._make  # bound once: reading a classmethod off the class costs steps on every op


def promote_types(tensors) -> np.dtype:
    """torch's result dtype: dimensioned tensors decide within a category; zero-dim tensors
    decide only when they bring a higher category (bool < integer < floating)."""
    dims = [t._data.dtype for t in tensors if t._data.ndim > 0]
    zero = [t._data.dtype for t in tensors if t._data.ndim == 0]
    best = _within_category(dims) if dims else None
    if zero:
        z = _within_category(zero)
        if best is None or _cat(z) > _cat(best):
            best = z
    return best


def _within_category(dts) -> np.dtype:
    """The result of the highest category present, from its members only: torch gives
    int64 with float32 → float32, where NumPy's result_type would say float64."""
    top = max(_cat(d) for d in dts)
    return np.result_type(*[d for d in dts if _cat(d) == top])


def _cat(dt) -> int:
    if dt == np.bool_:
        return 0
    return 2 if dt.kind == "f" else 1


def apply(op: OpDef, tensors: tuple, params: dict | None = None) -> Tensor:
    """Run ``op`` forward on ``tensors`` and, where grad is needed, attach its grad_fn."""
    # Hot path (every op of every program): plain loops, no generators, locals only.
    n = len(tensors)
    if op.promote and n > 1:
        first = tensors[0]._data.dtype
        for t in tensors:
            dt = t._data.dtype
            if dt is not first and dt != first:
                target = promote_types(tensors)
                tensors = tuple(t if t._data.dtype == target else _cast(t, target) for t in tensors)
                break
    if n == 1:
        arrays = (tensors[0]._data,)
    elif n == 2:
        arrays = (tensors[0]._data, tensors[1]._data)
    elif n == 3:  # addmm (nn.Linear), where, addcmul, ...
        arrays = (tensors[0]._data, tensors[1]._data, tensors[2]._data)
    else:
        arrays = [t._data for t in tensors]
    budget = _limits.ACTIVE
    if budget is not None:  # the program runner's limits: refuse before allocating
        _limits.check_op(op, arrays, params)
    res = op.forward(*arrays, **params) if params else op.forward(*arrays)
    extras = None
    if type(res) is not np.ndarray:
        if type(res) is tuple:
            res, extras = res
        if type(res) is not np.ndarray:
            res = np.asarray(res)
    if budget is not None:
        _limits.count_result(res, op.view)
    graph = tensors[: n - op.aux] if op.aux else tensors
    needs = False
    if grad_mode._enabled and res.dtype.kind == "f":
        for t in graph:
            if t._requires_grad:
                needs = True
                break
        if needs:
            for t in graph:  # a view whose base changed since its history was made: read it again
                if t._base is not None:
                    view_history.current(t)
    if op.view:
        first = tensors[0]
        out = _make(res, needs, first._vc)
        out._base = first._base if first._base is not None else first
        out._gv = first._vc[0]
        if needs:
            view_history.note(out)
    else:
        out = _make(res, needs)
    if needs:
        node = (op.node_class or node_class(op))(op, tensors, out, params, extras)
        out._grad_fn = node
        rec = _trace.ACTIVE
        if rec is not None:
            rec.op_node(node, op, tensors, out, params, extras)
    elif _trace.ACTIVE is not None:
        _cuts(op, graph, out, res)
    level = _tangents.ACTIVE
    if level is not None:  # forward mode: the output's tangent from the inputs' (engine.tangents)
        _tangents.push(level, op, tensors, out, params, extras)
    return out


def _cuts(op: OpDef, graph, out: Tensor, res: np.ndarray) -> None:
    """An op whose output needs no grad although an input does (under no_grad, or an integer or
    boolean result): the recording notes the cut (``trace.Cut``)."""
    how = "no_grad" if not grad_mode._enabled else "integer" if res.dtype.kind != "f" else None
    if how is not None:
        for t in graph:
            if t._requires_grad:
                _trace.note_cut(t, out, how, op.name)


def _cast(t: Tensor, np_dtype) -> Tensor:
    """A dtype conversion that keeps the graph (ToCopyBackward0 in PyTorch)."""

    return apply(OPS["to_copy"], (t,), {"dtype": np.dtype(np_dtype)})


def check_inplace(target: Tensor, others: tuple = ()) -> None:
    """PyTorch refuses an in-place op on a leaf that requires grad (or on a view of one) while
    grad mode is on, and an in-place change of an inference tensor outside inference mode."""
    if type(target._vc) is not list and not grad_mode._inference:
        raise RuntimeError(errors.INFERENCE_INPLACE)
    if not grad_mode._enabled:
        return
    fn = target._grad_fn
    if target._requires_grad and fn is None:
        raise RuntimeError(errors.LEAF_INPLACE)
    if fn is not None and fn.multi:
        raise RuntimeError(errors.multi_view_inplace(target._nr, fn.name()))
    base = target._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(errors.VIEW_LEAF_INPLACE)


def apply_inplace(op: OpDef, target: Tensor, others: tuple, params: dict | None = None, skip=None) -> Tensor:
    """``target.op_(others)``: compute out of place, then write into target's storage.

    The target's old history becomes the new node's first input, as in PyTorch; the version
    counter is bumped so rules that saved the old value notice. On a view whose data belongs to
    a graph, the base is rebased instead (see ``_inplace_on_view``). The views of a changed base
    read their history again from it (``engine.view_history``), but ``skip``.
    """
    check_inplace(target, others)
    base = target._base
    if base is not None and grad_mode._enabled:
        if base._requires_grad or target._requires_grad or any(t._requires_grad for t in others):
            return _inplace_on_view(op, target, base, others, params)
    result = _out_of_place(op, target, others, params)
    result_data = result._data
    if result_data.dtype != target._data.dtype:
        result_data = result_data.astype(target._data.dtype)
    # no op records a change without a graph node: the trace notes the new value on its own
    pending = _trace.before_update(target) if result._grad_fn is None else None
    np.copyto(target._data, result_data)
    target._vc[0] += 1
    _trace.after_update(target, op.name, pending)
    level = _tangents.ACTIVE
    if level is not None:
        level.set(target, level.get(result))
    fn = result._grad_fn
    if fn is not None:
        target._grad_fn = fn
        target._requires_grad = True
        fn.resave_output(target)  # the node's output is the target itself now
        if len(target._vc) > 1 and target._base is None:
            view_history.refresh(target, skip)
    return target


def _out_of_place(op: OpDef, target: Tensor, others: tuple, params) -> Tensor:
    """The in-place op computed on a snapshot of ``target`` (its value and history), checked
    against the target's dtype and shape as PyTorch checks them."""
    keep = op.saves and "a" in op.saves
    old = Tensor._make(target._data.copy() if keep else target._data, target._requires_grad, [target._vc[0]])
    old._grad_fn = target._grad_fn
    level = _tangents.ACTIVE
    if level is not None:
        level.set(old, level.get(target))
    _trace.share_node(old, target)
    old._name = target._name
    result = apply(op, (old, *others), params)
    if result._data.dtype != target._data.dtype:
        if not (target.dtype.is_floating_point or result._data.dtype.kind != "f"):
            raise RuntimeError(
                f"result type {dtypes.scalar_name(dtypes.from_numpy_dtype(result._data.dtype))} can't be "
                f"cast to the desired output type {dtypes.scalar_name(target.dtype)}"
            )
    if result._data.shape != target._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, target._data.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, result._data.shape))}]"
        )
    return result


def _inplace_on_view(op: OpDef, target: Tensor, base: Tensor, others: tuple, params) -> Tensor:
    """An in-place op on a view (``y[0] += x``, ``h[1:].mul_(2)``, ``h.view(-1).add_(1)``).

    As in PyTorch, the base is what changes: the op runs out of place on the view, the result is
    written into the base through CopySlices (which also updates the view's memory), and the
    view's new history is read back from the new base. The view's place in the base is found
    from the arrays' memory layout, so any view of a dense base works.
    """

    key = view_position(target, base, overlap_ok=False)
    if key is None:
        raise RuntimeError(errors.VIEW_INPLACE_UNSUPPORTED)
    result = _out_of_place(op, target, others, params)
    if result._data.dtype != target._data.dtype:
        result = _cast(result, target._data.dtype) if result._requires_grad else Tensor._make(
            result._data.astype(target._data.dtype))
    apply_inplace(OPS["copy_slices"], base, (result,), {"key": key, "accumulate": False}, skip=target)
    if result._grad_fn is not None and base._grad_fn is not None:  # CopySlices holds the op's node
        base._grad_fn.wrap(result._grad_fn)
        _trace.wrapped(base._grad_fn, result._grad_fn)
    fresh = apply(OPS["as_strided"], (base,), {"key": key, "in_shape": tuple(base._data.shape)})
    _trace.forget(target)
    level = _tangents.ACTIVE
    if level is not None:
        level.set(target, level.get(fresh))
    if fresh._grad_fn is not None:
        target._grad_fn = fresh._grad_fn
        target._requires_grad = True
        target._gv = target._vc[0]
    return target


def view_position(view: Tensor, base: Tensor, overlap_ok: bool = True):
    """The index key that reads ``view`` from ``base`` (the positions of its elements), or None when
    the view does not sit inside a contiguous base."""
    pos = _positions(view._data, base._data, overlap_ok)
    return None if pos is None else encode_key(np.unravel_index(pos, base._data.shape))


def _positions(view: np.ndarray, base: np.ndarray, overlap_ok: bool):
    """Flat positions in ``base`` of each element of ``view`` (an int64 array shaped like the
    view), or None when the view does not sit inside a contiguous base. Writing through a view
    whose elements overlap (``overlap_ok`` False) is refused, as in PyTorch."""
    isz = base.itemsize
    dense = base.flags.c_contiguous or base.flags.f_contiguous
    if not dense or view.itemsize != isz or view.size == 0:
        return None
    off = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if off < 0 or off % isz or any(s % isz for s in view.strides):
        return None
    start = off // isz
    steps = [s // isz for s in view.strides]
    hi = start + sum((n - 1) * st for n, st in zip(view.shape, steps) if st > 0)
    lo = start + sum((n - 1) * st for n, st in zip(view.shape, steps) if st < 0)
    if lo < 0 or hi >= base.size:
        return None
    if not overlap_ok and any(st == 0 and n > 1 for n, st in zip(view.shape, steps)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location. Please clone() the tensor before performing the operation.")
    # Each memory slot of the base holds its element's logical (row-major) position; the view's
    # strides over that memory give the positions of the view's elements.
    logical = np.empty(base.shape, dtype=np.int64, order="C" if base.flags.c_contiguous else "F")
    logical[...] = np.arange(base.size, dtype=np.int64).reshape(base.shape)
    memory = np.lib.stride_tricks.as_strided(logical, (base.size,), (8,))
    pos = np.lib.stride_tricks.as_strided(memory[start:], view.shape, tuple(st * 8 for st in steps))
    return np.array(pos)

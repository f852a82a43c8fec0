"""Running one op of the table forward: compute, build the grad_fn, record it.

Every differentiable op of the engine goes through ``apply`` (or ``apply_inplace``), so grad
mode, requires_grad propagation, type promotion and tracing happen in exactly one place.
"""

from __future__ import annotations

import numpy as np

from . import dtypes, errors, grad_mode
from . import limits as _limits
from . import trace as _trace
from .function import Node
from .ops.table import OpDef
from .tensor import Tensor

_FLOAT_NP = (np.float16, np.float32, np.float64)


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
    if op.view:
        first = tensors[0]
        out = Tensor._make(res, needs, first._vc)
        out._base = first._base if first._base is not None else first
    else:
        out = Tensor._make(res, needs)
    if needs:
        node = Node(op, tensors, out, params, extras)
        out._grad_fn = node
        rec = _trace.ACTIVE
        if rec is not None:
            _record(rec, op, node, tensors, graph, out, params, extras)
    return out


def _record(rec, op: OpDef, node, tensors, graph, out, params, extras) -> None:
    """Hand one op to the active recorder (only ever called while recording)."""
    saved = [(k, (out if k == "out" else tensors[ord(k) - 97])._data) for k in op.saves if k != "indices"]
    if extras:
        saved += [(k, v) for k, v in extras.items() if isinstance(v, np.ndarray)]
    formulas = op.formulas * len(graph) if op.variadic else op.formulas
    rec.op_node(node, op.name, graph, out, saved, params or {}, formulas)


def _cast(t: Tensor, np_dtype) -> Tensor:
    """A dtype conversion that keeps the graph (ToCopyBackward0 in PyTorch)."""
    from .ops.table import OPS

    return apply(OPS["to_copy"], (t,), {"dtype": np.dtype(np_dtype)})


def check_inplace(target: Tensor, others: tuple = ()) -> None:
    """PyTorch refuses an in-place op on a leaf that requires grad (or a view of one) while grad
    mode is on. gradviz does not rebase views, so it refuses in-place ops on other views whose
    data belongs to a graph, with a clear message instead of a silently wrong gradient."""
    if not grad_mode._enabled:
        return
    if target._requires_grad and target._grad_fn is None:
        raise RuntimeError(errors.LEAF_INPLACE)
    base = target._base
    if base is not None:
        if base._requires_grad and base._grad_fn is None:
            raise RuntimeError(errors.VIEW_LEAF_INPLACE)
        if base._requires_grad or any(t._requires_grad for t in others):
            raise RuntimeError(errors.VIEW_INPLACE_UNSUPPORTED)


def apply_inplace(op: OpDef, target: Tensor, others: tuple, params: dict | None = None) -> Tensor:
    """``target.op_(others)``: compute out of place, then write into target's storage.

    The target's old history becomes the new node's first input, as in PyTorch; the version
    counter is bumped so rules that saved the old value notice.
    """
    check_inplace(target, others)
    keep = op.saves and "a" in op.saves
    old = Tensor._make(target._data.copy() if keep else target._data, target._requires_grad, [target._vc[0]])
    old._grad_fn = target._grad_fn
    old._trace = target._trace
    old._name = target._name
    result = apply(op, (old, *others), params)
    if result._data.dtype != target._data.dtype:
        if target.dtype.is_floating_point or result._data.dtype.kind != "f":
            result_data = result._data.astype(target._data.dtype)
        else:
            raise RuntimeError(
                f"result type {dtypes.from_numpy_dtype(result._data.dtype).name.capitalize()} can't be "
                f"cast to the desired output type {target.dtype.name.capitalize()}"
            )
    else:
        result_data = result._data
    if result_data.shape != target._data.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, target._data.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, result_data.shape))}]"
        )
    np.copyto(target._data, result_data)
    target._vc[0] += 1
    target._trace = None  # its old node keeps the old value; a later use is a new node
    fn = result._grad_fn
    if fn is not None:
        target._grad_fn = fn
        target._requires_grad = True
        fn.resave_output(target)  # the node's output is the target itself now
    return target

"""Every op of the table against PyTorch in float64: values, gradients, grad_fn names and
next_functions, over the shape families of ``oracle_cases``; and no op without a case."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest
import torch
from oracle_cases import all_cases

import engine
from engine.ops.table import OPS

CASES = all_cases()
RTOL = 1e-10


def _leaves(lib, arrays):
    out = []
    for a in arrays:
        if a.dtype == np.float64:
            out.append(lib.tensor(a.tolist(), dtype=lib.float64, requires_grad=True))
        elif a.dtype == np.bool_:
            out.append(lib.tensor(a.tolist(), dtype=lib.bool))
        else:
            out.append(lib.tensor(a.tolist(), dtype=lib.int64))
    return out


def _close(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} != torch {theirs.shape}"
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=RTOL, err_msg=what)


def _next_names(fn) -> list:
    return [(None if f is None else f.name(), i) for f, i in fn.next_functions]


def _graph_ops(out) -> set:
    """Table keys of every node reachable from ``out`` (iterative)."""
    seen, stack, ops = set(), [out.grad_fn], set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if hasattr(fn, "op"):
            ops.add(fn.op.name)
        stack.extend(f for f, _ in fn.next_functions)
    return ops


def _rng(case) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(case.id.encode()))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_torch(case):
    arrays = case.inputs(_rng(case))
    ours_in, theirs_in = _leaves(engine, arrays), _leaves(torch, arrays)
    ours, theirs = case.fn(engine, *ours_in), case.fn(torch, *theirs_in)

    _close(np.asarray(ours.detach().tolist(), dtype=np.float64),
           theirs.detach().double().numpy(), f"{case.id}: forward value")
    assert ours.grad_fn is not None and theirs.grad_fn is not None
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert _next_names(ours.grad_fn) == _next_names(theirs.grad_fn)
    assert case.op in _graph_ops(ours), f"{case.id}: the graph has no {case.op!r} node"

    g = np.random.default_rng(1).uniform(-1, 1, tuple(theirs.shape))
    if case.backward_error:
        with pytest.raises(RuntimeError) as theirs_error:
            theirs.backward(torch.tensor(g, dtype=theirs.dtype))
        with pytest.raises(RuntimeError, match=re.escape(str(theirs_error.value))):
            ours.backward(engine.tensor(g.tolist(), dtype=ours.dtype))
        return
    ours.backward(engine.tensor(g.tolist(), dtype=ours.dtype))
    theirs.backward(torch.tensor(g, dtype=theirs.dtype))
    for k, (a, b) in enumerate(zip(ours_in, theirs_in)):
        if not b.requires_grad:
            continue
        if b.grad is None:
            assert a.grad is None, f"{case.id}: input {k} got a grad torch does not give"
            continue
        assert a.grad is not None, f"{case.id}: input {k} has no grad"
        _close(np.asarray(a.grad.tolist(), dtype=np.float64), b.grad.numpy(), f"{case.id}: grad of input {k}")


def test_every_op_has_an_oracle_case():
    covered = {c.op for c in CASES}
    missing = sorted(set(OPS) - covered)
    assert not missing, f"ops without an oracle case: {missing}"


def test_cases_name_real_ops():
    unknown = sorted({c.op for c in CASES} - set(OPS))
    assert not unknown, f"cases for ops that are not in the table: {unknown}"


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4)])
def test_grad_fn_names_of_python_scalar_forms(shape):
    x = np.random.default_rng(0).uniform(0.5, 2.0, shape)
    forms = {
        "1 - x": lambda v: 1 - v,
        "2 / x": lambda v: 2 / v,
        "2 ** x": lambda v: 2 ** v,
        "x ** 2": lambda v: v ** 2,
        "x ** x": lambda v: v ** v,
    }
    for text, f in forms.items():
        a = engine.tensor(x.tolist(), dtype=engine.float64, requires_grad=True)
        b = torch.tensor(x, requires_grad=True)
        oa, ob = f(a), f(b)
        assert oa.grad_fn.name() == ob.grad_fn.name(), text
        assert _next_names(oa.grad_fn) == _next_names(ob.grad_fn), text


# ---- forward mode: every op's rule against torch.func.jvp ----------------------------------------------
def test_every_op_has_a_forward_mode_rule():
    lacking = sorted(name for name, op in OPS.items()
                     if len(op.jvps) != len(op.vjps) or len(op.jvp_formulas) != len(op.jvps)
                     or not all(callable(rule) for rule in op.jvps))
    assert not lacking, f"ops without a forward-mode rule (and formula) per input: {lacking}"


def _jvp(lib, case, arrays, tangents):
    """``lib.func.jvp`` of the case's function in its float inputs (the others held fixed)."""
    leaves = _leaves(lib, arrays)
    floats = [i for i, a in enumerate(arrays) if a.dtype == np.float64]

    def f(*xs):
        args = list(leaves)
        for i, x in zip(floats, xs):
            args[i] = x
        return case.fn(lib, *args)

    primals = tuple(lib.tensor(arrays[i].tolist(), dtype=lib.float64) for i in floats)
    return lib.func.jvp(f, primals, tuple(lib.tensor(t.tolist(), dtype=lib.float64) for t in tangents))


def _outcome(lib, case, arrays, tangents):
    try:
        return _jvp(lib, case, arrays, tangents), None
    except (RuntimeError, NotImplementedError) as e:  # the case has no forward mode in PyTorch either
        return None, (type(e).__name__, str(e))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_forward_mode_matches_torch(case):
    """The output's tangent by the engine's forward-mode rules (``engine.func.jvp``) equals
    ``torch.func.jvp``'s, or both refuse with the same error."""
    arrays = case.inputs(_rng(case))
    rng = np.random.default_rng(2)
    tangents = [rng.uniform(-1, 1, a.shape) for a in arrays if a.dtype == np.float64]
    theirs, their_error = _outcome(torch, case, arrays, tangents)
    ours, our_error = _outcome(engine, case, arrays, tangents)
    if their_error is not None:
        assert our_error is not None and our_error[0] == their_error[0], (our_error, their_error)
        assert case.backward_error or our_error == their_error, (our_error, their_error)
        return
    assert our_error is None, our_error
    _close(np.asarray(ours[0].tolist(), dtype=np.float64), theirs[0].double().numpy(), f"{case.id}: primal")
    _close(np.asarray(ours[1].tolist(), dtype=np.float64), theirs[1].double().numpy(), f"{case.id}: tangent")

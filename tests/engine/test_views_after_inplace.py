"""A view whose base (or another view of it) was changed in place reads its history again from the
base, as PyTorch does (AsStridedBackward0 on the base's new grad_fn): the same grad_fn names and
next_functions, the same gradients, the same version error, each program run on the engine and on
torch."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch

import engine


def _names(fn):
    return [(None if f is None else type(f).__name__, i) for f, i in fn.next_functions]


def _run(t, program):
    a = t.tensor([[1.0, -2.0], [0.5, 3.0], [-1.5, 2.5]], dtype=t.float64, requires_grad=True)
    b = t.tensor([0.25, -0.75], dtype=t.float64, requires_grad=True)
    out, seen = program(t, a, b)
    out.sum().backward()
    return ([type(v.grad_fn).__name__ for v in seen], [_names(v.grad_fn) for v in seen],
            a.grad.tolist(), None if b.grad is None else b.grad.tolist())


def row_then_base_mul_(t, a, b):
    """A row read before its base is doubled in place: its gradient includes the doubling."""
    x = a * 1
    r = x[1]
    x.mul_(2)
    return r * 3, [r]


def sibling_view(t, a, b):
    """One slice changed in place, then another view of the same base used."""
    x = a * 1
    r, s = x[0], x[2]
    s.add_(b)
    return r * s, [r, s]


def view_of_view(t, a, b):
    """A view of a view changed in place: both read again from the root."""
    x = a * 1
    y = x[0:2]
    z = y[0]
    z.mul_(b)
    return y * 2, [y, z]


def expanded(t, a, b):
    """An expanded view (its elements overlap) of a base changed in place."""
    x = b * 1
    e = x.expand(2, 2)
    x.mul_(3)
    return e * a[:2], [e]


def no_grad_change(t, a, b):
    """The base changed under no_grad: the view is read again from the base's unchanged history
    (AsStridedBackward0 on it) when an op or the program next asks for its grad_fn."""
    x = a * 2
    r = x[1]
    s = x.view(-1)
    with t.no_grad():
        x.mul_(4)
    return r * r + s[:2], [r, s]


def view_changed_under_no_grad(t, a, b):
    """The view itself changed under no_grad: read again too; its base keeps its history."""
    x = a * 2
    r = x[0:2]
    with t.no_grad():
        r.add_(1)
    return r * x[0:2], [r, x]


PROGRAMS = {f.__name__: f for f in (row_then_base_mul_, sibling_view, view_of_view, expanded, no_grad_change,
                                     view_changed_under_no_grad)}


@pytest.mark.parametrize("name", PROGRAMS)
def test_views_read_again_from_their_changed_base(name):
    ours, theirs = _run(engine, PROGRAMS[name]), _run(torch, PROGRAMS[name])
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)
    assert (ours[3] is None) == (theirs[3] is None)
    if ours[3] is not None:
        np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)


def test_the_version_error_names_as_strided():
    def program(t):
        a = t.ones(4, 2, requires_grad=True)
        v = (a * 2)[1:3]
        w = v * v
        v.mul_(10)
        try:
            w.sum().backward()
        except RuntimeError as e:
            return str(e)

    assert program(engine) == program(torch)
    assert "output 0 of AsStrided," in program(engine)


def test_an_output_of_unbind_cannot_be_read_again_after_its_base_changed():
    def program(t):
        h = t.ones(2, 3, requires_grad=True) * 1
        a, _ = h
        with t.no_grad():
            h.mul_(2)
        try:
            return str(a.grad_fn)
        except RuntimeError as e:
            return str(e)

    assert program(engine) == program(torch)
    assert "Output 0 of Unbind is a view and its base" in program(engine)


def test_a_base_read_in_a_loop_keeps_only_its_live_views():
    w = engine.ones(10, requires_grad=True)
    x = w * 1
    for i in range(1000):
        (x[i % 10] * 2).sum()
    gc.collect()
    assert len(x._vc) < 70  # the version, and at most one pruning period of views

"""An in-place op through a view makes CopySlices, whose next_functions are torch's: the base's
grad_fn, then the changed op's inputs but the view (``x[:, 0].mul_(2)`` lists ``None`` for the 2,
``add_(y)`` lists y's grad_fn), and the same gradients. Each program runs on the engine and on torch."""

from __future__ import annotations

import pytest
import torch

import engine


def _names(fn, depth=3):
    if fn is None or depth == 0:
        return None if fn is None else type(fn).__name__
    return (type(fn).__name__, [(_names(f, depth - 1), nr) for f, nr in fn.next_functions])


def mul_by_a_number(t, x, w):
    z = (x * 1).clone()
    z[:, 0].mul_(2)
    return z


def add_a_slice(t, x, w):
    z = (x * 1).clone()
    z[:, 0].add_(x[:, 1])
    return z


def times_a_leaf(t, x, w):
    z = (x * 1).clone()
    z[:, 1] *= w
    return z


def assigned(t, x, w):
    z = (x * 1).clone()
    z[:, 0] = w * 2
    return z


def view_of_a_view(t, x, w):
    z = x * 1
    z[0:2][0].mul_(w[0])
    return z


PROGRAMS = [mul_by_a_number, add_a_slice, times_a_leaf, assigned, view_of_a_view]


def _run(t, program):
    x = t.tensor([[1.0, -2.0], [0.5, 3.0], [-1.5, 2.5]], dtype=t.float64, requires_grad=True)
    w = t.tensor([0.25, -0.75, 2.0], dtype=t.float64, requires_grad=True)
    z = program(t, x, w)
    graph = _names(z.grad_fn)
    (z * t.arange(6.0, dtype=t.float64).reshape(3, 2)).sum().backward()
    return graph, x.grad.tolist(), None if w.grad is None else w.grad.tolist()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_copy_slices_lists_torchs_next_functions(program):
    assert _run(engine, program) == _run(torch, program)

"""Ops with several outputs make one node, as in PyTorch: unpacking a tensor (``a, b, c = p``),
``unbind``, ``split`` and ``chunk`` give tensors that share one grad_fn (UnbindBackward0,
SplitBackward0, SplitWithSizesBackward0), each with its own ``output_nr``; a consumer's
``next_functions`` names the output it read; the backward gets the gradients of the outputs that were
used and zeros for the others. Each program runs on the engine and on torch, compared exactly."""

from __future__ import annotations

import warnings

import pytest
import torch

import engine


def _structure(fn, seen=None) -> list:
    """Every node below ``fn``: its class name and next_functions (class name, output number)."""
    seen = {} if seen is None else seen
    if fn is None or fn in seen:
        return []
    seen[fn] = len(seen)
    nexts = [(None if f is None else type(f).__name__, nr) for f, nr in fn.next_functions]
    out = [(type(fn).__name__, nexts)]
    for f, _ in fn.next_functions:
        out += _structure(f, seen)
    return out


def unpacked(t, p):
    """d2l's ``a, b, c = params``: one UnbindBackward0; the third piece is never used."""
    a, b, _ = p * 1
    return a * b + b, [a, b]


def rows_of_a_loop(t, p):
    """Iterating over a matrix unbinds it; a row read twice sums both uses."""
    rows = list(p.reshape(2, 3))
    return rows[1] * rows[1] + rows[0].exp(), rows


def gates(t, p):
    """An LSTM's gates: chunk into four pieces, two of them used."""
    i, f, g, o = (p.reshape(3, 4) * 2).chunk(4, dim=1)
    return i.sigmoid() * g.tanh(), [i, g, o]


def listed_sizes(t, p):
    """split with a list of sizes; only the last piece is used."""
    a, b, c = t.split(p, [1, 2, 3])
    return c * 3, [a, c]


def piece_as_root(t, p):
    """backward from a piece itself: the seed goes to its output."""
    a, b = (p * 1).reshape(2, 3).unbind(0)
    return b, [a, b]


PROGRAMS = [unpacked, rows_of_a_loop, gates, listed_sizes, piece_as_root]


def _run(t, program):
    p = t.tensor([0.5, -1.0, 2.0, 1.5, -0.25, 0.75, 1.0, -2.0, 0.3, 0.6, -0.9, 1.2], dtype=t.float64,
                 requires_grad=True)
    if program in (unpacked,):
        p = t.tensor([0.5, -1.0, 2.0], dtype=t.float64, requires_grad=True)
    elif program in (rows_of_a_loop, listed_sizes, piece_as_root):
        p = t.tensor([0.5, -1.0, 2.0, 1.5, -0.25, 0.75], dtype=t.float64, requires_grad=True)
    out, pieces = program(t, p)
    shared = [v.grad_fn is pieces[0].grad_fn for v in pieces]
    numbers = [v.output_nr for v in pieces]
    graph = _structure(out.grad_fn)
    out.sum().backward()
    return shared, numbers, graph, p.grad.tolist()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_same_nodes_numbers_and_gradients_as_torch(program):
    ours, theirs = _run(engine, program), _run(torch, program)
    assert ours[:3] == theirs[:3]
    assert ours[3] == pytest.approx(theirs[3], rel=1e-14, abs=1e-15)  # sigmoid / tanh round as libm does


def _hooks_and_retain(t):
    p = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x, y, z = p
    x.retain_grad()
    y.register_hook(lambda g: g * 2)
    (x * 5 + y * 7).backward()
    with warnings.catch_warnings():  # z is not a leaf and keeps no grad: both warn so
        warnings.simplefilter("ignore")
        return x.grad.tolist(), p.grad.tolist(), z.grad is None


def test_hooks_and_retain_grad_are_per_output():
    assert _hooks_and_retain(engine) == _hooks_and_retain(torch)


def _second_order(t):
    p = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b, _ = p
    (g,) = t.autograd.grad(a * a * b, p, create_graph=True)
    names = _structure(g.grad_fn)
    (h,) = t.autograd.grad(g.sum(), p)
    (ga,) = t.autograd.grad(a * b * b, a)  # the gradient of one piece, not of the whole
    return g.tolist(), names, h.tolist(), ga.tolist()


def test_second_order_and_grad_of_a_piece():
    assert _second_order(engine) == _second_order(torch)


def _inplace_error(t, split):
    m = t.ones(3, 2, requires_grad=True) * 1
    a, b = m.split([1, 2]) if split else m.unbind(1)
    try:
        b.add_(2)
    except RuntimeError as e:
        return str(e)
    return None


@pytest.mark.parametrize("split", [False, True])
def test_an_output_cannot_be_changed_in_place(split):
    ours = _inplace_error(engine, split)
    assert ours is not None and ours == _inplace_error(torch, split)


def test_the_trace_records_one_node_and_the_output_of_each_edge():
    from engine.trace import recording

    with recording() as rec:
        p = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a, b, c = p
        (a * c).backward()
    trace = rec.trace
    unbinds = [n for n in trace.nodes if n.kind == "op" and n.grad_fn == "UnbindBackward0"]
    assert len(unbinds) == 1
    mul = next(n for n in trace.nodes if n.kind == "op" and n.op == "mul")
    assert [trace.edges[e].output for e in mul.inputs] == [0, 2]
    step = next(s for s in trace.passes[0].steps if s.node == unbinds[0].id)
    assert step.upstream.tolist() == [3.0, 0.0, 1.0]  # c's gradient, zero for b, a's
    assert sorted(trace.edges[f.edge].output for f in step.received) == [0, 2]

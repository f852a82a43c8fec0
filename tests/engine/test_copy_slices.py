"""An in-place op through a view makes CopySlices, whose next_functions are torch's: the base's
grad_fn, then the changed op's inputs but the view (``x[:, 0].mul_(2)`` lists ``None`` for the 2,
``add_(y)`` lists y's grad_fn), and the same gradients; the backward walk runs it as torch does, one
step that runs the wrapped op's rules at the written part. Each program runs on the engine and on torch."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from test_explanations import check_step
from torch_graph import torch_nodes

import engine
from app.worker.serialize import serialize_trace
from engine.trace import recording


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


def column_times_a_leaf(t, x, w):
    z = (x * 1).clone()
    z[:, 1].mul_(w)
    return z


PROGRAMS = [mul_by_a_number, add_a_slice, times_a_leaf, assigned, view_of_a_view, column_times_a_leaf]


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


def _torch_walk(program):
    """The grad_fn names torch's engine runs for ``program``, in its order (a pre-hook on each Node)."""
    x, w = _leaves(torch)
    z = program(torch, x, w)
    loss = (z * torch.arange(6.0, dtype=torch.float64).reshape(3, 2)).sum()
    order = []
    for fn in torch_nodes(loss.grad_fn):
        fn.register_prehook(lambda g, fn=fn: order.append(fn.name().rsplit("::", 1)[-1]))
    loss.backward()
    return order


def _engine_walk(program):
    """The steps the engine's walk records for ``program``: each op's grad_fn name, AccumulateGrad for
    a leaf; and the recorded pass's answer (with the steps' worked arithmetic)."""
    with recording() as rec:
        x, w = _leaves(engine)
        z = program(engine, x, w)
        (z * engine.arange(6.0, dtype=engine.float64).reshape(3, 2)).sum().backward()
    nodes = rec.trace.nodes
    order = [nodes[s.node].grad_fn.rsplit("::", 1)[-1] if s.kind == "op" else "AccumulateGrad"
             for s in rec.trace.passes[0].steps]
    return order, json.loads(json.dumps(serialize_trace(rec.trace)))


def _leaves(t):
    x = t.tensor([[1.0, -2.0], [0.5, 3.0], [-1.5, 2.5]], dtype=t.float64, requires_grad=True)
    w = t.tensor([0.25, -0.75, 2.0], dtype=t.float64, requires_grad=True)
    return x, w


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_the_walk_plays_copy_slices_as_torch_runs_it(program):
    """One step for CopySlices, none for the wrapped op or the view's node: torch's order of nodes."""
    order, _ = _engine_walk(program)
    assert order == _torch_walk(program)


def test_a_copy_slices_step_says_where_the_wrapped_op_ran_and_its_arithmetic_gives_what_was_sent():
    """``z[:, 1].mul_(w)``: the step picks G at the written part, runs MulBackward0's rule there and
    writes its gradient back into G for the base; w gets the rule's other gradient, which is torch's."""
    _, answer = _engine_walk(column_times_a_leaf)
    nodes = {n["id"]: n for n in answer["graph"]["nodes"]}
    step = next(s for s in answer["backward"][0]["steps"] if nodes[s["node"]]["name"].endswith("CopySlices"))
    node = nodes[step["node"]]
    edges = {e["id"]: e for e in answer["graph"]["edges"]}
    base, leaf = (nodes[edges[e]["source"]] for e in node["walked"])
    assert base["name"] == "CloneBackward0" and leaf["kind"] == "leaf"
    assert leaf["value"]["data"] == [0.25, -0.75, 2.0]  # w, as torch's next_functions list it
    assert check_step(step, node) == []
    says = step["explain"]["says"]
    assert "MulBackward0" in says["en"] and "MulBackward0" in says["zh"] and says["en"] != says["zh"]
    base, to_w = step["explain"]["inputs"]
    assert [s["op"] for s in base["steps"]] == ["pick", "mul", "write_at"]
    assert [s["op"] for s in to_w["steps"]] == ["pick", "mul"]
    x, w = _leaves(torch)
    column_times_a_leaf(torch, x, w)[:, 1].sum().backward()  # the loss reads column 1 of z as 1, 3, 5
    sent = {f["edge"]: f["grad"] for f in step["sent"]}
    shown = np.asarray(sent[node["walked"][1]]["data"])
    assert np.allclose(shown, w.grad.numpy() * [1, 3, 5])  # G at the written column is 1, 3, 5

"""The recorded backward steps: a valid reverse topological order, flows that add up to every
leaf's final .grad, fan-out sums, and recording that changes no number."""

from __future__ import annotations

import ast

import numpy as np
import pytest

import engine
from engine import trace


def _mlp(t):
    t.manual_seed(3)
    x = t.randn(4, 3, dtype=t.float64)
    w1 = t.randn(3, 5, dtype=t.float64, requires_grad=True)
    b1 = t.zeros(5, dtype=t.float64, requires_grad=True)
    w2 = t.randn(5, 2, dtype=t.float64, requires_grad=True)
    h = t.relu(x @ w1 + b1)
    out = t.sigmoid(h @ w2)
    loss = ((out - 0.5) ** 2).mean() + (w1 * w1).sum() * 0.01
    loss.backward()
    return [w1, b1, w2]


def _fanout(t):
    x = t.tensor([1.0, -2.0, 3.0], dtype=t.float64, requires_grad=True)
    y = x * x + x.exp() + x[0] * x  # x feeds five edges of four ops
    z = t.cat([y, y[1:]]).max()
    z.backward()
    return [x]


def _inplace_and_index(t):
    x = t.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=t.float64, requires_grad=True)
    w = t.tensor([0.5, -1.0], dtype=t.float64, requires_grad=True)
    h = x * 1.0
    h[0] = w * 3
    h.mul_(2)
    s = h[[0, 1, 1]].sum(0) @ w
    s.backward()
    return [x, w]


def _two_passes(t):
    x = t.tensor([2.0, 3.0], dtype=t.float64, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    (y * 3).backward()
    return [x]


PROGRAMS = {"mlp": _mlp, "fan-out": _fanout, "inplace-index": _inplace_and_index, "two-passes": _two_passes}


def _run_recorded(program):
    with trace.recording() as rec:
        leaves = program(engine)
    return rec.trace, leaves


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_steps_form_a_reverse_topological_order(name):
    tr, _ = _run_recorded(PROGRAMS[name])
    assert tr.passes
    for bp in tr.passes:
        position = {s.node: s.index for s in bp.steps}
        assert len(position) == len(bp.steps), "a node was visited twice in one pass"
        assert [s.index for s in bp.steps] == list(range(len(bp.steps)))
        for e in tr.edges:
            if e.source in position and e.target in position:
                assert position[e.target] < position[e.source], f"edge {e.id} visited out of order"
        assert bp.steps[0].node == bp.root


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_flows_add_up(name):
    tr, leaves = _run_recorded(PROGRAMS[name])
    for bp in tr.passes:
        for step in bp.steps[1:]:
            total = sum(np.asarray(f.grad) for f in step.received)
            np.testing.assert_allclose(total, step.upstream, rtol=1e-12, atol=1e-12)
        for step in bp.steps:
            if step.kind == "leaf":
                before = 0 if step.grad_before is None else step.grad_before
                np.testing.assert_allclose(step.grad_after, before + step.upstream, rtol=1e-12)
            else:
                node = tr.nodes[step.node]
                assert [f.edge for f in step.sent] == node.inputs
    # the last write into each leaf is its final .grad
    for leaf in leaves:
        nid = trace.node_id(tr, leaf)
        writes = [s for bp in tr.passes for s in bp.steps if s.node == nid and s.kind == "leaf"]
        assert writes, "leaf never written"
        np.testing.assert_array_equal(writes[-1].grad_after, leaf.grad.numpy())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sent_flows_reach_their_sources(name):
    """What an op sends down an edge is what its source receives along that edge."""
    tr, _ = _run_recorded(PROGRAMS[name])
    for bp in tr.passes:
        sent = {f.edge: f.grad for s in bp.steps for f in s.sent if f.grad is not None}
        for s in bp.steps:
            for f in s.received:
                np.testing.assert_array_equal(f.grad, sent[f.edge])


def test_fan_out_sum_is_recorded():
    tr, (x,) = _run_recorded(_fanout)
    nid = trace.node_id(tr, x)
    (step,) = [s for s in tr.passes[0].steps if s.node == nid]
    assert len(step.received) == 5
    # the op steps that fed several consumers also show their sums
    h_steps = [s for s in tr.passes[0].steps if len(s.received) == 2]
    assert h_steps


def test_two_flows_into_one_leaf():
    with trace.recording() as rec:
        x = engine.tensor([1.5], requires_grad=True)
        (x * x).sum().backward()
    nid = trace.node_id(rec.trace, x)
    (step,) = [s for s in rec.trace.passes[0].steps if s.node == nid]
    assert len(step.received) == 2
    np.testing.assert_allclose(step.grad_after, [3.0])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_recording_changes_no_number(name):
    plain = [leaf.grad.numpy().copy() for leaf in PROGRAMS[name](engine)]
    _, leaves = _run_recorded(PROGRAMS[name])
    recorded = [leaf.grad.numpy() for leaf in leaves]
    assert len(plain) == len(recorded)
    for a, b in zip(plain, recorded):
        np.testing.assert_array_equal(a, b)


def test_forward_nodes_in_creation_order_with_stable_ids():
    tr, _ = _run_recorded(_mlp)
    assert [n.id for n in tr.nodes] == list(range(len(tr.nodes)))
    assert [e.id for e in tr.edges] == list(range(len(tr.edges)))
    ops = [n for n in tr.nodes if n.kind == "op"]
    assert [n.grad_fn for n in ops][:3] == ["MmBackward0", "AddBackward0", "ReluBackward0"]
    for e in tr.edges:
        assert e.source < e.target  # inputs exist before the op that reads them


RECORDER_MODULES = ("trace.py", "trace_pass.py", "trace_scopes.py", "trace_inplace.py")


def test_the_recorder_is_the_only_writer_of_the_trace():
    """Outside the recorder's modules (engine/trace.py and its parts trace_pass.py, trace_scopes.py,
    trace_inplace.py) no code builds trace records, sets a trace tag or writes a field of a record:
    the engine reports through the recorder's methods, the app only reads."""
    import pathlib

    root = pathlib.Path(engine.__file__).parent.parent
    records = {"LeafNode", "OpNode", "SavedTensor", "Edge", "Flow", "BackwardStep", "BackwardPass",
               "OptimizerStep", "Trace"}
    fields = {"retains_grad", "grad_before", "grad_after", "sent", "steps", "events"}
    found = []
    for path in sorted((root / "engine").rglob("*.py")) + sorted((root / "app").rglob("*.py")):
        if path.parent == root / "engine" and path.name in RECORDER_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
            called = getattr(node, "func", None)
            if isinstance(node, ast.Call) and getattr(called, "attr", getattr(called, "id", "")) in records:
                found.append(where)
            if isinstance(node, ast.Call) and getattr(called, "attr", "") in ("append", "extend", "insert"):
                owner = called.value
                if getattr(owner, "attr", "") in ("optimizer_steps", "events", "steps") or \
                        getattr(getattr(owner, "value", None), "attr", "") == "trace":
                    found.append(where)
            for target in node.targets if isinstance(node, ast.Assign) else []:
                if isinstance(target, ast.Attribute) and (
                        target.attr in fields or (target.attr == "_trace" and not _is_none(node.value))):
                    found.append(where)
    assert not found, f"trace written outside the recorder's modules: {found}"


def _is_none(value) -> bool:
    return isinstance(value, ast.Constant) and value.value is None

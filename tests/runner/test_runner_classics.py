"""The classic teaching programs, run through the runner; gradients compared with real PyTorch."""

from __future__ import annotations

import textwrap

import pytest
import torch

from app.examples import example_source
from engine.errors import BACKWARD_TWICE
from engine.runner import run_program


def run(src: str, variables=None):
    return run_program(textwrap.dedent(src), variables)


def grads(r, *names):
    return [r.variables[n].grad.tolist() for n in names]


def test_a_plus_b_times_c_expression():
    r = run("(a + b) * c", {"a": {"value": 2.0}, "b": {"value": 3.0}, "c": {"value": 4.0}})
    assert r.error is None and r.auto_backward and r.result.item() == 20.0
    a, b, c = (torch.tensor(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    ((a + b) * c).backward()
    assert grads(r, "a", "b", "c") == [a.grad.item(), b.grad.item(), c.grad.item()]
    ops = [n.grad_fn for n in r.trace.nodes if n.kind == "op"]
    assert ops == ["AddBackward0", "MulBackward0"]
    assert len(r.trace.passes) == 1


def test_square_of_affine_gives_42():
    r = run("L = (a * b + 1) ** 2", {"a": {"value": 2.0}, "b": {"value": 3.0}})
    # a program (an assignment), so no automatic backward
    assert r.mode == "program" and not r.auto_backward and r.variables["a"].grad is None
    r = run("(a * b + 1) ** 2", {"a": {"value": 2}, "b": {"value": 3}})
    assert r.variables["a"].grad.item() == 42.0
    assert r.variables["b"].grad.item() == 28.0
    r = run("""
        a = torch.tensor(2.0, requires_grad=True)
        b = torch.tensor(3.0, requires_grad=True)
        L = (a * b + 1) ** 2
        L.backward()
    """)
    assert grads(r, "a", "b") == [42.0, 28.0]


def test_logistic_neuron_matches_torch():
    r = run(example_source("neuron"))
    assert r.error is None
    x, w, b = (torch.tensor([v], requires_grad=True) for v in (2.0, 3.0, 1.0))
    loss = (torch.sigmoid(x * w + b) - 1.0) ** 2
    loss.backward()
    for name, t in (("x", x), ("w", w), ("b", b)):
        assert r.variables[name].grad.tolist() == pytest.approx(t.grad.tolist(), rel=1e-5)
    assert r.stdout == str(w.grad) + "\n"
    assert r.variables["loss"].item() == pytest.approx(loss.item(), rel=1e-5)
    assert [n.grad_fn for n in r.trace.nodes if n.kind == "op"] == [
        "MulBackward0", "AddBackward0", "SigmoidBackward0", "SubBackward0", "PowBackward0"]


def test_fan_out_gradients_are_summed():
    r = run("""
        x = torch.tensor(3.0, requires_grad=True)
        a = x * 2
        b = x * 5
        y = a + b
        y.backward()
    """)
    assert r.variables["x"].grad.item() == 7.0
    leaf = next(n for n in r.trace.nodes if n.name == "x")
    step = next(s for s in r.trace.passes[0].steps if s.node == leaf.id)
    assert len(step.received) == 2  # one flow from each consumer


def test_backward_twice_without_retain_graph_fails_like_torch():
    r = run("""
        x = torch.tensor(2.0, requires_grad=True)
        y = x * x
        y.backward()
        first = x.grad.item()
        y.backward()
        never = 1
    """)
    assert r.error.type == "RuntimeError"
    assert r.error.message == BACKWARD_TWICE
    assert (r.error.line, r.error.col) == (6, 1)
    assert len(r.trace.passes) >= 1 and r.trace.passes[0].steps
    assert r.variables["x"].grad.item() == 4.0  # the first pass is kept
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError) as ei:
        y.backward()
    assert str(ei.value) == BACKWARD_TWICE


def test_backward_twice_with_retain_graph_accumulates():
    r = run("""
        x = torch.tensor(2.0, requires_grad=True)
        y = x * x
        y.backward(retain_graph=True)
        y.backward()
    """)
    assert r.error is None
    assert r.variables["x"].grad.item() == 8.0
    assert len(r.trace.passes) == 2 and r.trace.passes[0].retain_graph


ACCUMULATE = """
w = torch.tensor(VALUE, requires_grad=True)
for i in range(3):
    (w * 3).sum().backward()
w.grad.zero_()
print(w.grad.tolist())
"""


def test_zero_grad_of_a_scalar_after_accumulation():
    r = run_program(ACCUMULATE.replace("VALUE", "1.0"))
    assert r.error is None and r.stdout == "0.0\n"


def test_accumulation_and_zero_grad():
    r = run_program(ACCUMULATE.replace("VALUE", "[1.0]"))
    assert r.error is None and r.stdout == "[0.0]\n"
    r = run("""
        w = torch.tensor([1.0], requires_grad=True)
        seen = []
        for i in range(3):
            loss = w * 3
            loss.backward()
            seen.append(w.grad.item())
        w.grad.zero_()
        after_zero = w.grad.item()
        (w * 2).backward()
        print(seen, after_zero, w.grad.item())
    """)
    assert r.error is None
    assert r.stdout == "[3.0, 6.0, 9.0] 0.0 2.0\n"


def test_no_grad_records_nothing():
    r = run("""
        w = torch.tensor(1.0, requires_grad=True)
        with torch.no_grad():
            y = w * 2 + 1
        z = w * 3
    """)
    assert r.error is None
    assert not r.variables["y"].requires_grad
    assert [n.grad_fn for n in r.trace.nodes if n.kind == "op"] == ["MulBackward0"]


def test_detach_cuts_the_graph():
    r = run("""
        x = torch.tensor(3.0, requires_grad=True)
        y = x.detach() * 2
        z = x * y
        z.backward()
    """)
    assert r.error is None
    assert not r.variables["y"].requires_grad
    assert r.variables["x"].grad.item() == 6.0


LOOP_IF = """
x = torch.tensor(START, requires_grad=True)
y = x
for i in range(3):
    if y.sum() > 10:
        y = y * 0.5
    else:
        y = y * 3 + 1
y.backward()
"""


def _torch_loop_if(start: float):
    x = torch.tensor(start, requires_grad=True)
    y = x
    for _ in range(3):
        y = y * 0.5 if y.sum() > 10 else y * 3 + 1
    y.backward()
    return x.grad.item()


@pytest.mark.parametrize("start", [1.0, 20.0, 100.0])
def test_loop_and_tensor_dependent_branch(start):
    r = run_program(LOOP_IF.replace("START", str(start)))
    assert r.error is None
    assert r.variables["x"].grad.item() == pytest.approx(_torch_loop_if(start))


def test_graph_differs_with_input():
    small = run_program(LOOP_IF.replace("START", "1.0"))
    big = run_program(LOOP_IF.replace("START", "100.0"))
    ops_small = [n.grad_fn for n in small.trace.nodes if n.kind == "op" and n.op != "sum"]
    ops_big = [n.grad_fn for n in big.trace.nodes if n.kind == "op" and n.op != "sum"]
    assert ops_small != ops_big
    assert ops_big == ["MulBackward0"] * 3


LINREG = """
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
X = torch.randn(100, 1)
y = 2 * X + 1 + 0.1 * torch.randn(100, 1)

model = nn.Linear(1, 1)
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)

for epoch in range(100):
    optimizer.zero_grad()
    pred = model(X)
    loss = criterion(pred, y)
    loss.backward()
    optimizer.step()
    if epoch % 50 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")

w = model.weight.item()
b = model.bias.item()
print(f"w = {w:.3f}, b = {b:.3f}")
"""


def _have_nn_and_optim() -> bool:
    try:
        import engine.nn
        import engine.optim  # noqa: F401
    except ImportError:
        return False
    return hasattr(engine.nn, "Linear") and hasattr(engine.nn, "MSELoss")


@pytest.mark.skipif(not _have_nn_and_optim(), reason="engine.nn / engine.optim not written yet")
def test_linear_regression_with_nn_linear_mse_sgd():
    r = run_program(LINREG)
    assert r.error is None, r.error
    lines = r.stdout.splitlines()
    assert lines[0].startswith("epoch 0: loss") and lines[1].startswith("epoch 50: loss")
    w = float(lines[-1].split(",")[0].split("=")[1])
    b = float(lines[-1].split(",")[1].split("=")[1])
    assert w == pytest.approx(2.0, abs=0.05)
    assert b == pytest.approx(1.0, abs=0.05)
    assert len(r.trace.passes) == 100
    assert len(r.trace.optimizer_steps) == 100

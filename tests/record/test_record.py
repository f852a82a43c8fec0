"""gradviz.record(): real PyTorch's graph and backward passes, recorded into the trace gradviz plays,
must be the trace gradviz's own engine records for the same program: the same nodes (grad_fn names,
leaf names), the same edges, the same steps in the same order, the same values and gradients (to
2e-6, relative)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from torch_graph import torch_nodes

import gradviz
from app.examples import EXAMPLES
from gradviz.errors import GradvizError

from .harness import differences, engine_trace, torch_recording
from .programs import PROGRAMS

CASES = [(e["id"], e["source"], e["variables"]) for e in EXAMPLES] + \
    [(name, src.strip("\n") + "\n", None) for name, src in PROGRAMS.items()]


@pytest.mark.parametrize(("name", "source", "variables"), CASES, ids=[c[0] for c in CASES])
def test_real_torch_records_the_engines_trace(name, source, variables):
    ours, our_error = engine_trace(source, variables)
    rec, their_error = torch_recording(source, variables)
    assert (our_error is None) == (their_error is None), (our_error, their_error)
    assert ours.nodes and ours.passes, "a case without a graph or a backward pass proves nothing"
    diff = differences(ours, rec.trace)
    assert not diff, "\n".join(diff[:10])
    # Where each op ran (the page marks the line) and in which nn.Module.
    assert [n.module for n in ours.nodes] == [n.module for n in rec.trace.nodes]
    if not variables:  # an expression is wrapped in two lines on the torch side
        assert [(n.line, n.col) for n in ours.nodes if n.kind == "op"] == \
            [(n.line, n.col) for n in rec.trace.nodes if n.kind == "op"]
        assert [(bp.line, bp.col) for bp in ours.passes] == [(bp.line, bp.col) for bp in rec.trace.passes]
    # The recording plays in the page: it is a valid answer, and the block's code is its program.
    answer = rec.answer_data()
    assert answer["backward"] and answer["graph"]["nodes"]
    assert rec.source.startswith(source.strip().splitlines()[0]) or variables


def test_the_comparison_sees_a_different_graph_and_a_different_gradient():
    neuron = next(e for e in EXAMPLES if e["id"] == "neuron")["source"]
    ours, _ = engine_trace(neuron)
    other, _ = torch_recording(neuron.replace("w = torch.tensor([3.0]", "w = torch.tensor([3.5]"))
    assert any("value" in d or "sent" in d for d in differences(ours, other.trace))
    square, _ = torch_recording("x = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n")
    assert any(d.startswith("nodes") for d in differences(ours, square.trace))


def test_an_op_the_engine_lacks_is_recorded_under_torchs_name():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with gradviz.record() as rec:
        y = torch.special.erfcx(x)
        loss = y.sum()
        loss.backward()
    ops = [n for n in rec.trace.nodes if n.kind == "op"]
    assert [n.grad_fn for n in ops] == ["SpecialErfcxBackward0", "SumBackward0"]
    assert [n.name for n in ops] == ["y", "loss"]
    step = next(s for s in rec.trace.passes[0].steps if s.node == ops[0].id)
    assert abs(step.sent[0].grad - x.grad.numpy()).max() < 1e-6
    gradviz.html(rec)  # it plays like any other run


def test_a_graph_begun_before_the_block_is_recorded_from_where_the_block_starts():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3  # made before recording
    with gradviz.record() as rec:
        loss = (h ** 2).sum()
        loss.backward()
    ops = [n.grad_fn for n in rec.trace.nodes if n.kind == "op"]
    assert ops == ["PowBackward0", "SumBackward0"]
    leaf = rec.trace.nodes[rec.trace.edges[0].source]
    assert leaf.kind == "leaf" and leaf.name == "h" and list(leaf.value) == [3.0, 6.0]
    assert [s.kind for s in rec.trace.passes[0].steps] == ["op", "op"]  # MulBackward0 ran unrecorded


def test_misuse_gets_a_clear_error():
    with gradviz.record() as rec:
        with pytest.raises(GradvizError, match="nested"):
            with gradviz.record():
                pass
        with pytest.raises(GradvizError, match="after its with-block"):
            rec.answer_data()
    with pytest.raises(GradvizError, match="program's source"):
        gradviz.html(42)


def test_the_server_never_imports_torch_or_the_recorder():
    code = ("import sys, app.main, app.worker.jobs, app.offline\n"
            "bad = [m for m in ('torch', 'gradviz.recording', 'IPython') if m in sys.modules]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_real_model_beyond_the_engine_is_recorded_whole():
    """Layers gradviz's engine does not have (convolution, batch norm, LSTM, embedding, dropout) are
    recorded under torch's names; every Node of the graph is there, and what each parameter's
    AccumulateGrad wrote is its real .grad."""
    import torch.nn as nn

    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.drop = nn.Dropout(0.2)
            self.emb = nn.Embedding(10, 4)
            self.lstm = nn.LSTM(4, 5, batch_first=True)
            self.fc = nn.Linear(4 * 4 * 4 + 5, 3)

        def forward(self, img, tokens):
            h = torch.max_pool2d(torch.relu(self.bn(self.conv(img))), 2)
            e, _ = self.lstm(self.emb(tokens))
            return self.fc(torch.cat([self.drop(h).flatten(1), e[:, -1]], dim=1))

    net = Net()
    img, tokens = torch.randn(2, 1, 10, 10), torch.randint(0, 10, (2, 6))
    with gradviz.record() as rec:
        loss = nn.functional.cross_entropy(net(img, tokens), torch.tensor([0, 2]))
        loss.backward()
    names = {n.grad_fn for n in rec.trace.nodes if n.kind == "op"}
    assert {"ConvolutionBackward0", "NativeBatchNormBackward0", "EmbeddingBackward0"} <= names
    ops = [fn for fn in torch_nodes(loss.grad_fn) if type(fn).__name__ != "AccumulateGrad"]
    steps = rec.trace.passes[0].steps
    assert sum(1 for s in steps if s.kind == "op") == len(ops)
    params = dict(net.named_parameters())
    leaf_steps = [s for s in steps if s.kind == "leaf"]
    assert len(leaf_steps) == len(params)
    for s in leaf_steps:
        name = rec.trace.nodes[s.node].name
        assert abs(s.grad_after - params[name].grad.numpy()).max() < 1e-6, name
    gradviz.html(rec)


def test_hooks_and_functions_recorded_in_a_block_behave_as_torchs_after_it():
    """The hook gradviz wraps is still the program's (torch names it in its errors, it runs after the
    block, unrecorded), and ``Function.apply`` is torch's own again once the block has ended."""
    apply = torch.autograd.Function.__dict__["apply"]

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with gradviz.record() as rec:
        y = Twice.apply(x)

        def bad(grad):
            return grad.sum()

        y.register_hook(lambda g: g * 3)
        z = x * 1
        z.register_hook(bad)
        with pytest.raises(RuntimeError, match="hook 'bad' has changed the size"):
            z.sum().backward()
    assert torch.autograd.Function.__dict__["apply"] is apply
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0] and type(y.grad_fn).__name__ == "TwiceBackward"
    assert len(rec.trace.passes) == 1 and not any(s.kind == "hook" for s in rec.trace.passes[0].steps)
    assert [n.grad_fn for n in rec.trace.nodes if n.kind == "op"] == ["TwiceBackward", "MulBackward0",
                                                                       "SumBackward0"]


def test_a_function_with_two_outputs_is_one_node_and_so_is_a_modules_backward_hook():
    """Beyond what the engine runs: a Function returning two tensors is one node (both outputs flow
    from it), and torch's own Function behind a module's full backward hook is recorded too."""

    class Halves(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:2].clone(), x[2:].clone()

        @staticmethod
        def backward(ctx, ga, gb):
            return torch.cat([ga, gb])

    torch.manual_seed(0)
    net = torch.nn.Linear(2, 1)
    net.register_full_backward_hook(lambda module, grad_in, grad_out: None)
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with gradviz.record() as rec:
        a, b = Halves.apply(x)
        loss = (a * b).sum() + net(a).sum()
        loss.backward()
    nodes = rec.trace.nodes
    ops = [n.grad_fn for n in nodes if n.kind == "op"]
    assert ops.count("HalvesBackward") == 1 and "BackwardHookFunctionBackward" in ops
    halves = next(n.id for n in nodes if n.kind == "op" and n.grad_fn == "HalvesBackward")
    mul = next(n for n in nodes if n.kind == "op" and n.grad_fn == "MulBackward0")
    assert [rec.trace.edges[e].source for e in mul.inputs] == [halves, halves]
    step = next(s for s in rec.trace.passes[0].steps if s.node == halves)
    assert abs(step.sent[0].grad - x.grad.numpy()).max() < 1e-6
    gradviz.html(rec)


def test_an_output_of_unbind_or_split_is_drawn_as_the_output_torch_names():
    """Each consumer of an output of unbind or split reads the output number torch's
    ``next_functions`` pair gives, and each output keeps its own name and value."""
    p = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], requires_grad=True)
    with gradviz.record() as rec:
        a, b, c = p
        q, r = p.split([1, 2])
        loss = (c * b).sum() + (r * 3).sum()
        loss.backward()
    facts = {"c * b": [nr for _, nr in (c * b).grad_fn.next_functions],
             "r * 3": [nr for _, nr in (r * 3).grad_fn.next_functions]}
    trace = rec.trace
    nodes = {n.id: n for n in trace.nodes}
    mul = [n for n in trace.nodes if n.kind == "op" and n.grad_fn == "MulBackward0"]
    read = [[trace.edges[e].output for e in n.inputs] for n in mul]
    assert read == [facts["c * b"], facts["r * 3"]] == [[2, 1], [1, 0]]
    unbind = next(n for n in trace.nodes if n.kind == "op" and n.grad_fn == "UnbindBackward0")
    split = next(n for n in trace.nodes if n.kind == "op" and n.grad_fn == "SplitWithSizesBackward0")
    assert unbind.pieces == ["a", "b", "c"] and split.pieces == ["q", "r"]
    assert split.params == {"dim": 0, "sizes": [1, 2]}
    assert nodes[mul[0].id].value.tolist() == (c * b).tolist()
    step = next(s for s in trace.passes[0].steps if s.node == unbind.id)
    assert np.allclose(step.upstream, [[0.0, 0.0], [0.5, 4.0], [3.0, -1.0]])  # ∂loss/∂p through a, b, c

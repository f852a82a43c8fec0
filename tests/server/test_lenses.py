"""The course views' data (app/worker/lenses/) against PyTorch and against hand counts: forward mode's
passes, rule counts and tangents (torch.func.jvp), second derivatives (torch), the bytes held for
backward (nbytes counted by hand, and PyTorch's own saved tensors), two forwards compared (object
identity, new nodes, structure) and gradient sizes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from app.examples import example_source
from engine.runner import run_program

from .helpers import assert_consistent, finish


def lenses_of(source: str) -> tuple[dict, dict]:
    """The drawn, validated response of ``source`` run by the engine, and its lenses."""
    result = run_program(source)
    assert result.error is None, result.error
    d = finish(result.trace)
    assert_consistent(d)
    return d, d["lenses"]


def run_torch(source: str) -> dict:
    """Run ``source`` with real PyTorch; its names."""
    names = {"torch": torch, "nn": torch.nn}
    exec(compile(source, "<program>", "exec"), names)  # the test's own program text
    return names


def value(v) -> np.ndarray:
    return np.asarray(v["data"], dtype=np.float64)


# ---- forward mode vs reverse mode ----------------------------------------------------------------------
PROGRAM = """
x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
w = torch.tensor([1.5, 0.25, -0.75], dtype=torch.float64, requires_grad=True)
b = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)
h = torch.tanh(x * w)
y = (h + b).pow(2).sum()
y.backward()
"""


def test_forward_mode_passes_rules_and_tangents_match_torch_func_jvp():
    d, lenses = lenses_of(PROGRAM)
    (m,) = lenses["modes"]
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    assert [nodes[i["node"]]["var"] for i in m["inputs"]] == ["x", "w", "b"]
    assert m["directions"] == 7 and m["unavailable"] is None
    # reverse: one pass; mul 2 rules, tanh 1, add 2, pow 1, sum 1
    assert m["reverse"] == {"passes": 1, "rules": 7, "steps": 5}
    f = m["forward"]
    # forward: a tangent on x or w runs mul (one input), tanh, add, pow, sum: 5 rules; on b: add, pow, sum
    assert f["count"] == 7 and [p["rules"] for p in f["passes"]] == [5] * 6 + [3]
    assert f["rules"] == 33

    def fn(x, w, b):
        return (torch.tanh(x * w) + b).pow(2).sum()

    names = run_torch(PROGRAM)
    primals = (names["x"].detach(), names["w"].detach(), names["b"].detach())
    directions = [(0, i) for i in range(3)] + [(1, i) for i in range(3)] + [(2, None)]
    for p, (k, i) in zip(f["passes"], directions):
        tangents = [torch.zeros_like(t) for t in primals]
        if i is None:
            tangents[k] = torch.ones_like(primals[k])
        else:
            tangents[k][i] = 1.0
        _, want = torch.func.jvp(fn, primals, tuple(tangents))
        assert p["output_tangent"] == pytest.approx(want.item(), rel=1e-12, abs=1e-15)
        # the tangent of h = tanh(x * w) on the way, step by step
        _, want_h = torch.func.jvp(lambda x, w, b: torch.tanh(x * w), primals, tuple(tangents))
        by_op = {s["op"]: s for s in p["steps"]}
        if k < 2:
            got = value(by_op["tanh"]["tangent"])
            np.testing.assert_allclose(got, want_h.numpy(), rtol=1e-12, atol=1e-15)
        else:
            assert "tanh" not in by_op  # no tangent reaches it
    # the same gradients: forward mode's, reverse mode's, PyTorch's
    for grad, mine, name in zip(f["grads"], m["inputs"], "xwb"):
        want = names[name].grad.numpy()
        np.testing.assert_allclose(value(grad["grad"]), want, rtol=1e-12)
        np.testing.assert_allclose(value(mine["grad"]), want, rtol=1e-12)


PIECES = """
p = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
a, b, c = p
q = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64, requires_grad=True)
top, rest = q.split([1, 2])
y = a * b + c * top.sum() + rest.pow(2).sum()
y.backward()
"""


def test_forward_mode_reads_each_piece_of_a_multi_output_node_as_torch_func_jvp_does():
    # a, b, c = p makes one UnbindBackward0 whose value is the whole p: each use reads its own piece
    _, lenses = lenses_of(PIECES)
    (m,) = lenses["modes"]

    def fn(p, q):
        a, b, c = p
        top, rest = q.split([1, 2])
        return a * b + c * top.sum() + rest.pow(2).sum()

    names = run_torch(PIECES)
    primals = (names["p"].detach(), names["q"].detach())
    passes = m["forward"]["passes"]
    assert len(passes) == 3 + 6
    for k, primal in enumerate(primals):
        for i in range(primal.numel()):
            tangents = [torch.zeros_like(t) for t in primals]
            tangents[k].view(-1)[i] = 1.0
            _, want = torch.func.jvp(fn, primals, tuple(tangents))
            got = passes[3 * k + i]["output_tangent"]
            assert got == pytest.approx(want.item(), rel=1e-12, abs=1e-15), (k, i)


def test_forward_mode_example_shows_each_rule_with_its_numbers():
    _, lenses = lenses_of(example_source("forward-reverse"))
    (m,) = lenses["modes"]
    f = m["forward"]
    assert m["directions"] == 4 and f["count"] == 4 and f["rules"] == 12 and m["reverse"]["rules"] == 4
    step = f["passes"][0]["steps"][0]  # the tangent [1, 0] on x through a·b: share ȧ·b = [0.5, 0]
    assert step["grad_fn"] == "MulBackward0" and step["formulas"] == ["ȧ·b", "a·ḃ"]
    assert step["tangents"][0]["data"] == [1.0, 0.0] and step["tangents"][1] is None
    assert step["shares"][0]["data"] == [0.5, 0.0]


def test_forward_mode_is_counted_but_not_replayed_for_many_inputs():
    _, lenses = lenses_of("""
w = torch.randn(10, 10, requires_grad=True)
x = torch.randn(4, 10)
(x @ w).relu().sum().backward()
""")
    (m,) = lenses["modes"]
    assert m["directions"] == 100 and m["forward"] is None and m["unavailable"] == "too_many"
    assert m["reverse"]["passes"] == 1


def test_a_model_with_many_parameters_lists_the_first_64_inputs_and_counts_the_others():
    d, lenses = lenses_of("""
ws = [torch.full((2,), 0.5 + i, requires_grad=True) for i in range(70)]
x = torch.ones(2)
loss = sum((w * x).sum() for w in ws)
loss.backward()
""")
    (m,) = lenses["modes"]
    assert m["directions"] == 140 and m["unavailable"] == "too_many"
    assert len(m["inputs"]) == 64 and m["unlisted"] == 6
    assert all(value(i["grad"]).tolist() == [1.0, 1.0] for i in m["inputs"])  # d loss / d w = x


def test_forward_mode_is_counted_but_not_replayed_for_a_long_graph():
    _, lenses = lenses_of("""
x = torch.tensor(0.5, requires_grad=True)
h = x
for i in range(700):
    h = torch.sin(h)
h.backward()
""")
    (m,) = lenses["modes"]
    assert m["directions"] == 1 and m["forward"] is None and m["unavailable"] == "too_large"
    assert m["reverse"] == {"passes": 1, "rules": 700, "steps": 700}


# ---- higher order -----------------------------------------------------------------------------------
def test_second_derivative_nodes_are_made_by_the_first_backward_and_walked_by_the_second():
    source = example_source("second-derivative")
    d, lenses = lenses_of(source)
    (o,) = lenses["orders"]
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    assert o["pass_index"] == 0 and o["api"] == "autograd.grad"
    # the rule of SinBackward0, g · cos x, ran cos and a multiplication at the first step
    assert sorted(nodes[m["node"]]["name"] for m in o["nodes"]) == ["CosBackward0", "MulBackward0"]
    assert all(m["step"] == 0 for m in o["nodes"])
    made = {m["node"] for m in o["nodes"]}
    edges = {e["id"]: e for e in d["graph"]["edges"]}
    for e in o["reads"]:  # each read joins a node backward did not make to one it made
        assert edges[e]["target"] in made and edges[e]["source"] not in made
    assert any(nodes[edges[e]["source"]]["var"] == "x" for e in o["reads"])  # cos reads the saved x
    assert o["walked_by"] == [{"pass_index": 1, "steps": 2}]
    assert len(d["views"]) == 1 and d["views"][0]["passes"] == [0, 1]  # one drawing, both passes
    names = run_torch(source)
    x_step = next(s for s in d["backward"][1]["steps"] if s["kind"] == "leaf")
    assert value(x_step["grad_after"]) == pytest.approx(names["x"].grad.item())  # −sin 1
    assert names["x"].grad.item() == pytest.approx(-math.sin(1.0))


def test_second_derivative_of_a_vector_function_matches_torch():
    source = """
x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
y = (torch.sin(x) * x ** 2).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
(g * g).sum().backward()
"""
    d, lenses = lenses_of(source)
    (o,) = lenses["orders"]
    assert len(o["nodes"]) >= 4 and o["walked_by"][0]["pass_index"] == 1
    names = run_torch(source)
    leaf = next(s for s in d["backward"][1]["steps"] if s["kind"] == "leaf")
    np.testing.assert_allclose(value(leaf["grad_after"]), names["x"].grad.numpy(), rtol=1e-12)
    # forward mode through the second pass's graph (it includes the nodes backward made) agrees too
    m = next(m for m in lenses["modes"] if m["pass_index"] == 1)
    np.testing.assert_allclose(value(m["forward"]["grads"][0]["grad"]), names["x"].grad.numpy(), rtol=1e-10)


# ---- memory of saved tensors ------------------------------------------------------------------------------
def test_saved_bytes_rise_in_forward_fall_in_backward_stay_with_retain_graph_zero_under_no_grad():
    source = example_source("memory-backward")
    d, lenses = lenses_of(source)
    mem = lenses["memory"]
    n = 16 * 4  # one float32 vector of 16
    # by hand: exp keeps its result, sin keeps x, mul keeps both of its inputs (exp's result again,
    # sin's result), sum keeps nothing: three distinct tensors
    ops = [p["bytes"] for p in mem["points"] if p["kind"] == "op"]
    assert ops[:4] == [n, 2 * n, 3 * n, 3 * n]
    passes = d["backward"]
    def steps_of(bp):
        return [p["bytes"] for p in mem["points"] if p["kind"] == "step" and p["pass_index"] == bp["index"]]

    first = steps_of(passes[0])
    assert first[-1] == 0 and first == sorted(first, reverse=True)  # freed node by node
    second = steps_of(passes[1])
    assert second == [3 * n] * len(second)  # retain_graph=True keeps them
    assert ops[4:] == [n, 2 * n, 3 * n, 3 * n]  # the no_grad block recorded no op
    assert mem["peak"] == 3 * n and mem["end"] == 3 * n


def test_saved_bytes_are_zero_under_no_grad():
    _, lenses = lenses_of("""
x = torch.randn(100, requires_grad=True)
with torch.no_grad():
    y = (x.exp() * x).sum()
""")
    assert lenses["memory"]["peak"] == 0


def test_kept_losses_keep_their_graphs_and_item_lets_them_go():
    d, lenses = lenses_of(example_source("memory-losses"))
    mem = lenses["memory"]
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    per = 2 * 32 * 8 * 4  # addmm keeps its input x [32, 8]; pow keeps its input [32, 8]; float32
    after_mean = [p["bytes"] for p in mem["points"] if p["kind"] == "op" and nodes[p["node"]]["op"] == "mean"]
    # the training step; four kept losses; four evaluations whose loss is rebound (one graph at a time)
    assert after_mean == [per, per, 2 * per, 3 * per, 4 * per, 5 * per, 6 * per, 6 * per, 6 * per]
    steps = [p["bytes"] for p in mem["points"] if p["kind"] == "step"]
    assert steps[-1] == 0  # the training step's backward freed its graph
    frees = [p["bytes"] for p in mem["points"] if p["kind"] == "free"]
    # each rebinding of loss frees the previous evaluation's graph, grad_fn by grad_fn, down to 5
    assert frees and frees[-1] == 5 * per and all(5 * per <= b <= 6 * per for b in frees)
    assert mem["peak"] == 6 * per and mem["end"] == 5 * per


def _torch_saved_bytes(root) -> int:
    """Bytes of the distinct tensors PyTorch's graph of ``root`` keeps for backward."""
    seen, storages, todo = set(), {}, [root.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        for attr in dir(fn):
            if attr.startswith("_saved_"):
                t = getattr(fn, attr)
                if isinstance(t, torch.Tensor) and not (t.dim() == 0 and attr == "_saved_other"):
                    storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        todo.extend(f for f, _ in fn.next_functions)
    return sum(storages.values())


@pytest.mark.parametrize("body", [
    "y = (x.exp() * x.sin()).sum()",
    "y = torch.sigmoid(x @ w).pow(2).mean()",
    "y = torch.tanh(x @ w).relu().sum()",
    "y = (x @ w).softmax(dim=1).log().mean()",
])
def test_saved_bytes_equal_what_pytorch_keeps(body):
    source = f"""
torch.manual_seed(0)
x = torch.randn(8, 16, requires_grad=True)
w = torch.randn(16, 4, requires_grad=True)
{body}
"""
    _, lenses = lenses_of(source)
    names = run_torch(source)
    assert lenses["memory"]["end"] == _torch_saved_bytes(names["y"]) > 0


# ---- two forwards compared -------------------------------------------------------------------------------
def test_two_forwards_share_leaves_make_new_nodes_and_differ_where_control_flow_did():
    d, lenses = lenses_of(example_source("new-graph"))
    c = lenses["compare"]
    assert len(c["forwards"]) == 2
    (p,) = c["pairs"]
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    leaves = {x["name"]: x for x in p["leaves"] if not x["constant"]}
    assert leaves["w"]["same_object"] and leaves["w"]["same_node"]  # the very same leaf
    assert not leaves["x"]["same_object"]  # a new input tensor
    first = set(d["views"][p["first"]]["nodes"])
    second = set(d["views"][p["second"]]["nodes"])
    ops_a = {n for n in first if nodes[n]["kind"] == "op"}
    ops_b = {n for n in second if nodes[n]["kind"] == "op"}
    assert ops_a and ops_b and not ops_a & ops_b  # every op node of the second forward is new
    # x = 1: h = 1.5 doubles twice, then h ** 2; x = -0.5: h = -0.75 doubles three times, then -h
    assert [nodes[n]["name"] for n in p["only_first"]] == ["PowBackward0"]
    only_second = sorted(nodes[n]["name"] for n in p["only_second"])
    assert only_second == ["AbsBackward0", "MulBackward0", "NegBackward0"]
    assert not p["same_structure"]
    st = p["static"]
    assert st["static"]["data"] == 9.0 and st["dynamic"]["data"] == 6.0 and not st["agree"]  # (-3)² vs 6


def test_a_training_loop_keeps_its_parameters_and_its_structure():
    d, lenses = lenses_of(example_source("linear-regression"))
    c = lenses["compare"]
    p = c["pairs"][0]
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    params = [x for x in p["leaves"] if nodes[x["first"]]["is_param"]]
    assert params and all(x["same_object"] and not x["same_node"] for x in params)  # updated in place
    assert p["same_structure"] and not p["only_first"] and not p["only_second"]
    assert p["static"]["agree"]


# ---- gradient heat ----------------------------------------------------------------------------------------
def test_edge_heat_is_the_norm_of_the_gradient_each_edge_carried():
    d, lenses = lenses_of(PROGRAM)
    (h,) = lenses["heat"]
    sent = {f["edge"]: value(f["grad"]) for s in d["backward"][0]["steps"] for f in s["sent"] if f["grad"]}
    assert {e["edge"] for e in h["edges"]} == set(sent)
    for e in h["edges"]:
        norm = float(np.linalg.norm(sent[e["edge"]]))
        assert e["norm"] == pytest.approx(norm) and e["log10"] == pytest.approx(math.log10(norm))


def test_deep_sigmoid_gradients_vanish_towards_the_input_and_relu_he_keeps_them():
    def weights(example):
        d, lenses = lenses_of(example_source(example))
        (h,) = lenses["heat"]
        steps = d["backward"][0]["steps"]
        written = {s["node"]: value(s["grad_after"]) for s in steps if s["kind"] == "leaf"}
        out = []
        for p in h["params"]:
            # what reached the parameter is what its .grad holds after this first pass
            assert p["norm"] == pytest.approx(float(np.linalg.norm(written[p["node"]])))
            if p["name"].endswith("weight"):
                out.append(p["log10"])
        return out

    sigmoid = weights("deep-sigmoid")
    assert None not in sigmoid and len(sigmoid) == 6
    assert sigmoid == sorted(sigmoid)  # smaller at every layer towards the input
    assert sigmoid[-1] - sigmoid[0] > 4.5
    relu = weights("relu-he")
    assert len(relu) == 6 and max(relu) - min(relu) < 1.5 and None not in relu

"""Serialization of traces: nodes, steps, views, iterations (the page's neuron example run by the
runner; the other programs recorded directly)."""

import engine as torch
from app.examples import example_source
from engine import nn, optim
from engine.runner import run_program

from .helpers import assert_consistent, finish, record


def test_neuron_nodes_edges_and_steps():
    d = finish(run_program(example_source("neuron")).trace)
    assert_consistent(d)
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    by_name = {n["name"]: n for n in nodes.values()}
    assert {"x", "w", "b", "MulBackward0", "AddBackward0", "SigmoidBackward0", "SubBackward0",
            "PowBackward0"} <= set(by_name)
    mul = by_name["MulBackward0"]
    assert mul["formulas"] and mul["op"] == "mul" and mul["shape"] == [1]
    assert [s["node"] for s in mul["saved"]] == [by_name["x"]["id"], by_name["w"]["id"]]
    assert by_name["w"]["is_saved"] and by_name["w"]["requires_grad"]
    assert by_name["AddBackward0"]["var"] == "z"
    assert by_name["PowBackward0"]["is_output"] and by_name["PowBackward0"]["var"] == "loss"
    const = [n for n in nodes.values() if n.get("is_constant")]
    assert len(const) == 1 and const[0]["name"] == "1.0" and const[0]["var"] is None
    bp = d["backward"][0]
    assert bp["freed"] and not bp["retain_graph"] and bp["root"] == by_name["PowBackward0"]["id"]
    assert bp["steps"][0]["node"] == bp["root"]
    leaf_steps = {nodes[s["node"]]["name"]: s for s in bp["steps"] if s["kind"] == "leaf"}
    assert set(leaf_steps) == {"x", "w", "b"}
    assert leaf_steps["w"]["grad_before"] is None
    assert abs(leaf_steps["w"]["grad_after"]["data"][0] - (-3.3166e-06)) < 1e-8
    assert d["iterations"][0]["loss"] > 0 and d["views"][0]["loss"] == d["iterations"][0]["loss"]
    assert d["events"][-1] == {"kind": "backward", "index": 0}


def test_fan_out_sum_is_marked():
    def prog(rec):
        x = torch.tensor(3.0, requires_grad=True)
        y = x * x + x
        y.backward()

    d = record(prog)
    assert_consistent(d)
    leaf = next(s for s in d["backward"][0]["steps"] if s["kind"] == "leaf")
    assert leaf["is_sum"] and len(leaf["received"]) == 3
    assert leaf["grad_after"]["data"] == 7.0


def test_second_backward_joins_the_view():
    def prog(rec):
        x = torch.tensor(2.0, requires_grad=True)
        y = x ** 3
        y.backward(retain_graph=True)
        y.backward()

    d = record(prog)
    assert_consistent(d)
    assert len(d["views"]) == 1 and d["views"][0]["passes"] == [0, 1]
    first, second = d["backward"]
    assert not first["freed"] and second["freed"]
    leaf2 = next(s for s in second["steps"] if s["kind"] == "leaf")
    assert leaf2["grad_before"]["data"] == 12.0 and leaf2["grad_after"]["data"] == 24.0


def test_micro_batches_open_new_views_and_unreached_ops_form_a_last_view():
    def prog(rec):
        w = torch.tensor([1.0, -1.0], requires_grad=True)
        for k in range(3):
            (w * float(k + 1)).sum().backward()
        w * 5.0  # after the last pass, reached by none

    d = record(prog)
    assert_consistent(d)
    assert [v["passes"] for v in d["views"]] == [[0], [1], [2], []]
    assert [bp["view"] for bp in d["backward"]] == [0, 1, 2]
    nodes = {n["id"]: n for n in d["graph"]["nodes"]}
    last_ops = [nodes[i] for i in d["views"][3]["nodes"] if nodes[i]["kind"] == "op"]
    assert [n["name"] for n in last_ops] == ["MulBackward0"]
    reached = {s["node"] for bp in d["backward"] for s in bp["steps"]}
    assert last_ops[0]["id"] not in reached
    assert [i["view"] for i in d["iterations"]] == [0, 1, 2]


def test_no_backward_is_one_view_with_the_sinks_as_output():
    def prog(rec):
        a = torch.tensor(2.0, requires_grad=True)
        (a * 3.0).exp()

    d = record(prog)
    assert_consistent(d)
    assert len(d["views"]) == 1 and d["backward"] == []
    outputs = [n["name"] for n in d["graph"]["nodes"] if n["is_output"]]
    assert outputs == ["ExpBackward0"]


def test_training_loop_keeps_first_and_last_three_iterations():
    def prog(rec):
        torch.manual_seed(0)
        x = torch.linspace(0, 1, 8).reshape(8, 1)
        y = 2 * x + 1
        model = nn.Linear(1, 1)
        opt = optim.SGD(model.parameters(), lr=0.5)
        for _ in range(20):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()

    d = record(prog)
    assert_consistent(d)
    assert len(d["views"]) == 6
    assert [v["passes"] for v in d["views"]] == [[0], [1], [2], [17], [18], [19]]
    assert [bp["index"] for bp in d["backward"]] == [0, 1, 2, 17, 18, 19]
    assert len(d["iterations"]) == 20
    assert [i["view"] for i in d["iterations"]][:4] == [0, 1, 2, None]
    assert d["iterations"][19]["view"] == 5
    assert d["iterations"][19]["loss"] < d["iterations"][0]["loss"]
    assert set(d["iterations"][0]["params"]) == {"Linear.weight", "Linear.bias"}
    assert d["graph"]["omitted_ops"] > 0
    kept = {n["id"] for n in d["graph"]["nodes"]}
    assert all(e["index"] in kept for e in d["events"] if e["kind"] == "op")
    assert all(p["node"] is None or p["node"] in kept for s in d["optimizer_steps"] for p in s["params"])
    assert 0 < len(d["optimizer_steps"]) <= 6
    assert all(n["iteration"] is not None for n in d["graph"]["nodes"])


def test_large_values_are_summarized_in_nodes_and_steps():
    def prog(rec):
        w = torch.ones(10, 10, requires_grad=True)
        (w * 2.0).sum().backward()

    d = record(prog)
    leaf = next(n for n in d["graph"]["nodes"] if n["kind"] == "leaf" and n["shape"] == [10, 10])
    assert leaf["value"]["data"] is None and leaf["value"]["summary"]["max"] == 1.0
    step = next(s for s in d["backward"][0]["steps"] if s["kind"] == "leaf")
    assert step["grad_after"]["summary"]["mean"] == 2.0
    assert step["grad_after"]["summary"]["head"] == [2.0] * 8

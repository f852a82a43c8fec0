"""The explanation model of an answer: labels that tell nodes apart, rules in the student's names,
the saved values under those names, the algebra each rule really uses, the expression that ran."""

from __future__ import annotations

from app.drawing.dot_text import node_attrs
from app.drawing.layout import layout_input
from app.examples import example_source
from app.worker.execute import run_and_serialize


def answer(source: str, variables: dict | None = None) -> dict:
    out = run_and_serialize(source, variables)
    assert "response" in out, out
    return out["response"]


def by_label(resp: dict) -> dict:
    return {n["label"]: n for n in resp["graph"]["nodes"]}


def step_of(resp: dict, node_id: int, pass_index: int = 0) -> dict:
    return next(s for s in resp["backward"][pass_index]["steps"] if s["node"] == node_id)


def said(text, lang="en"):
    return text if isinstance(text, str) else text[lang]


def test_rules_use_the_students_names_and_saved_values_under_them():
    v = {"a": {"value": 2.0}, "b": {"value": -3.0}, "c": {"value": 10.0}}
    resp = answer("(a + b) * c", v)
    nodes = by_label(resp)
    add, mul = nodes["AddBackward0"], nodes["MulBackward0"]
    assert add["sym"] == "u" and add["explain"]["expr"] == "a + b"  # a name for what the program did not name
    assert mul["explain"]["expr"] == "u · c"
    assert mul["explain"]["rules"] == [f"∂{mul['sym']}/∂u = c", f"∂{mul['sym']}/∂c = u"]
    work = step_of(resp, mul["id"])["explain"]["inputs"]
    assert [(v["name"], v["value"]["data"]) for v in work[0]["values"]] == [("c", 10.0)]
    # the value of a + b under its name, not "a = -1"
    assert [(v["name"], v["value"]["data"]) for v in work[1]["values"]] == [("u", -1.0)]
    assert work[0]["steps"][0]["text"] == "G·c" and work[0]["ok"]


def test_a_matrix_product_is_explained_as_a_product_with_shapes():
    resp = answer("A = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
                  "B = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)\n"
                  "C = A @ B\nloss = (C * C).sum()\nloss.backward()\n")
    mm = by_label(resp)["MmBackward0"]
    work = step_of(resp, mm["id"])["explain"]["inputs"]
    assert work[0]["rule"] == "∂loss/∂A = G · Bᵀ" and work[1]["rule"] == "∂loss/∂B = Aᵀ · G"
    ops = [s["op"] for s in work[0]["steps"]]
    assert ops == ["T", "matmul"]  # Bᵀ, then G · Bᵀ: no element-wise division anywhere
    assert work[0]["steps"][1]["value"]["data"] == [[2.5, 20.0], [7.5, 40.0]]


def test_addmm_names_bias_input_and_weight_as_the_program_does():
    resp = answer(example_source("mlp"))
    addmm = by_label(resp)["AddmmBackward0 #2"]
    t = by_label(resp)["TBackward0 #2"]
    assert t["explain"]["expr"] == "fc2.weightᵀ"
    assert addmm["explain"]["expr"] == f"fc2.bias + p @ {t['sym']}"
    rules = [said(r) for r in addmm["explain"]["rules"]]
    assert rules[0] == "∂loss/∂fc2.bias = G" and rules[2] == "∂loss/∂q = pᵀ · G"
    bias = step_of(resp, addmm["id"])["explain"]["inputs"][0]
    assert bias["broadcast"]["dims"] == [0]
    assert "fc2.bias was broadcast from [3] to [4, 3]" in said(bias["broadcast"]["says"])


def test_a_broadcast_input_says_its_gradient_is_summed_back():
    resp = answer(example_source("broadcast"))
    add = by_label(resp)["AddBackward0"]
    b = step_of(resp, add["id"])["explain"]["inputs"][1]
    assert b["name"] == "b" and b["steps"][-1]["op"] == "sum_to"
    assert said(b["steps"][-1]["text"]) == "G summed over dim 0: [2, 3] → [3]"
    assert said(b["steps"][-1]["text"], "zh") == "G 在第 0 维上求和：[2, 3] → [3]"
    assert b["steps"][-1]["value"]["data"] == [2.0, 2.0, 2.0]


def test_a_mean_divides_by_n_and_copies_back():
    resp = answer("x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\n"
                  "m = x.mean()\nm.backward()\n")
    work = step_of(resp, by_label(resp)["MeanBackward0"]["id"])["explain"]["inputs"][0]
    assert [(v["name"], v["value"]["data"]) for v in work["values"]] == [("n", 6)]
    assert [s["op"] for s in work["steps"]] == ["div", "spread"]
    assert abs(work["steps"][0]["value"]["data"] - 1 / 6) < 1e-7  # shown to float32 precision


def test_same_named_nodes_get_distinct_labels_in_text_and_drawing():
    resp = answer(example_source("fan-out"))
    labels = [n["label"] for n in resp["graph"]["nodes"] if n["kind"] == "op"]
    assert sorted(labels) == ["AddBackward0", "MulBackward0 #1", "MulBackward0 #2"]
    drawn = [node_attrs(n)["label"][0] for n in layout_input(resp)["nodes"] if n["kind"] == "op"]
    assert sorted(drawn) == sorted(labels)
    # x * x: the two inputs of MulBackward0 #1 are both x, told apart by position
    mul = by_label(resp)["MulBackward0 #1"]
    work = step_of(resp, mul["id"])["explain"]["inputs"]
    assert [w["name"] for w in work] == ["x", "x"]


def test_a_name_rebound_in_a_loop_is_numbered():
    resp = answer(example_source("vanishing"))
    syms = [n["sym"] for n in resp["graph"]["nodes"] if n["kind"] == "op"]
    assert syms[:3] == ["h₁", "h₂", "h₃"] and len(set(syms)) == 20
    labels = [n["label"] for n in resp["graph"]["nodes"] if n["kind"] == "op"]
    assert labels[0] == "SigmoidBackward0 #1" and len(set(labels)) == 20


def test_fresh_letters_avoid_the_programs_names():
    resp = answer("u = torch.tensor(2.0, requires_grad=True)\nv = torch.tensor(3.0, requires_grad=True)\n"
                  "y = (u * v + u).sum()\ny.backward()\n")
    syms = {n["sym"] for n in resp["graph"]["nodes"]}
    assert len(syms) == len(resp["graph"]["nodes"])  # no two nodes share a name
    mul = by_label(resp)["MulBackward0"]
    assert mul["sym"] not in ("u", "v")


def test_forward_ops_know_the_expression_that_ran():
    source = example_source("neuron")
    resp = answer(source)
    mul = by_label(resp)["MulBackward0"]
    line = source.splitlines()[mul["line"] - 1]
    assert mul["end_line"] == mul["line"] and line[mul["col"] - 1:mul["end_col"] - 1] == "x * w"
    add = by_label(resp)["AddBackward0"]
    assert line[add["col"] - 1:add["end_col"] - 1] == "x * w + b"
    assert add["explain"]["about"]["en"] == "sum of two tensors, element by element"


def test_too_large_steps_keep_their_rules_without_arithmetic():
    resp = answer("W = torch.randn(100, 100, requires_grad=True)\nx = torch.randn(100, 100)\n"
                  "loss = (W @ x).sum()\nloss.backward()\n")
    work = step_of(resp, by_label(resp)["MmBackward0"]["id"])["explain"]["inputs"][0]
    assert work["rule"] == "∂loss/∂W = G · xᵀ" and work["ok"] is None and not work.get("steps")


def test_rules_no_step_visited_keep_each_nodes_own_names():
    """Rules without a backward pass are worked out once per op and shapes, then given each node's
    names: x * x and a * b (same op, same shapes) must not share their letters."""
    resp = answer("x = torch.ones(2, requires_grad=True)\na = torch.ones(2, requires_grad=True)\n"
                  "b = torch.ones(2, requires_grad=True)\ny = x * x\nz = a * b\nw = b * a\n")
    rules = {n["sym"]: n["explain"]["rules"] for n in resp["graph"]["nodes"] if n["kind"] == "op"}
    assert rules == {"y": ["∂y/∂x = x", "∂y/∂x = x"], "z": ["∂z/∂a = b", "∂z/∂b = a"],
                     "w": ["∂w/∂b = a", "∂w/∂a = b"]}


def test_a_number_is_a_constant_in_the_programs_order_without_a_derivative():
    resp = answer("x = torch.tensor(2.0, requires_grad=True)\nz = 4 * x\nw = -0.5 * x + 3\n"
                  "(z + w).backward()\n")
    mul, add = by_label(resp)["MulBackward0 #1"], by_label(resp)["AddBackward0 #1"]
    assert mul["explain"]["expr"] == "4 · x" and mul["explain"]["rules"] == ["∂z/∂x = 4", None]
    assert by_label(resp)["MulBackward0 #2"]["explain"]["expr"] == "(−0.5) · x"
    assert add["explain"]["expr"] == "u + 3" and add["explain"]["rules"][1] is None
    work = step_of(resp, mul["id"])["explain"]["inputs"]
    assert work[0]["values"] == [] and work[0]["steps"][0]["text"] == "G·4" and work[0]["ok"]
    assert work[0]["steps"][0]["args"] == [{"G": 1}, {"num": 4}]
    neg = step_of(resp, by_label(resp)["MulBackward0 #2"]["id"])["explain"]["inputs"][0]
    assert neg["rule"] == "∂u/∂x = −0.5" and neg["steps"][0]["text"] == "G·(−0.5)"


def test_an_expressions_rules_differentiate_its_output_by_its_own_name():
    resp = answer("(a + b) * c", {"a": {"value": 2.0}, "b": {"value": -3.0}, "c": {"value": 10.0}})
    mul = by_label(resp)["MulBackward0"]
    assert {s["explain"]["root"] for s in resp["backward"][0]["steps"] if "explain" in s} == {mul["sym"]}
    assert "L" != mul["sym"]
    mm = answer("A = torch.ones(2, 2, requires_grad=True)\nC = A @ A\n")  # no backward: the output's name
    assert by_label(mm)["MmBackward0"]["explain"]["rules"][0].startswith("∂C/∂A")


def test_notes_about_an_ops_own_arguments_never_attach_to_the_students_names():
    resp = answer("x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                  "w = torch.tensor([3.0, -1.0], requires_grad=True)\n"
                  "n = torch.tensor([2.0, 2.0], requires_grad=True)\n"
                  "y = (w * w).sum() + (x * w).sum() + (n * x).sum()\ny.backward()\n")
    read = [v for bp in resp["backward"] for s in bp["steps"] if "explain" in s
            for w in s["explain"]["inputs"] if w for v in w["values"]]
    assert {v["name"] for v in read} >= {"w", "x", "n"}
    assert not [v for v in read if "says" in v]  # no "(the weight argument)" beside the program's w
    where = answer("a = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                   "b = torch.tensor([3.0, 4.0], requires_grad=True)\n"
                   "torch.where(a > 0, a, b).sum().backward()\n")
    cond = [v for bp in where["backward"] for s in bp["steps"] if "explain" in s
            for w in s["explain"]["inputs"] if w for v in w["values"] if v["name"] == "cond"]
    assert cond and cond[0]["says"] == {"en": "the condition", "zh": "条件"}  # the op's own data keeps it


def test_the_mlp_builders_zero_grad_comment_says_what_the_step_text_says():
    from app.mlp.builder import build_program
    from app.mlp.comments import comment_zh
    from app.schemas import MlpConfig

    source, _ = build_program(MlpConfig())
    line = next(ln for ln in source.splitlines() if "optimizer.zero_grad()" in ln)
    comment = line.split("#", 1)[1].strip()
    assert "None" in comment and "zero" not in comment.replace("zero_grad", "")  # as the step says: (to None)
    assert "None" in comment_zh(comment)


def test_cross_entropys_rule_names_no_internal_key():
    resp = answer("import torch.nn.functional as F\nx = torch.tensor([[1.0, 2.0, 0.5]], requires_grad=True)\n"
                  "loss = F.cross_entropy(x, torch.tensor([1]))\nloss.backward()\n")
    nll = by_label(resp)["NllLossBackward0"]
    assert nll["explain"]["rules"] == ["∂loss/∂u = G / Σw·c"]  # G divided first, as torch rounds it
    work = step_of(resp, nll["id"])["explain"]["inputs"][0]
    assert [v["name"] for v in work["values"]] == ["Σw", "c"] and work["ok"]
    assert all("says" in v for v in work["values"])

"""Check it by hand: autograd against a float64 central difference on the replayed graph, and against
the course's formula for every built-in example."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import engine
from app.examples import EXAMPLES, example_source
from app.worker.course import FORMULAS, example_of
from app.worker.execute import run_and_serialize
from app.worker.gradcheck import LISTED, check_passes
from engine.trace import recording

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from oracle_cases import all_cases  # noqa: E402

RAW = [c for c in all_cases() if c.finite_diff]


def checks(source: str, variables: dict | None = None) -> list[dict]:
    out = run_and_serialize(source, variables)
    assert "response" in out, out
    return out["response"]["grad_check"]


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_every_example_agrees_three_ways(ex):
    passes = checks(ex["source"], ex.get("variables"))
    assert passes, "a check for every kept pass"
    assert example_of(ex["source"]) == ex["id"] and ex["id"] in FORMULAS
    checked = 0
    for p in passes:
        if p["status"] == "skipped":
            # the pass that fails, and autograd.grad's pass (it writes no .grad to compare)
            expected = {("no_leaves", "backward-twice"), ("autograd_grad", "second-derivative")}
            assert (p["reason"], ex["id"]) in expected
            continue
        for leaf in p["leaves"]:
            assert leaf["hand"] is not None, (ex["id"], leaf["name"])
            assert leaf["hand"]["rel_error"] < leaf["tolerance"], (ex["id"], leaf["name"], leaf["hand"])
            if ex["id"] == "custom-function":  # the program's own backward: not run again, not differenced
                assert p["reason"] == leaf["reason"] == "program_function"
                continue
            if ex["id"] == "hook":  # the hook doubles the gradient: autograd and the course say 4x, f′ is 2x
                assert p["hook_changed"] and leaf["ok"] is False
                numeric = np.asarray(leaf["numeric"]["data"])
                assert np.allclose(leaf["autograd"]["data"], 2 * numeric, rtol=1e-3)
                continue
            if leaf["reason"] == "below_resolution":  # 1e-13 after 20 sigmoids: too small for a difference
                assert ex["id"] == "vanishing"
                continue
            assert leaf["ok"] is True, (ex["id"], leaf)
            checked += 1
    assert checked or ex["id"] in ("vanishing", "custom-function", "hook")


def test_float32_differs_by_about_1e4_and_float64_by_far_less():
    f32 = checks(example_source("neuron"))[0]["leaves"]
    assert all(1e-6 < leaf["rel_error"] < 1e-3 and leaf["tolerance"] == 1e-3 for leaf in f32)
    f64 = checks("torch.set_default_dtype(torch.float64)\n" + example_source("neuron"))[0]["leaves"]
    assert all(leaf["rel_error"] < 1e-8 and leaf["tolerance"] == 1e-6 and leaf["ok"] for leaf in f64)
    assert all(leaf["hand"] is None for leaf in f64)  # not the example's program any more


def test_a_large_leaf_is_sampled():
    leaves = checks("W = torch.randn(10, 20, requires_grad=True)\nx = torch.randn(20, 3)\n"
                    "loss = torch.tanh(W @ x).sum()\nloss.backward()\n")[0]["leaves"]
    (w,) = leaves
    assert w["total"] == 200 and w["checked"] == 16 and len(w["positions"]) == 16 and w["ok"]
    assert len(w["numeric"]["data"]) == 16 and len(w["autograd_at"]["data"]) == 16


def test_no_time_left_says_so():
    with recording() as rec:
        x = engine.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
    (p,) = check_passes(rec.trace, [0], 0.0)
    assert p["reason"] == "time_budget" and p["leaves"][0]["reason"] == "time_budget"
    assert p["leaves"][0]["ok"] is None and p["leaves"][0]["autograd"]["data"] == [2.0, 4.0]


def test_the_replay_budget_stops_at_the_same_leaf_on_any_machine():
    with recording() as rec:
        a = engine.tensor([1.0, 2.0], requires_grad=True)
        b = engine.tensor([3.0, 4.0], requires_grad=True)
        (a * b).sum().backward()
    # each element of a leaf costs two replays of the two ops below it (mul, sum): 8 a leaf
    for _ in range(3):
        (p,) = check_passes(rec.trace, [0], 60.0, replayed_ops=12)
        assert [leaf["reason"] for leaf in p["leaves"]] == [None, "time_budget"]
    (p,) = check_passes(rec.trace, [0], 60.0, replayed_ops=16)
    assert all(leaf["ok"] for leaf in p["leaves"])


def test_a_deep_model_lists_its_first_leaves_and_counts_the_others():
    source = ("layers = [nn.Linear(2, 2) for _ in range(40)]\nx = torch.ones(1, 2)\n"
              "for layer in layers:\n    x = torch.tanh(layer(x))\nx.sum().backward()\n")
    (p,) = checks(source)
    assert len(p["leaves"]) == LISTED and p["unlisted"] == 80 - LISTED
    assert all(leaf["ok"] for leaf in p["leaves"] if leaf["reason"] is None)
    (small,) = checks("x = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n")
    assert small["unlisted"] == 0 and len(small["leaves"]) == 1


def test_autograd_grad_writes_nothing_to_check():
    (p,) = checks("x = torch.tensor(2.0, requires_grad=True)\n(g,) = torch.autograd.grad(x ** 3, x)\n")
    assert p["status"] == "skipped" and p["reason"] == "autograd_grad"


@pytest.mark.parametrize("case", RAW, ids=[c.id for c in RAW])
def test_the_replay_reproduces_autograd_for_every_op(case):
    """Each oracle case (float64 leaves, a random weighting of its output) checked by the replay."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    arrays = case.inputs(rng)
    with recording() as rec:
        leaves = [engine.tensor(a.tolist(), dtype=engine.float64, requires_grad=True) if a.dtype == np.float64
                  else engine.tensor(a.tolist(), dtype=engine.bool if a.dtype == np.bool_ else engine.int64)
                  for a in arrays]
        out = case.fn(engine, *leaves)
        out.backward(engine.tensor(rng.uniform(-1, 1, tuple(out.shape)).tolist(), dtype=out.dtype))
    (p,) = check_passes(rec.trace, [rec.trace.passes[-1].index], 30.0)  # out.backward(), the last pass
    assert p["status"] == "checked" and p["reason"] is None, p
    for leaf in p["leaves"]:
        assert leaf["ok"] is True or leaf["reason"] == "below_resolution", (leaf["name"], leaf["rel_error"])


def test_a_programs_function_is_not_run_again_and_a_hook_that_changes_a_gradient_is_said():
    function = """
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g

x = torch.tensor([1.0, 2.0], requires_grad=True)
Cube.apply(x).sum().backward()
"""
    (check,) = checks(function)
    assert check["reason"] == "program_function" and not check["hook_changed"]
    assert check["leaves"][0]["reason"] == "program_function" and check["leaves"][0]["numeric"] is None
    hooked = """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: g * 2)
y.sum().backward()
"""
    (check,) = checks(hooked)
    assert check["hook_changed"] and check["reason"] is None
    (leaf,) = check["leaves"]
    assert leaf["ok"] is False and leaf["rel_error"] > 0.4  # autograd's x.grad is twice ∂f/∂x here

"""Generated programs run through the engine's runner: they learn, and their loop matches PyTorch."""

import re

import numpy as np
import pytest

from app.mlp import builder as mb
from app.mlp.boundary import forward, predict
from app.schemas import MlpConfig
from engine import runner

LINEAR = dict(dataset="linear", input_size=1, output_size=1, hidden="", loss="mse", optimizer="sgd",
              lr=0.1, steps=100, n_points=100)


def run(source: str):
    result = runner.run_program(source)
    assert result.error is None, result.error
    return result


def losses_of(trace) -> list[float]:
    """The loss of every backward pass: the value of its root node."""
    return [float(np.asarray(trace.nodes[bp.root].value).reshape(-1)[0]) for bp in trace.passes]


def test_linear_regression_learns_w_and_b():
    source, _ = mb.build_program(MlpConfig(**LINEAR))
    result = run(source)
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("step ")]
    assert [int(re.match(r"step (\d+):", ln).group(1)) for ln in lines] == [20, 40, 60, 80, 100]
    assert all(re.search(r"loss \d+\.\d{4}$", ln) for ln in lines)
    x = np.asarray(result.variables["X"]._data)
    assert x.shape == (100, 1) and x.min() >= -1 and x.max() <= 1
    w = float(np.asarray(result.variables["w"]._data).reshape(-1)[0])
    b = float(np.asarray(result.variables["b"]._data).reshape(-1)[0])
    assert abs(w - 2) < 0.05, w
    assert abs(b - 1) < 0.05, b
    assert f"w = {w:.4f}, b = {b:.4f}" in result.stdout
    losses = losses_of(result.trace)
    assert len(losses) == 100 and losses[-1] < losses[0] / 10


def test_two_moons_mlp_reaches_95_percent_with_adam():
    cfg = MlpConfig()  # 2-16-16-2, ReLU, cross-entropy, Adam lr 0.01, 500 steps, 200 points
    facts = (mb.parse_hidden(cfg.hidden), cfg.optimizer, cfg.steps, cfg.n_points)
    assert facts == ((16, 16), "adam", 500, 200)
    source, p = mb.build_program(cfg)
    result = run(source)
    accs = [float(a) for a in re.findall(r"accuracy (\d+\.\d)%", result.stdout)]
    assert len(accs) == 5 and accs[-1] >= 95.0
    # Independently: the final weights (after the last step) classify the data.
    steps = result.trace.optimizer_steps
    assert len(steps) == 500
    weights = [np.asarray(q["after"]) for q in steps[-1].params]
    x = np.asarray(result.variables["X"]._data, dtype=np.float64)
    y = np.asarray(result.variables["y"]._data)
    cls, _ = predict(forward(weights, cfg.activation, x), p)
    assert (cls == y).mean() >= 0.95


@pytest.mark.parametrize("changes", [
    dict(dataset="xor", loss="bce", output_size=1, batch_size=50, accumulate=2, steps=60),
    dict(dataset="circles", loss="mse", activation="tanh", style="sequential", steps=60),
    dict(dataset="blobs", classes=4, output_size=4, optimizer="sgd", lr=0.1, momentum=0.9, steps=60),
])
def test_other_programs_run_and_learn(changes):
    source, _ = mb.build_program(MlpConfig(**changes))
    result = run(source)
    losses = losses_of(result.trace)
    cfg = MlpConfig(**changes)
    assert len(losses) == cfg.steps * cfg.accumulate
    assert np.mean(losses[-5:]) < np.mean(losses[:5])


def test_forgetting_zero_grad_makes_gradients_grow():
    base = dict(dataset="blobs", classes=3, output_size=3, optimizer="sgd", lr=0.01, steps=6, hidden="4")
    good = run(mb.build_program(MlpConfig(**base))[0]).trace
    bad = run(mb.build_program(MlpConfig(**base, zero_grad=False))[0]).trace

    def grad_norms(trace):
        return [float(np.linalg.norm(np.asarray(s.params[0]["grad"]))) for s in trace.optimizer_steps]

    assert sum(1 for kind, _ in good.events if kind == "zero_grad") == 6
    assert sum(1 for kind, _ in bad.events if kind == "zero_grad") == 0
    g, b = grad_norms(good), grad_norms(bad)
    assert g[0] == pytest.approx(b[0])
    assert b[-1] > 3 * g[-1]  # six passes' gradients added up


def test_accumulation_adds_grads_pass_by_pass():
    cfg = MlpConfig(dataset="moons", accumulate=4, optimizer="sgd", lr=0.1, steps=3, hidden="4")
    trace = run(mb.build_program(cfg)[0]).trace
    assert len(trace.passes) == 12 and len(trace.optimizer_steps) == 3
    kinds = [k for k, _ in trace.events if k != "op"]
    assert kinds[:6] == ["zero_grad", "backward", "backward", "backward", "backward", "optim"]
    # The grad the step used is the sum of the four micro-batch passes' contributions.
    first = trace.optimizer_steps[0].params[0]
    weight_steps = [s for bp in trace.passes[:4] for s in bp.steps
                    if s.kind == "leaf" and s.grad_after is not None and s.grad_after.shape == (4, 2)]
    assert len(weight_steps) == 4
    np.testing.assert_allclose(weight_steps[-1].grad_after, first["grad"])
    norms = [np.linalg.norm(s.grad_after) for s in weight_steps]
    assert norms[-1] != pytest.approx(norms[0])


# ---- the generated loop against PyTorch, same data and initial weights ---------------------------
TORCH_PARITY = [
    dict(optimizer="sgd", lr=0.1, momentum=0.9),
    dict(optimizer="adam", lr=0.01),
    dict(optimizer="adam", lr=0.02, loss="bce", output_size=1, batch_size=50, accumulate=2),
    dict(dataset="linear", input_size=1, output_size=1, hidden="4", activation="tanh", loss="mse",
         optimizer="sgd", lr=0.1),
]


def torch_program(cfg: MlpConfig, p: mb.Plan, data_file: str) -> str:
    """The generated model, loss, optimizer and loop, with data and initial weights from a file."""
    lines = ["import numpy as np", "import torch", "import torch.nn as nn",
             "torch.set_default_dtype(torch.float64)",
             f"_d = np.load({data_file!r})",
             "X = torch.from_numpy(_d['X'])", "y = torch.from_numpy(_d['y'])", "n = X.shape[0]"]
    lines += [ln for ln in mb.data_section(cfg, p) if ln.startswith("target = ")]
    lines += mb.model_section(cfg, p)
    lines += ["with torch.no_grad():",
              "    for _i, _p in enumerate(model.parameters()):",
              "        _p.copy_(torch.from_numpy(_d[f'w{_i}']))"]
    lines += mb.setup_section(cfg, p) + mb.loop_section(cfg, p)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("changes", TORCH_PARITY)
def test_loss_curve_matches_torch(changes, torch_run, tmp_path):
    cfg = MlpConfig(**changes, steps=20, dtype="float64")
    source, p = mb.build_program(cfg)
    result = run(source)
    ours = losses_of(result.trace)
    init = [np.asarray(q["before"], dtype=np.float64) for q in result.trace.optimizer_steps[0].params]
    x = np.asarray(result.variables["X"]._data)
    y = np.asarray(result.variables["y"]._data)
    assert x.dtype == np.float64
    np.savez(tmp_path / "data.npz", X=x, y=y, **{f"w{i}": w for i, w in enumerate(init)})
    theirs, stdout = torch_run(torch_program(cfg, p, str(tmp_path / "data.npz")))
    assert len(ours) == len(theirs) == 20 * cfg.accumulate
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)
    assert ours[-1] < ours[0]
    # The printed lines agree too (same loss and accuracy to the digits shown).
    ours_lines = [ln for ln in result.stdout.splitlines() if ln.startswith("step ")]
    assert ours_lines == [ln for ln in stdout.splitlines() if ln.startswith("step ")]

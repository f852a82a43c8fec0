"""The builder's checks and the programs it writes (run under real PyTorch as the oracle)."""

import re

import pytest

from app.mlp import builder as mb
from app.mlp.builder import MlpConfigError, build_program, parse_hidden, plan
from app.schemas import MlpConfig

LINEAR = dict(dataset="linear", input_size=1, output_size=1, hidden="", loss="mse", optimizer="sgd",
              lr=0.1, steps=100, n_points=100)


def test_parse_hidden():
    assert parse_hidden("8, 16") == (8, 16)
    assert parse_hidden(" 4 ;5,") == (4, 5)
    assert parse_hidden("") == ()
    assert parse_hidden([3]) == (3,)
    with pytest.raises(MlpConfigError, match="whole numbers"):
        parse_hidden("8, x")
    with pytest.raises(MlpConfigError, match="between 1 and 256"):
        parse_hidden("0")


@pytest.mark.parametrize("changes, field", [
    (dict(dataset="linear", input_size=2), "input_size"),
    (dict(LINEAR, loss="cross_entropy"), "loss"),
    (dict(dataset="moons", output_size=3), "output_size"),
    (dict(dataset="blobs", classes=3, loss="bce", output_size=1), "loss"),
    (dict(dataset="moons", input_size=1), "input_size"),
    (dict(dataset="blobs", classes=4, loss="mse", output_size=1), "output_size"),
])
def test_plan_rejects_mismatches(changes, field):
    with pytest.raises(MlpConfigError) as info:
        plan(MlpConfig(**changes))
    assert info.value.field == field
    assert str(info.value)


def test_plan_targets():
    assert plan(MlpConfig()).target == "y"
    assert plan(MlpConfig(loss="bce", output_size=1)).threshold == 0.0
    assert plan(MlpConfig(loss="mse", output_size=2)).target == "one_hot"
    assert plan(MlpConfig(loss="mse", output_size=1)).threshold == 0.5
    p = plan(MlpConfig(**LINEAR))
    assert (p.task, p.hidden, p.output_size) == ("regression", (), 1)


def test_program_text_default():
    source, p = build_program(MlpConfig())
    assert "class Net(nn.Module):" in source
    assert "self.fc1 = nn.Linear(2, 16)" in source and "self.fc3 = nn.Linear(16, 2)" in source
    assert "nn.CrossEntropyLoss()" in source
    assert "torch.optim.Adam(model.parameters(), lr=0.01)" in source
    assert "optimizer.zero_grad()" in source and "loss.backward()" in source
    assert "torch.manual_seed(0)" in source
    assert p.classes == 2


def test_program_text_variants():
    seq, _ = build_program(MlpConfig(style="sequential", activation="tanh", hidden="8"))
    assert "model = nn.Sequential(" in seq and "nn.Tanh()," in seq and "class Net" not in seq
    sgd, _ = build_program(MlpConfig(optimizer="sgd", lr=0.1, momentum=0.9))
    assert "torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)" in sgd
    acc, _ = build_program(MlpConfig(accumulate=4, steps=100))
    assert "for micro in range(accumulate):" in acc and "/ accumulate" in acc
    forgot, _ = build_program(MlpConfig(zero_grad=False))
    assert "    optimizer.zero_grad()" not in forgot
    f64, _ = build_program(MlpConfig(dtype="float64"))
    assert "torch.set_default_dtype(torch.float64)" in f64


# One program per data set, loss and structural option: each must run unchanged in PyTorch.
TORCH_CASES = [
    LINEAR,
    dict(),
    dict(dataset="xor", loss="bce", output_size=1, batch_size=32, steps=200),
    dict(dataset="circles", loss="mse", activation="tanh", accumulate=4, style="sequential",
         optimizer="sgd", lr=0.1, momentum=0.9, steps=100),
    dict(dataset="blobs", classes=4, output_size=4, loss="mse", optimizer="sgd", lr=0.05, steps=50),
    dict(dataset="moons", loss="mse", output_size=1, activation="sigmoid", steps=50),
]


@pytest.mark.parametrize("changes", TORCH_CASES)
def test_programs_run_in_torch(changes, torch_run):
    cfg = MlpConfig(**changes)
    source, p = build_program(cfg)
    losses, stdout = torch_run(source)
    assert len(losses) == cfg.steps * cfg.accumulate
    lines = [ln for ln in stdout.splitlines() if ln.startswith("step ")]
    assert len(lines) == 5
    if p.task == "classification":
        assert all(re.search(r"accuracy \d+\.\d%", ln) for ln in lines)


def test_forgetting_zero_grad_hurts_in_torch(torch_run):
    base = dict(dataset="blobs", classes=4, output_size=4, loss="mse", optimizer="sgd", lr=0.05, steps=500)
    good, _ = torch_run(build_program(MlpConfig(**base))[0])
    bad, _ = torch_run(build_program(MlpConfig(**base, zero_grad=False))[0])
    assert good[-1] < 0.06
    assert bad[-1] > 2 * good[-1]


def test_steps_are_limited_by_what_the_runner_keeps():
    from engine.runner import Settings

    cfg = MlpConfig()
    limits = mb.step_limits(cfg, (16, 16), 2)
    assert set(limits) == {"max_ops", "timeout_s"}
    assert limits["max_ops"] * mb.ops_per_pass((16, 16), 1) <= Settings().max_ops
    most = min(limits.values())
    assert most >= 500  # a 500-step training run fits
    plan(MlpConfig(steps=most))
    with pytest.raises(MlpConfigError, match="at most") as info:
        plan(MlpConfig(steps=most + 1))
    assert info.value.field == "steps" and "limit: " in str(info.value)
    # Bigger batches and micro-batches allow fewer steps.
    assert min(mb.step_limits(MlpConfig(accumulate=4), (16, 16), 2).values()) < most
    assert mb.step_limits(MlpConfig(), (16, 16, 16, 16), 2)["max_ops"] < limits["max_ops"]

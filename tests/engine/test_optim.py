"""torch.optim against PyTorch: identical loss curves in float64, training that converges, parameter
groups, zero_grad, errors, and the OptimizerStep records of the trace."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import engine
from engine import nn, optim


def _mlp(lib, sizes, act):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(lib.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(getattr(lib.nn, act)())
    return lib.nn.Sequential(*layers)


def _twins(sizes=(3, 8, 8, 2), act="Tanh", seed=0):
    """The same float64 MLP in the engine and in torch (torch gets the engine's initial weights)."""
    engine.manual_seed(seed)
    ours = _mlp(engine, sizes, act).double()
    theirs = _mlp(torch, sizes, act).double()
    with torch.no_grad():
        for (n1, p), (n2, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert n1 == n2
            q.copy_(torch.tensor(np.asarray(p.tolist())))
    return ours, theirs


def _curve(lib, model, make_opt, x, y, loss_name, steps=20):
    xs = lib.tensor(x.tolist(), dtype=lib.float64)
    if loss_name == "ce":
        ys = lib.tensor(y.tolist())
        crit = lib.nn.CrossEntropyLoss()
    else:
        ys = lib.tensor(y.tolist(), dtype=lib.float64)
        crit = lib.nn.MSELoss()
    opt = make_opt(lib, model.parameters())
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = crit(model(xs), ys)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses), [np.asarray(p.tolist()) for p in model.parameters()]


OPTIMIZERS = {
    "sgd": lambda lib, ps: lib.optim.SGD(ps, lr=0.1),
    "sgd-momentum": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9),
    "sgd-momentum-wd": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01),
    "sgd-dampening": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.3),
    "sgd-nesterov": lambda lib, ps: lib.optim.SGD(
        ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3
    ),
    "sgd-maximize": lambda lib, ps: lib.optim.SGD(ps, lr=0.01, maximize=True),
    "adam": lambda lib, ps: lib.optim.Adam(ps, lr=0.01),
    "adam-wd": lambda lib, ps: lib.optim.Adam(ps, lr=0.01, weight_decay=0.05),
    "adam-amsgrad": lambda lib, ps: lib.optim.Adam(ps, lr=0.02, betas=(0.8, 0.99), eps=1e-6, amsgrad=True),
    "adam-beta1-low": lambda lib, ps: lib.optim.Adam(ps, lr=0.01, betas=(0.3, 0.9)),
    "adamw": lambda lib, ps: lib.optim.AdamW(ps, lr=0.01),
    "rmsprop": lambda lib, ps: lib.optim.RMSprop(ps, lr=0.01),
    "rmsprop-momentum-wd": lambda lib, ps: lib.optim.RMSprop(ps, lr=0.005, momentum=0.9, weight_decay=0.01),
    "rmsprop-centered": lambda lib, ps: lib.optim.RMSprop(
        ps, lr=0.01, alpha=0.9, centered=True, momentum=0.5
    ),
    "adagrad": lambda lib, ps: lib.optim.Adagrad(ps, lr=0.1),
    "adagrad-decay": lambda lib, ps: lib.optim.Adagrad(
        ps, lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1, eps=1e-8
    ),
}


@pytest.mark.parametrize("loss_name", ["mse", "ce"])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_loss_curve_matches_torch_for_20_steps(name, loss_name):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(16, 3))
    y = rng.integers(0, 2, size=16) if loss_name == "ce" else rng.normal(size=(16, 2))
    ours, theirs = _twins()
    lo, po = _curve(engine, ours, OPTIMIZERS[name], x, y, loss_name)
    lt, pt = _curve(torch, theirs, OPTIMIZERS[name], x, y, loss_name)
    np.testing.assert_allclose(lo, lt, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(lo, lt, rtol=1e-10, atol=1e-12)  # in practice they agree to rounding
    for a, b in zip(po, pt):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
    if not name.endswith("maximize"):
        assert lo[-1] < lo[0]


def test_linear_regression_converges():
    """nn.Linear + nn.MSELoss + optim.SGD(lr=0.1): 100 points in [-1, 1], 100 epochs, y = 2x + 1 + noise."""
    engine.manual_seed(0)
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, size=(100, 1))
    ys = 2 * xs + 1 + rng.normal(0, 0.1, size=(100, 1))
    x, y = engine.tensor(xs.tolist()), engine.tensor(ys.tolist())
    model = nn.Linear(1, 1)
    crit = nn.MSELoss()
    opt = optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(100):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert abs(model.weight.item() - 2) < 0.05
    assert abs(model.bias.item() - 1) < 0.05
    assert losses[-1] < 0.02 < losses[0]
    assert model.weight.dtype == engine.float32


def _two_moons(n, noise, rng):
    """Two interleaving half circles (as sklearn's make_moons), labels 0 and 1."""
    half = n // 2
    t_out = np.linspace(0, np.pi, half)
    t_in = np.linspace(0, np.pi, n - half)
    x = np.concatenate(
        [np.stack([np.cos(t_out), np.sin(t_out)], 1), np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], 1)]
    )
    y = np.concatenate([np.zeros(half, dtype=np.int64), np.ones(n - half, dtype=np.int64)])
    return x + rng.normal(0, noise, x.shape), y


def test_two_moons_mlp_reaches_95_percent_with_adam():
    rng = np.random.default_rng(1)
    xs, ys = _two_moons(200, 0.1, rng)
    engine.manual_seed(1)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))
    x, y = engine.tensor(xs.tolist()), engine.tensor(ys.tolist())
    crit = nn.CrossEntropyLoss()
    opt = optim.Adam(model.parameters(), lr=0.01)
    best = 0.0
    for _ in range(500):
        opt.zero_grad()
        out = model(x)
        loss = crit(out, y)
        loss.backward()
        opt.step()
        best = max(best, float((out.argmax(1) == y).float().mean().item()))
        if best >= 0.95:
            break
    with engine.no_grad():
        acc = float((model(x).argmax(1) == y).float().mean().item())
    assert max(best, acc) >= 0.95


# ---- mechanics ------------------------------------------------------------------------------------------
def test_step_runs_without_grad_and_skips_params_without_grad():
    a = nn.Parameter(engine.tensor([1.0, 2.0]))
    b = nn.Parameter(engine.tensor([3.0]))
    opt = optim.SGD([a, b], lr=0.5)
    (a * a).sum().backward()
    v = a._version
    opt.step()
    assert a.tolist() == [0.0, 0.0] and b.tolist() == [3.0]
    assert a.is_leaf and a.grad_fn is None and a.requires_grad
    assert a._version == v + 1


def test_step_between_forward_and_backward_raises_like_torch():
    msgs = []
    for lib in (engine, torch):
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.SGD([w], lr=0.1)
        (w * w).sum().backward()
        loss = (w * w).sum()
        opt.step()
        with pytest.raises(RuntimeError) as e:
            loss.backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_zero_grad_modes():
    w = nn.Parameter(engine.tensor([1.0, 2.0]))
    opt = optim.Adam([w])
    (w * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None and w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_gradient_accumulation_then_step():
    w = nn.Parameter(engine.tensor([1.0]))
    opt = optim.SGD([w], lr=0.1)
    for _ in range(3):
        (w * 2).sum().backward()
    assert w.grad.tolist() == [6.0]
    opt.step()
    assert w.tolist() == pytest.approx([1.0 - 0.6])


def test_param_groups_with_their_own_lr():
    a = nn.Parameter(engine.tensor([1.0]))
    b = nn.Parameter(engine.tensor([1.0]))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.0)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.5)
    opt.param_groups[0]["lr"] = 1.0
    opt.zero_grad()
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(-0.1)


def test_named_parameters_are_accepted():
    m = nn.Linear(2, 1)
    opt = optim.SGD(m.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"][0] is m.weight


def test_closure_is_called_with_grad_enabled():
    w = nn.Parameter(engine.tensor([2.0]))
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with engine.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == 1.0


def test_state_holds_torch_like_buffers():
    w = nn.Parameter(engine.tensor([1.0, -1.0]))
    opt = optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    st = opt.state[w]
    assert set(st) == {"step", "exp_avg", "exp_avg_sq"} and st["step"].item() == 1.0
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and 0 in sd["state"]
    sgd = optim.SGD([w], lr=0.1, momentum=0.9)
    (w * w).sum().backward()
    sgd.step()
    assert "momentum_buffer" in sgd.state[w]


def test_repr_matches_torch():
    a = optim.SGD([nn.Parameter(engine.zeros(1))], lr=0.1, momentum=0.9)
    b = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
    assert repr(a) == repr(b)
    for name in ("Adam", "AdamW", "RMSprop", "Adagrad"):
        a = getattr(optim, name)([nn.Parameter(engine.zeros(1))])
        b = getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(1))])
        assert repr(a) == repr(b), name


def test_adagrad_and_rmsprop_state_is_torch_s():
    for make in (OPTIMIZERS["adagrad-decay"], OPTIMIZERS["rmsprop-centered"]):
        states = []
        for lib in (engine, torch):
            w = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
            opt = make(lib, [w])
            before = {k: v.tolist() for k, v in opt.state_dict()["state"].get(0, {}).items()}
            (w * w).sum().backward()
            opt.step()
            after = {k: v.tolist() for k, v in opt.state_dict()["state"][0].items()}
            states.append((before, after))
        assert states[0][0] == states[1][0]
        assert states[0][1].keys() == states[1][1].keys()
        for k in states[0][1]:
            np.testing.assert_allclose(states[0][1][k], states[1][1][k], rtol=1e-6)


ERRORS = {
    "empty": lambda lib: lib.optim.SGD([], lr=0.1),
    "lr": lambda lib: lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=-1),
    "momentum": lambda lib: lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, momentum=-1),
    "nesterov": lambda lib: lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1, nesterov=True),
    "beta": lambda lib: lib.optim.Adam([lib.zeros(1, requires_grad=True)], betas=(1.0, 0.9)),
    "eps": lambda lib: lib.optim.Adam([lib.zeros(1, requires_grad=True)], eps=-1.0),
    "rmsprop-alpha": lambda lib: lib.optim.RMSprop([lib.zeros(1, requires_grad=True)], alpha=-0.5),
    "rmsprop-momentum": lambda lib: lib.optim.RMSprop([lib.zeros(1, requires_grad=True)], momentum=-1),
    "adagrad-lr-decay": lambda lib: lib.optim.Adagrad([lib.zeros(1, requires_grad=True)], lr_decay=-1),
    "adagrad-initial": lambda lib: lib.optim.Adagrad(
        [lib.zeros(1, requires_grad=True)], initial_accumulator_value=-1
    ),
    "non-leaf": lambda lib: lib.optim.SGD([lib.zeros(1, requires_grad=True) * 2], lr=0.1),
    "duplicate": lambda lib: lib.optim.SGD(
        [{"params": [p := lib.zeros(1, requires_grad=True)]}, {"params": [p]}], lr=0.1
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    with pytest.raises(Exception) as et:
        ERRORS[name](torch)
    with pytest.raises(Exception) as eo:
        ERRORS[name](engine)
    assert type(eo.value) is type(et.value) and str(eo.value) == str(et.value)


# ---- trace ---------------------------------------------------------------------------------------
def test_optimizer_step_is_recorded():
    engine.manual_seed(2)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    opt = optim.SGD(model.parameters(), lr=0.1)
    x, y = engine.randn(4, 2), engine.randn(4, 1)
    with engine.trace.recording() as rec:
        rec.location = (7, 5)
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        ops_before_step = rec.op_total
        rec.location = (9, 5)
        opt.step()
        n_nodes = len(rec.trace.nodes)
        model(x)  # the next forward sees the updated parameters as new leaf nodes
    assert rec.op_total > ops_before_step  # only the second forward added ops, not the step
    (step,) = rec.trace.optimizer_steps
    assert step.index == 0 and step.optimizer == "SGD" and (step.line, step.col) == (9, 5)
    assert step.rule == "p ← p − lr·g (lr=0.1)"
    events = rec.trace.events
    assert [k for k, _ in events[:events.index(("optim", 0))]].count("op") == ops_before_step
    assert [p["name"] for p in step.params] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for entry, p in zip(step.params, model.parameters()):
        node = rec.trace.nodes[entry["node"]]
        assert node.kind == "leaf" and node.is_param and node.name == entry["name"]
        np.testing.assert_array_equal(node.value, entry["before"])
        np.testing.assert_allclose(
            entry["after"], entry["before"] - np.float32(0.1) * entry["grad"], rtol=1e-6
        )
        np.testing.assert_array_equal(entry["after"], p.detach().numpy())
        np.testing.assert_array_equal(entry["grad"], p.grad.numpy())
    kinds = [k for k, _ in rec.trace.events]
    assert kinds[0] == "zero_grad" and ("optim", 0) in rec.trace.events
    assert kinds.index("backward") < kinds.index("optim")
    new_leaves = [n for n in rec.trace.nodes[n_nodes:] if n.kind == "leaf" and n.is_param]
    assert [n.name for n in new_leaves] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    np.testing.assert_array_equal(new_leaves[0].value, step.params[0]["after"])


def test_adam_rule_text_and_missing_grads():
    a, b = nn.Parameter(engine.tensor([1.0])), nn.Parameter(engine.tensor([2.0]))
    opt = optim.Adam([a, b], lr=0.01, weight_decay=0.1)
    with engine.trace.recording() as rec:
        (a * 3).sum().backward()
        opt.step()
        opt.zero_grad()
    (step,) = rec.trace.optimizer_steps
    assert (
        step.optimizer == "Adam" and "m ← β₁·m + (1−β₁)·g" in step.rule and "g ← g + λ·p (λ=0.1)" in step.rule
    )
    pa, pb = step.params
    assert pa["grad"] is not None and pb["grad"] is None and pb["node"] is None
    np.testing.assert_array_equal(pb["before"], pb["after"])
    assert rec.trace.events[-2:] == [("optim", 0), ("zero_grad", 0)]
    assert rec.trace.zero_grads == [[(pa["node"], None)]]  # it set a's .grad to None (b had none)


def test_momentum_rule_text():
    opt = optim.SGD([nn.Parameter(engine.zeros(1))], lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    assert (
        opt.rule(opt.param_groups[0])
        == "g ← g + λ·p (λ=0.01); b ← μ·b + g (μ=0.9); g ← g + μ·b; p ← p − lr·g (lr=0.1)"
    )


def test_recording_off_records_nothing():
    w = nn.Parameter(engine.tensor([1.0]))
    opt = optim.SGD([w], lr=0.1)
    (w * 2).sum().backward()
    opt.step()
    opt.zero_grad()
    assert w._trace is None and engine.trace.ACTIVE is None


@pytest.mark.parametrize("name", ["sgd-nesterov", "adam-amsgrad", "adamw", "rmsprop-centered",
                                  "adagrad-decay"])
def test_float32_training_tracks_torch(name):
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(16, 3)), rng.integers(0, 2, size=16)
    engine.manual_seed(0)
    ours, theirs = _mlp(engine, (3, 8, 8, 2), "Tanh"), _mlp(torch, (3, 8, 8, 2), "Tanh")
    with torch.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            q.copy_(torch.tensor(p.tolist()))
    curves = []
    for lib, model in ((engine, ours), (torch, theirs)):
        xs, ys = lib.tensor(x.tolist()), lib.tensor(y.tolist())
        opt, crit, losses = OPTIMIZERS[name](lib, model.parameters()), lib.nn.CrossEntropyLoss(), []
        for _ in range(20):
            opt.zero_grad()
            loss = crit(model(xs), ys)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        curves.append(np.array(losses))
    assert all(p.dtype == engine.float32 for p in ours.parameters())
    np.testing.assert_allclose(curves[0], curves[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["step", "exp"])
def test_lr_schedulers_match_torch(kind):
    lrs = []
    for lib in (engine, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.5)
        if kind == "step":
            sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        else:
            sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
        seen = []
        for _ in range(10):
            opt.step()
            sched.step()
            seen.append((opt.param_groups[0]["lr"], sched.get_last_lr()[0]))
        lrs.append(seen)
        assert opt.param_groups[0]["initial_lr"] == 0.5
    assert lrs[0] == lrs[1]

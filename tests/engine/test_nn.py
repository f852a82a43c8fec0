"""torch.nn and torch.nn.functional against PyTorch in float64: modules, grad_fn chains, errors,
second-order gradients, and the trace hooks (module paths, parameter names, zero_grad events)."""

from __future__ import annotations

import math
import warnings
import zlib

import numpy as np
import pytest
import torch

import engine
from engine import nn
from engine.nn import functional as F

TOL = 1e-10


# ---- helpers ------------------------------------------------------------------------------------
def _both(arr, requires_grad=True):
    a = np.asarray(arr, dtype=np.float64)
    return (
        engine.tensor(a.tolist(), dtype=engine.float64, requires_grad=requires_grad),
        torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad),
    )


def _np(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def _close(a, b, tol=TOL):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _tree(fn) -> list:
    """grad_fn names of the whole graph, depth first (iterative), None for (None, 0) entries."""
    out, stack = [], [(fn, 0)]
    while stack:
        f, depth = stack.pop()
        out.append((depth, None if f is None else f.name()))
        if f is not None:
            stack.extend((n, depth + 1) for n, _ in reversed(f.next_functions))
    return out


def _copy_weights(ours: nn.Module, theirs: torch.nn.Module) -> None:
    """Give the torch model the engine model's parameters (float64)."""
    theirs.double()
    named = dict(theirs.named_parameters())
    assert list(named) == [n for n, _ in ours.named_parameters()]
    with torch.no_grad():
        for name, p in ours.named_parameters():
            named[name].copy_(torch.tensor(np.asarray(p.tolist()), dtype=torch.float64))


class EngineNet(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.act = act
        self.fc2 = nn.Linear(5, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TorchNet(torch.nn.Module):
    def __init__(self, act):
        super().__init__()
        self.fc1 = torch.nn.Linear(3, 5)
        self.act = act
        self.fc2 = torch.nn.Linear(5, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


# ---- Module registration and traversal ----------------------------------------------------------
def test_named_parameters_recursive_in_registration_order():
    m = EngineNet(nn.ReLU())
    assert [n for n, _ in m.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [tuple(p.shape) for p in m.parameters()] == [(5, 3), (5,), (4, 5), (4,)]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf for p in m.parameters())
    assert [n for n, _ in m.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "act", "fc2"]
    assert len(list(m.modules())) == 4 and len(list(m.children())) == 3


def test_nested_sequential_names_match_torch():
    ours = nn.Sequential(
        nn.Linear(2, 3), nn.Tanh(), nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Linear(3, 1)
    )
    theirs = torch.nn.Sequential(
        torch.nn.Linear(2, 3),
        torch.nn.Tanh(),
        torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU()),
        torch.nn.Linear(3, 1),
    )
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_shared_parameter_listed_once():
    lin = nn.Linear(2, 2)
    m = nn.Sequential(lin, nn.ReLU(), lin)
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias"]


def test_repr_matches_torch():
    ours = nn.Sequential(
        nn.Linear(2, 3),
        nn.ReLU(),
        nn.Softmax(dim=1),
        nn.LeakyReLU(),
        nn.Flatten(),
        nn.MSELoss(),
        nn.CrossEntropyLoss(),
        nn.Sigmoid(),
        nn.Identity(),
        nn.LogSoftmax(dim=0),
        nn.ReLU(inplace=True),
        nn.BCELoss(),
        nn.BCEWithLogitsLoss(),
        nn.NLLLoss(),
        nn.Linear(3, 1, bias=False),
    )
    theirs = torch.nn.Sequential(
        torch.nn.Linear(2, 3),
        torch.nn.ReLU(),
        torch.nn.Softmax(dim=1),
        torch.nn.LeakyReLU(),
        torch.nn.Flatten(),
        torch.nn.MSELoss(),
        torch.nn.CrossEntropyLoss(),
        torch.nn.Sigmoid(),
        torch.nn.Identity(),
        torch.nn.LogSoftmax(dim=0),
        torch.nn.ReLU(inplace=True),
        torch.nn.BCELoss(),
        torch.nn.BCEWithLogitsLoss(),
        torch.nn.NLLLoss(),
        torch.nn.Linear(3, 1, bias=False),
    )
    assert repr(ours) == repr(theirs)
    assert repr(EngineNet(nn.Tanh())).replace("EngineNet", "Net") == repr(TorchNet(torch.nn.Tanh())).replace(
        "TorchNet", "Net"
    )


def test_more_activation_reprs_match_torch():
    ours = nn.Sequential(
        nn.SiLU(),
        nn.ELU(),
        nn.ELU(0.5, inplace=True),
        nn.Softplus(),
        nn.Softplus(2, 10),
        nn.Dropout(0.2),
        nn.GELU(),
    )
    theirs = torch.nn.Sequential(
        torch.nn.SiLU(),
        torch.nn.ELU(),
        torch.nn.ELU(0.5, inplace=True),
        torch.nn.Softplus(),
        torch.nn.Softplus(2, 10),
        torch.nn.Dropout(0.2),
        torch.nn.GELU(),
    )
    assert repr(ours) == repr(theirs)


def test_parameter_is_a_leaf_tensor_and_prints_like_torch():
    p = nn.Parameter(engine.ones(2))
    assert isinstance(p, engine.Tensor) and p.is_leaf and p.requires_grad
    assert repr(p) == repr(torch.nn.Parameter(torch.ones(2)))
    q = nn.Parameter(engine.zeros(3), requires_grad=False)
    assert not q.requires_grad
    assert (p * 2).grad_fn.name() == "MulBackward0" and type(p * 2) is engine.Tensor


def test_assignment_errors_match_torch():
    ours, theirs = EngineNet(nn.ReLU()), TorchNet(torch.nn.ReLU())
    for obj_o, obj_t, attr in ((ours.fc1, theirs.fc1, "weight"), (ours, theirs, "fc1")):
        with pytest.raises(TypeError) as eo:
            setattr(obj_o, attr, 3)
        with pytest.raises(TypeError) as et:
            setattr(obj_t, attr, 3)
        assert str(eo.value) == str(et.value)
    with pytest.raises(AttributeError) as eo:
        ours.nothing  # noqa: B018
    with pytest.raises(AttributeError) as et:
        theirs.nothing  # noqa: B018
    assert str(eo.value).replace("EngineNet", "X") == str(et.value).replace("TorchNet", "X")


def test_assigning_none_removes_and_plain_attributes_stay_plain():
    m = nn.Linear(2, 2)
    m.bias = None
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    m.note = "hello"
    assert m.note == "hello" and "note" not in dict(m.named_parameters())


def test_forward_missing_raises_like_torch():
    with pytest.raises(NotImplementedError) as e:
        nn.Module()(1)
    assert str(e.value) == 'Module [Module] is missing the required "forward" function'


def test_sequential_indexing():
    a, b, c = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)
    s = nn.Sequential(a, b, c)
    assert s[0] is a and s[-1] is c and len(s) == 3 and list(s) == [a, b, c]
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c]
    assert [n for n, _ in sub.named_children()] == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    s.append(nn.Tanh())
    assert len(s) == 4 and isinstance(s[3], nn.Tanh)


def test_module_list():
    ml = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 1)])
    assert len(ml) == 2 and [n for n, _ in ml.named_parameters()] == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
    ]


def test_train_eval_recursive():
    m = EngineNet(nn.ReLU())
    assert m.training and m.fc1.training
    assert m.eval() is m and not m.training and not m.fc1.training and not m.act.training
    m.train()
    assert all(x.training for x in m.modules())


def test_zero_grad_sets_none_by_default_and_zeros_on_request():
    m = EngineNet(nn.ReLU())
    m(engine.randn(4, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not np.any(p.grad.numpy()) for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_state_dict_round_trip_and_errors():
    a, b = EngineNet(nn.ReLU()), EngineNet(nn.ReLU())
    sd = a.state_dict()
    assert list(sd) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad
    res = b.load_state_dict(sd)
    assert repr(res) == "<All keys matched successfully>"
    for (_, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
        assert p.tolist() == q.tolist() and p is not q
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "fc2.weight", "fc2.bias"'):
        b.load_state_dict({k: v for k, v in sd.items() if k.startswith("fc1")})
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):
        b.load_state_dict({**sd, "fc1.weight": engine.zeros(1)})


def test_module_double_converts_parameters_in_place():
    m = nn.Linear(2, 3)
    w = m.weight
    m.double()
    assert m.weight is w and w.dtype == engine.float64
    assert m(engine.ones(1, 2, dtype=engine.float64)).dtype == engine.float64


# ---- Linear init --------------------------------------------------------------------------------
def test_linear_init_bounds_and_seed():
    engine.manual_seed(3)
    m = nn.Linear(16, 200)
    bound = 1 / math.sqrt(16)
    w, b = (
        m.weight.numpy() if not m.weight.requires_grad else m.weight.detach().numpy(),
        m.bias.detach().numpy(),
    )
    assert w.dtype == np.float32 and w.shape == (200, 16) and b.shape == (200,)
    assert np.all(np.abs(w) <= bound) and np.all(np.abs(b) <= bound)
    assert w.max() > 0.9 * bound and w.min() < -0.9 * bound  # really spread over the interval
    engine.manual_seed(3)
    assert nn.Linear(16, 200).weight.tolist() == m.weight.tolist()


def test_linear_dtype_and_no_bias():
    m = nn.Linear(3, 2, bias=False, dtype=engine.float64)
    assert m.bias is None and m.weight.dtype == engine.float64
    assert [n for n, _ in m.named_parameters()] == ["weight"]


# ---- forward/backward against torch with copied weights -----------------------------------------
ACTS = [
    (nn.ReLU, torch.nn.ReLU),
    (nn.Sigmoid, torch.nn.Sigmoid),
    (nn.Tanh, torch.nn.Tanh),
    (nn.LeakyReLU, torch.nn.LeakyReLU),
    (nn.Identity, torch.nn.Identity),
]


@pytest.mark.parametrize("acts", ACTS, ids=[a[0].__name__ for a in ACTS])
@pytest.mark.parametrize("loss", ["mse", "ce", "bce", "bcel", "nll", "l1"])
def test_mlp_forward_backward_matches_torch(acts, loss):
    rng = np.random.default_rng(7)
    ours, theirs = EngineNet(acts[0]()), TorchNet(acts[1]())
    ours.double()
    _copy_weights(ours, theirs)
    xo, xt = _both(rng.normal(size=(6, 3)), requires_grad=False)
    if loss == "mse":
        yo, yt = _both(rng.normal(size=(6, 4)), requires_grad=False)
        lo, lt = nn.MSELoss()(ours(xo), yo), torch.nn.MSELoss()(theirs(xt), yt)
    elif loss == "l1":
        yo, yt = _both(rng.normal(size=(6, 4)), requires_grad=False)
        lo, lt = nn.L1Loss()(ours(xo), yo), torch.nn.L1Loss()(theirs(xt), yt)
    elif loss == "ce":
        y = [0, 3, 1, 2, 2, 1]
        lo = nn.CrossEntropyLoss()(ours(xo), engine.tensor(y))
        lt = torch.nn.CrossEntropyLoss()(theirs(xt), torch.tensor(y))
    elif loss == "nll":
        y = [0, 3, 1, 2, 2, 1]
        lo = nn.NLLLoss()(nn.LogSoftmax(dim=1)(ours(xo)), engine.tensor(y))
        lt = torch.nn.NLLLoss()(torch.nn.LogSoftmax(dim=1)(theirs(xt)), torch.tensor(y))
    else:
        yo, yt = _both(rng.integers(0, 2, size=(6, 4)), requires_grad=False)
        if loss == "bce":
            lo, lt = (
                nn.BCELoss()(nn.Sigmoid()(ours(xo)), yo),
                torch.nn.BCELoss()(torch.nn.Sigmoid()(theirs(xt)), yt),
            )
        else:
            lo, lt = nn.BCEWithLogitsLoss()(ours(xo), yo), torch.nn.BCEWithLogitsLoss()(theirs(xt), yt)
    _close(lo, lt)
    assert _tree(lo.grad_fn) == _tree(lt.grad_fn)
    lo.backward()
    lt.backward()
    tp = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        _close(p.grad, tp[name].grad)


# ---- grad_fn chains of the functional API -------------------------------------------------------
def _fn_cases():
    r = np.random.default_rng(0)
    return {
        "linear-2d": (lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(5, 3), (4, 3), (4,)]),
        "linear-2d-nobias": (lambda t, x, w: t.nn.functional.linear(x, w), [(5, 3), (4, 3)]),
        "linear-1d": (lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(3,), (4, 3), (4,)]),
        "linear-1d-nobias": (lambda t, x, w: t.nn.functional.linear(x, w), [(3,), (4, 3)]),
        "linear-3d": (lambda t, x, w, b: t.nn.functional.linear(x, w, b), [(2, 5, 3), (4, 3), (4,)]),
        "linear-3d-nobias": (lambda t, x, w: t.nn.functional.linear(x, w), [(2, 5, 3), (4, 3)]),
        "cross-entropy": (lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, 2, 1])), [(3, 4)]),
        "cross-entropy-none": (
            lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([0, 2, 1]), reduction="none"),
            [(3, 4)],
        ),
        "cross-entropy-3d": (
            lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([[0, 2], [1, 1]]), reduction="none"),
            [(2, 3, 2)],
        ),
        "cross-entropy-probs-sum": (
            lambda t, x, p: t.nn.functional.cross_entropy(x, p.softmax(1), reduction="sum"),
            [(3, 4), (3, 4)],
        ),
        "cross-entropy-probs-none": (
            lambda t, x, p: t.nn.functional.cross_entropy(x, p.softmax(1), reduction="none"),
            [(3, 4), (3, 4)],
        ),
        "mse-broadcast": (lambda t, x, y: t.nn.functional.mse_loss(x, y), [(3, 4), (4,)]),
        "mse-broadcast-left": (lambda t, x, y: t.nn.functional.mse_loss(x, y), [(4,), (3, 4)]),
        "bce-sigmoid": (
            lambda t, x, y: t.nn.functional.binary_cross_entropy(t.sigmoid(x), y.sigmoid()),
            [(3, 4), (3, 4)],
        ),
        "bce-logits": (
            lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(x, y.sigmoid()),
            [(3, 4), (3, 4)],
        ),
        "softmax-implicit-2d": (lambda t, x: t.nn.functional.softmax(x), [(3, 4)]),
        "softmax-implicit-3d": (lambda t, x: t.nn.functional.log_softmax(x), [(2, 3, 4)]),
        "relu-inplace": (lambda t, x: t.nn.functional.relu(x * 1.0, inplace=True), [(3, 4)]),
        "leaky-inplace": (lambda t, x: t.nn.functional.leaky_relu(x * 1.0, 0.3, inplace=True), [(3, 4)]),
        "flatten": (lambda t, x: t.nn.Flatten()(x), [(2, 3, 4)]),
        "l1": (lambda t, x, y: t.nn.functional.l1_loss(x, y, reduction="sum"), [(3, 4), (3, 4)]),
    }, r


@pytest.mark.parametrize("name", list(_fn_cases()[0]))
def test_functional_graphs_values_and_grads_match_torch(name):
    fn, shapes = _fn_cases()[0][name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    pairs = [_both(rng.normal(size=s)) for s in shapes]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = fn(engine, *[p[0] for p in pairs])
        theirs = fn(torch, *[p[1] for p in pairs])
    _close(ours, theirs)
    assert _tree(ours.grad_fn) == _tree(theirs.grad_fn)
    g = rng.normal(size=tuple(theirs.shape))
    ours.backward(engine.tensor(g.tolist(), dtype=engine.float64))
    theirs.backward(torch.tensor(g))
    for a, b in pairs:
        _close(a.grad, b.grad)


def test_tensor_methods_and_top_level_functions():
    xo, xt = _both(np.random.default_rng(1).normal(size=(3, 4)))
    _close(xo.softmax(1), xt.softmax(1))
    _close(xo.log_softmax(dim=0), xt.log_softmax(dim=0))
    _close(engine.softmax(xo, -1), torch.softmax(xt, -1))
    _close(engine.log_softmax(xo, 1), torch.log_softmax(xt, 1))
    assert engine.softmax(xo, 1).grad_fn.name() == "SoftmaxBackward0"
    assert xo.log_softmax(1).grad_fn.name() == "LogSoftmaxBackward0"


def test_softmax_dtype_argument_and_float32():
    x = engine.tensor([[1.0, 2.0, 3.0]])
    assert engine.softmax(x, 1).dtype == engine.float32
    y = engine.softmax(x, 1, dtype=engine.float64)
    assert y.dtype == engine.float64
    np.testing.assert_allclose(
        y.numpy(), torch.softmax(torch.tensor([[1.0, 2.0, 3.0]]), 1, dtype=torch.float64)
    )


def test_implicit_softmax_dim_warns_like_torch():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        F.softmax(engine.randn(2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        nn.Softmax()(engine.randn(2, 3))


# ---- second order (create_graph) through the nn rules -------------------------------------------
SECOND = {
    "softmax": (lambda t, x: (t.softmax(x, 1) ** 2).sum(), [(3, 4)]),
    "log_softmax": (lambda t, x: (t.log_softmax(x, 0) ** 2).sum(), [(3, 4)]),
    "cross_entropy": (lambda t, x: t.nn.functional.cross_entropy(x, t.tensor([1, 0, 3])), [(3, 4)]),
    "nll_none": (
        lambda t, x: (t.nn.functional.nll_loss(x, t.tensor([1, 0, 3]), reduction="none") ** 2).sum(),
        [(3, 4)],
    ),
    "mse": (lambda t, x, y: t.nn.functional.mse_loss(x, y), [(3, 4), (3, 4)]),
    "bce": (
        lambda t, x, y: t.nn.functional.binary_cross_entropy(t.sigmoid(x), t.sigmoid(y)),
        [(3, 4), (3, 4)],
    ),
    "bce_logits": (
        lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(x, t.sigmoid(y)),
        [(3, 4), (3, 4)],
    ),
    "bce_logits_pos_weight": (
        lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(
            x, t.sigmoid(y), pos_weight=t.tensor([1.0, 2.0, 0.5, 3.0], dtype=t.float64)
        ),
        [(3, 4), (3, 4)],
    ),
    "linear": (lambda t, x, w, b: t.tanh(t.nn.functional.linear(x, w, b)).sum(), [(5, 3), (4, 3), (4,)]),
}


@pytest.mark.parametrize("name", list(SECOND))
def test_second_order_matches_torch(name):
    fn, shapes = SECOND[name]
    rng = np.random.default_rng(len(name))
    pairs = [_both(rng.normal(size=s)) for s in shapes]
    outs = []
    for lib, k in ((engine, 0), (torch, 1)):
        xs = [p[k] for p in pairs]
        loss = fn(lib, *xs)
        grads = lib.autograd.grad(loss, xs, create_graph=True)
        total = sum((g * g).sum() for g in grads)
        outs.append(lib.autograd.grad(total, xs))
    for a, b in zip(*outs):
        _close(a, b, 1e-9)


# ---- errors with torch's texts ------------------------------------------------------------------
ERRORS = {
    "nll-float-target": lambda t: t.nn.functional.nll_loss(t.zeros(3, 4), t.zeros(3)),
    "nll-out-of-bounds": lambda t: t.nn.functional.nll_loss(t.zeros(3, 4), t.tensor([0, 1, 5])),
    "ce-negative-target": lambda t: t.nn.functional.cross_entropy(t.zeros(3, 4), t.tensor([0, -1, 2])),
    "ce-ignored-then-out-of-bounds": lambda t: t.nn.functional.cross_entropy(
        t.zeros(4, 3), t.tensor([-100, 1, 3, 0])),
    "ce-byte-target-out-of-bounds": lambda t: t.nn.functional.cross_entropy(
        t.zeros(2, 3), t.tensor([1, 7], dtype=t.uint8)),
    "nll-batch": lambda t: t.nn.functional.nll_loss(t.zeros(3, 4), t.tensor([0, 1])),
    "ce-batch": lambda t: t.nn.functional.cross_entropy(t.zeros(3, 4), t.tensor([[0, 1, 2]])),
    "bce-range": lambda t: t.nn.functional.binary_cross_entropy(t.ones(3) * 2, t.ones(3)),
    "bce-target-range": lambda t: t.nn.functional.binary_cross_entropy(t.ones(3) * 0.5, t.ones(3) * 2),
    "bce-size": lambda t: t.nn.functional.binary_cross_entropy(t.ones(3, 4) * 0.5, t.ones(4)),
    "bcel-size": lambda t: t.nn.functional.binary_cross_entropy_with_logits(t.ones(3, 4), t.ones(4)),
    "nll-weight-grad": lambda t: t.nn.functional.nll_loss(
        t.zeros(3, 4), t.tensor([0, 1, 2]), weight=t.ones(4, requires_grad=True)
    ),
    "bad-reduction": lambda t: t.nn.functional.mse_loss(t.zeros(3), t.zeros(3), reduction="avg"),
    "linear-shapes": lambda t: t.nn.functional.linear(t.zeros(3, 4), t.zeros(5, 3)),
    "softmax-long": lambda t: t.softmax(t.tensor([1, 2]), 0),
    "gelu-approximate": lambda t: t.nn.functional.gelu(t.zeros(2), approximate="x"),
    "ce-float-index-target": lambda t: t.nn.functional.cross_entropy(t.zeros(4, 3), t.zeros(4)),
    "ce-2d-target": lambda t: t.nn.functional.cross_entropy(t.zeros(4, 3), t.zeros(4, 2)),
    "ce-long-probs": lambda t: t.nn.functional.cross_entropy(t.zeros(4, 3), t.zeros(4, 3, dtype=t.int64)),
    "nll-5d-target": lambda t: t.nn.functional.nll_loss(t.zeros(4, 3, 2, 2, 2), t.zeros(4, 3, dtype=t.int64)),
    "nll-4d-target": lambda t: t.nn.functional.nll_loss(t.zeros(4, 3, 2, 2), t.zeros(4, 2, 3, dtype=t.int64)),
    "nll-4d-float": lambda t: t.nn.functional.nll_loss(t.zeros(4, 3, 2, 2), t.zeros(4, 2, 2)),
    "nll-3d-float": lambda t: t.nn.functional.nll_loss(t.zeros(4, 3, 2), t.zeros(4, 2)),
    "nll-1d-target-size": lambda t: t.nn.functional.nll_loss(t.zeros(3), t.zeros(2, dtype=t.int64)),
    "nll-0d-target": lambda t: t.nn.functional.nll_loss(t.zeros(4, 3), t.zeros((), dtype=t.int64)),
    "nll-0d-input": lambda t: t.nn.functional.nll_loss(t.zeros(()), t.zeros((), dtype=t.int64)),
    "ce-int32-target": lambda t: t.nn.functional.cross_entropy(t.zeros(4, 5), t.zeros(4, dtype=t.int32)),
    "linear-input-dtype": lambda t: t.nn.Linear(2, 3)(t.zeros(4, 2, dtype=t.float64)),
    "linear-long-input": lambda t: t.nn.Linear(2, 3)(t.zeros(2, dtype=t.int64)),
    "linear-bias-dtype": lambda t: t.nn.functional.linear(
        t.zeros(4, 2, dtype=t.float64), t.zeros(3, 2, dtype=t.float64), t.zeros(3)
    ),
    "linear-vector-shapes": lambda t: t.nn.functional.linear(t.zeros(2), t.zeros(3, 5), t.zeros(3)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name):
    with pytest.raises(Exception) as et:
        ERRORS[name](torch)
    with pytest.raises(Exception) as eo:
        ERRORS[name](engine)
    assert type(eo.value) is type(et.value)
    assert str(eo.value) == str(et.value)


def test_mse_broadcast_warns_like_torch():
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4\]\)\) that is different"):
        F.mse_loss(engine.zeros(3, 4), engine.zeros(4))


def test_bce_clamps_log_at_minus_100():
    p = engine.tensor([0.0, 1.0, 0.0], dtype=engine.float64, requires_grad=True)
    y = engine.tensor([1.0, 0.0, 0.0], dtype=engine.float64)
    pt = torch.tensor([0.0, 1.0, 0.0], dtype=torch.float64, requires_grad=True)
    yt = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)
    lo = F.binary_cross_entropy(p, y, reduction="none")
    lt = torch.nn.functional.binary_cross_entropy(pt, yt, reduction="none")
    assert lo.tolist() == lt.tolist() == [100.0, 100.0, 0.0]
    lo.sum().backward()
    lt.sum().backward()
    _close(p.grad, pt.grad)


def test_loss_modules_keep_options():
    w = engine.tensor([1.0, 2.0, 3.0], dtype=engine.float64)
    ce = nn.CrossEntropyLoss(weight=w, reduction="sum", ignore_index=2)
    assert ce.weight is w and ce.reduction == "sum" and ce.ignore_index == 2
    x = engine.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 0.3]], dtype=engine.float64)
    got = ce(x, engine.tensor([0, 2])).item()
    want = torch.nn.CrossEntropyLoss(
        weight=torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), reduction="sum", ignore_index=2
    )(torch.tensor(x.tolist(), dtype=torch.float64), torch.tensor([0, 2])).item()
    assert got == pytest.approx(want, rel=1e-12)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.MSELoss(size_average=False).reduction == "sum"


def test_one_hot():
    got = F.one_hot(engine.tensor([0, 2, 1]), 4)
    assert (
        got.dtype == engine.int64
        and got.tolist() == torch.nn.functional.one_hot(torch.tensor([0, 2, 1]), 4).tolist()
    )


# ---- init ---------------------------------------------------------------------------------------
def test_init_functions():
    w = nn.Parameter(engine.empty(30, 20))
    nn.init.xavier_uniform_(w)
    bound = math.sqrt(6 / 50)
    assert np.all(np.abs(w.detach().numpy()) <= bound)
    nn.init.zeros_(w)
    assert not np.any(w.detach().numpy())
    nn.init.constant_(w, 0.5)
    assert np.all(w.detach().numpy() == 0.5)
    assert nn.init.calculate_gain("relu") == torch.nn.init.calculate_gain("relu")
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.detach().numpy().std() - math.sqrt(2 / 20)) < 0.05


# ---- trace hooks --------------------------------------------------------------------------------
class Deep(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.net = nn.Sequential(nn.ReLU(), nn.Linear(3, 2))

    def forward(self, x):
        return self.net(self.fc1(x)) * 2


def _ops(rec):
    return [n for n in rec.trace.nodes if n.kind == "op"]


def test_module_paths_and_parameter_names_in_trace():
    m = Deep()
    crit = nn.CrossEntropyLoss()
    x = engine.randn(4, 2)
    with engine.trace.recording() as rec:
        loss = crit(m(x), engine.tensor([0, 1, 1, 0]))
        assert rec.module_stack == []
    by_fn = [(n.grad_fn, n.module) for n in _ops(rec)]
    assert by_fn == [
        ("TBackward0", "fc1"),
        ("AddmmBackward0", "fc1"),
        ("ReluBackward0", "net.0"),
        ("TBackward0", "net.1"),
        ("AddmmBackward0", "net.1"),
        ("MulBackward0", "Deep"),
        ("LogSoftmaxBackward0", "CrossEntropyLoss"),
        ("NllLossBackward0", "CrossEntropyLoss"),
    ]
    leaves = {n.name: n for n in rec.trace.nodes if n.kind == "leaf" and n.is_param}
    assert set(leaves) == {"fc1.weight", "fc1.bias", "net.1.weight", "net.1.bias"}
    assert loss.grad_fn.name() == "NllLossBackward0"


def test_root_module_label_and_bare_layer_names():
    lin = nn.Linear(2, 1)
    nn.name_module(lin, "layer")
    with engine.trace.recording() as rec:
        lin(engine.randn(3, 2))
    names = sorted(n.name for n in rec.trace.nodes if n.kind == "leaf" and n.is_param)
    assert names == ["layer.bias", "layer.weight"]
    assert {n.module for n in _ops(rec)} == {"layer"}


def test_user_names_win_over_parameter_names():
    m = Deep()
    with engine.trace.recording() as rec:
        rec.name_tensor(m.fc1.weight, "w")
        m(engine.randn(1, 2))
    names = {n.name for n in rec.trace.nodes if n.kind == "leaf" and n.is_param}
    assert "w" in names and "fc1.weight" not in names


def test_zero_grad_events():
    m = Deep()
    with engine.trace.recording() as rec:
        m.zero_grad()
        m(engine.randn(1, 2)).sum().backward()
        m.zero_grad()
    kinds = [k for k, _ in rec.trace.events]
    assert kinds[0] == "zero_grad" and kinds[-1] == "zero_grad" and "backward" in kinds


def test_recording_off_leaves_no_trace_state():
    m = Deep()
    m(engine.randn(1, 2)).sum().backward()
    assert all(p._trace is None and p._name is None for p in m.parameters())
    assert engine.trace.ACTIVE is None


def test_module_stack_unwinds_after_an_error():
    class Bad(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = nn.Sequential(nn.Linear(2, 2), Bad())
    with engine.trace.recording() as rec:
        with pytest.raises(ValueError):
            m(engine.randn(1, 2))
        assert rec.module_stack == []
        m[0](engine.randn(1, 2))
    assert _ops(rec)[-1].module == "Linear"


def test_inplace_leaky_relu_with_negative_slope_fails_in_backward_like_torch():
    msgs = []
    for lib in (engine, torch):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = lib.nn.functional.leaky_relu(x * 1.0, -0.2, inplace=True)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---- dropout -------------------------------------------------------------------------------------
def test_dropout_graph_matches_torch_and_scales_kept_values():
    x = engine.randn(200, 50, requires_grad=True)
    y = F.dropout(x, 0.4)
    xt = torch.randn(3, 4, requires_grad=True)
    yt = torch.nn.functional.dropout(xt, 0.4)
    assert _tree(y.grad_fn) == _tree(yt.grad_fn)
    kept = y.detach().numpy() != 0
    assert 0.55 < kept.mean() < 0.65
    np.testing.assert_allclose(y.detach().numpy()[kept], x.detach().numpy()[kept] / 0.6, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.6, rtol=1e-6)


def test_dropout_module_is_identity_in_eval_and_for_p_zero():
    x = engine.randn(3, 4, requires_grad=True)
    d = nn.Dropout(0.5)
    assert repr(d) == repr(torch.nn.Dropout(0.5))
    assert d.eval()(x) is x
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.5, training=False) is x
    assert np.all(F.dropout(x, 1.0).detach().numpy() == 0)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type):
    rng = np.random.default_rng(3)
    ours, theirs = EngineNet(nn.Tanh()), TorchNet(torch.nn.Tanh())
    ours.double()
    _copy_weights(ours, theirs)
    xo, xt = _both(rng.normal(size=(6, 3)), requires_grad=False)
    (ours(xo) ** 2).sum().backward()
    (theirs(xt) ** 2).sum().backward()
    no = nn.utils.clip_grad_norm_(ours.parameters(), 0.5, norm_type)
    nt = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5, norm_type)
    assert no.item() == pytest.approx(nt.item(), rel=1e-12)
    tp = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        _close(p.grad, tp[name].grad)
    nn.utils.clip_grad_value_(ours.parameters(), 0.01)
    torch.nn.utils.clip_grad_value_(theirs.parameters(), 0.01)
    for name, p in ours.named_parameters():
        _close(p.grad, tp[name].grad)


def test_nll_loss_on_a_vector_with_a_one_element_target():
    xo, xt = _both([0.3, -1.2, 0.5])
    for r in ("none", "mean"):
        lo = F.nll_loss(xo, engine.tensor([1]), reduction=r)
        lt = torch.nn.functional.nll_loss(xt, torch.tensor([1]), reduction=r)
        assert tuple(lo.shape) == tuple(lt.shape) == ()
        _close(lo, lt)


def test_functional_names_are_defined_inside_the_package_or_reexported_from_engine():
    """The program runner exposes a module's own functions (and engine's re-exports) only."""
    for name in F.__all__:
        fn = getattr(F, name)
        assert fn.__module__.startswith("engine.nn.functional") or getattr(engine, name, None) is fn, name

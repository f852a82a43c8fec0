"""Every public engine callable, fed hostile objects in every argument position.

The callables are the runner's allow-list (every function and class of torch, torch.nn,
torch.nn.functional, torch.nn.init, torch.optim and torch.autograd), every Tensor method, every
method of every nn module class and optimizer, the grad-mode decorators, and the tensor operators
(arithmetic, comparisons, indexing, item and attribute assignment). Each argument position gets an
instance of each hostile class (``hostile_objects``), alone and inside lists and tuples. Engine code
must never run one of their special methods (NumPy would read memory through
``__array_interface__``; the others run the object's own code), and nothing but an ordinary
exception may come out. The walk runs with the runner's limits on, as programs do.
"""

from __future__ import annotations

import operator
import warnings

import pytest
from engine_callables import argument_cases, public_callables, valid_value
from hostile_objects import HOSTILE_CLASSES, INVOKED, placements

import engine as torch
from engine import dtypes, generator, grad_mode, printing_options
from engine.runner.results import Settings
from engine.runner.run import _EngineState

nn = torch.nn


class _State:
    """Restore the engine's global state a hostile call may have changed (as runs do)."""

    def __enter__(self):
        self.grad = grad_mode._enabled
        self.dtype = dtypes.get_default_dtype()
        self.opts = printing_options.get_printoptions()
        self.rng = generator.default_generator._state_bytes()

    def __exit__(self, *exc):
        grad_mode._enabled = self.grad
        dtypes.set_default_dtype(self.dtype)
        printing_options.set_printoptions(**self.opts)
        generator.default_generator._load_bytes(self.rng)
        return False


def walk(values_for) -> tuple[int, dict]:
    """Call every case with every value ``values_for(position)`` gives; returns the number of calls
    and, per (callable, position), the special methods that ran."""
    calls = 0
    escaped: dict = {}
    state = _State()
    with _EngineState(Settings()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, make in public_callables():
            for position, arrange in argument_cases(make()):
                for value in values_for(position):
                    INVOKED.clear()
                    with state:
                        calls += 1
                        try:
                            args, kwargs = arrange(value)
                            make()(*args, **kwargs)
                        except Exception:  # refusals are the expected outcome
                            pass
                    if INVOKED:
                        escaped.setdefault((label, position), set()).update(INVOKED)
    return calls, escaped


def test_no_engine_callable_runs_a_method_of_a_hostile_argument():
    values = [v for cls in HOSTILE_CLASSES for v in placements(cls)]
    calls, escaped = walk(lambda position: values)
    print(f"\nhostile-argument walk: {len(public_callables())} callables, {calls} hostile calls, "
          f"{len(escaped)} got a special method run")
    assert calls > 20_000
    assert not escaped, sorted(escaped.items())[:20]


def test_the_walk_reaches_the_arguments():
    """The walk is only worth something if the other arguments are valid: with a valid value in
    the tested position, most calls succeed (the hostile one is then the only thing wrong)."""
    ok = failed = 0
    with _EngineState(Settings()), _State(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _, make in public_callables():
            for position, arrange in argument_cases(make()):
                name = position.lstrip("*").split("[")[0]
                try:
                    args, kwargs = arrange(valid_value(name) if not position.startswith("*") else 2)
                    make()(*args, **kwargs)
                    ok += 1
                except Exception:
                    failed += 1
    print(f"\nvalid values in the walked positions: {ok} calls succeed, {failed} fail")
    assert ok / (ok + failed) > 0.7


@pytest.mark.parametrize("cls", HOSTILE_CLASSES, ids=lambda c: c.__name__)
def test_data_entry_points_refuse_hostile_objects_with_torch_errors(cls):
    INVOKED.clear()
    x = torch.zeros(2)
    m = nn.Linear(1, 1)
    refusals = [
        (lambda: torch.from_numpy(cls()), TypeError, "expected np.ndarray (got"),
        (lambda: torch.tensor(cls()), (RuntimeError, TypeError), ""),
        (lambda: torch.tensor([1.0, cls()]), (RuntimeError, TypeError), ""),
        (lambda: torch.as_tensor(cls()), (RuntimeError, TypeError), ""),
        (lambda: x.copy_(cls()), TypeError, "copy_(): argument 'other' (position 1) must be Tensor"),
        (lambda: operator.setitem(x, slice(None), cls()), TypeError, "can't assign a"),
        (lambda: x.fill_(cls()), TypeError, "fill_() received an invalid combination"),
        (lambda: torch.full((2,), cls()), TypeError, "full(): argument 'fill_value' (position 2) must be"),
        (lambda: m.load_state_dict({"weight": cls(), "bias": cls()}), RuntimeError, "expected torch.Tensor"),
        (lambda: torch.add(x, cls()), TypeError, "add(): argument 'other' (position 2) must be Tensor"),
        (lambda: torch.eq(x, cls()), TypeError, "eq(): argument 'other' (position 2) must be Tensor"),
        (lambda: torch.zeros(2, dtype=cls()), TypeError, "zeros(): argument 'dtype' must be torch.dtype"),
        (lambda: nn.init.constant_(x, cls()), TypeError, "must be Number"),
        (lambda: torch.where(cls(), x, x), TypeError, "where(): argument 'condition' (position 1) must be"),
    ]
    for call, kind, text in refusals:
        with pytest.raises(kind) as info:
            call()
        assert text in str(info.value)
    assert not INVOKED


def test_operators_with_hostile_operands_fall_back_as_with_torch():
    h = HOSTILE_CLASSES[-1]()
    x = torch.ones(2)
    INVOKED.clear()
    assert (x == h) is False and (x != h) is True
    with pytest.raises(TypeError, match="unsupported operand type"):
        operator.add(x, h)
    with pytest.raises(TypeError, match="not supported between instances"):
        operator.lt(x, h)
    with pytest.raises(RuntimeError, match="Tensor.__contains__ only supports Tensor or scalar"):
        operator.contains(x, h)
    assert not INVOKED


class H:
    """An object of a type neither library knows (for the error texts)."""


# (what is called, as code run with `t` bound to torch or engine and `x` to a zeros(2) of it)
REFUSALS_AS_PYTORCH = [
    "t.from_numpy(H())", "t.from_numpy([1.0])", "t.tensor(H())", "t.tensor([1.0, H()])", "t.tensor('abc')",
    "x.copy_(H())", "x.copy_([1.0, 2.0])", "x.__setitem__(slice(None), H())", "x.__setitem__(0, 'a')",
    "x.fill_(H())", "t.full((2,), H())", "t.add(x, H())", "t.zeros(2, dtype=H())",
    "t.zeros(2, requires_grad=H())", "t.zeros(2, requires_grad=1)", "t.zeros(H())", "t.zeros(2, H())",
    "setattr(x, 'requires_grad', H())", "setattr(x, 'data', H())", "t.dtype('o', 'O', False, '')",
    "t.Size([1, H()])", "t.eye(H())", "t.randperm(H())", "t.cat([x, H()])", "t.cat(H())", "t.stack([x, H()])",
    "x.reshape(H())", "x.reshape(2, H())", "x.unsqueeze(H())", "x.transpose(H(), 0)", "x.expand(H())",
    "x.permute(H())", "x.requires_grad_(H())", "t.nn.functional.leaky_relu(x, H())",
    "t.nn.functional.softplus(x, beta=H())", "t.nn.functional.dropout(x, training=H())",
    "t.nn.functional.one_hot(t.tensor([1]), H())", "t.set_grad_enabled(H())", "t.nn.init.uniform_(x, H())",
    "t.nn.init.normal_(x, H())", "t.nn.Module().register_buffer('a.b', None)",
    "t.nn.Module().register_buffer('', None)", "t.nn.Module().register_buffer('x', {})",
    "t.nn.Module().register_buffer(1, None)", "t.nn.Module().register_buffer('forward', None)",
    "t.nn.Module().register_parameter('w', x)", "t.nn.Module().add_module('f', H())",
    "t.nn.Module().add_module('a.b', t.nn.ReLU())", "t.nn.Sequential(print)", "t.nn.ModuleList([print])",
    "t.nn.ModuleList().extend(H())", "t.nn.Linear(1, 1).load_state_dict({'weight': H(), 'bias': H()})",
    "t.optim.SGD([H()], lr=0.1)",
]


@pytest.mark.parametrize("code", REFUSALS_AS_PYTORCH)
def test_refusals_raise_pytorch_s_error(code):
    import torch as real

    def refusal(lib):
        try:
            eval(code, {"t": lib, "x": lib.zeros(2), "H": H, "print": print})
        except Exception as e:  # the refusal under test
            return type(e).__name__, str(e)
        return None

    ours, theirs = refusal(torch), refusal(real)
    assert theirs is not None and ours == theirs

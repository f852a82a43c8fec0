"""The language layer alone stops the exploit of untrusted programs, and each of its root causes.

Programs run in-process (``run_program``: no worker, no OS sandbox), so nothing else stands between
them and the server. Where a test needs the state an earlier escape would have reached (a raw
builtin such as ``eval`` in hand, an object NumPy trusts), it places that object in the program's
globals (``smuggle``) and shows that this layer still refuses: each layer must stop the attack as if
the others had fallen. Canaries record every use: a call, or any special method NumPy or Python
would run on it; ``os.system`` is replaced by a recorder, and no file may appear.
"""

from __future__ import annotations

import builtins
import os
import re

import numpy as np
import pytest
from engine_callables import argument_cases, is_engine_callable, public_callables, valid_value

import engine
from engine.runner import ProgramError, Settings, run_program
from engine.runner import checker as checker_module
from engine.runner import run as run_module

PWNED = "/tmp/gradviz_escape_canary"
_BUFFER = np.zeros(4)


class DataCanary:
    """What an escape hands the program as data: an object carrying every protocol NumPy and
    Python use to read an object (each use is recorded in ``uses``)."""

    def __init__(self):
        self.uses: list[str] = []

    @property
    def __array_interface__(self):
        self.uses.append("__array_interface__")
        return _BUFFER.__array_interface__

    def __array__(self, dtype=None, copy=None):
        self.uses.append("__array__")
        return np.zeros(2)

    def __index__(self):
        self.uses.append("__index__")
        return 1

    def __float__(self):
        self.uses.append("__float__")
        return 1.0

    def __int__(self):
        self.uses.append("__int__")
        return 1

    def __len__(self):
        self.uses.append("__len__")
        return 1

    def __getitem__(self, i):
        self.uses.append("__getitem__")
        raise IndexError(i)

    def __iter__(self):
        self.uses.append("__iter__")
        return iter(())

    def __reduce__(self):
        self.uses.append("__reduce__")
        return (int, ())


class Canary(DataCanary):
    """What an escape hands the program as a function (``eval``): callable, and every protocol too."""

    def __call__(self, *args, **kwargs):
        self.uses.append("__call__")
        return 0


class Smuggler:
    """Objects placed in every run's globals, as if an earlier escape had produced them."""

    def __init__(self, monkeypatch):
        self.objects: dict = {}
        prelude = run_module._prelude
        monkeypatch.setattr(run_module, "_prelude", lambda policy: {**prelude(policy), **self.objects})
        self.names = checker_module.PRELUDE_NAMES
        self.monkeypatch = monkeypatch

    def put(self, **objects) -> None:
        self.objects.update(objects)
        self.monkeypatch.setattr(checker_module, "PRELUDE_NAMES", self.names + tuple(self.objects))


@pytest.fixture
def smuggle(monkeypatch):
    return Smuggler(monkeypatch)


@pytest.fixture
def system_calls(monkeypatch, tmp_path):
    """``os.system`` replaced by a recorder (an escape through ``eval`` would reach it)."""
    calls: list = []
    monkeypatch.setattr(os, "system", lambda cmd: calls.append(cmd) or 0)
    monkeypatch.chdir(tmp_path)
    yield calls
    assert not os.path.exists(PWNED)


def outcome(source: str, settings: Settings | None = None):
    """The UserError a program ends with (None if it ran through), and its stdout."""
    try:
        r = run_program(source, settings=settings)
    except ProgramError as e:
        return e.error, ""
    return r.error, r.stdout


# ---- the exploit as filed -------------------------------------------------------------------------------
EXPLOIT = '''addr = int(repr(torch.sigmoid).split(" at ")[1][:-1], 16)      # repr shows a real address
m = nn.Module()
m.register_buffer("__array_interface__",                          # any name, any value is accepted
    {"shape": (2,), "typestr": "|O", "data": (addr + 16, True), "version": 3})
g, b = torch.from_numpy(m).tolist()    # np.asarray(m) reads raw memory: the function's globals and builtins
list(map(b["eval"], ["__import__('os').system('id')"]))         # map() calls it without the call policy
'''


def test_the_exploit_as_filed_stops_at_the_name_of_the_buffer(system_calls):
    error, _ = outcome(EXPLOIT)
    assert (error.type, error.line, error.col) == ("KeyError", 3, 1)
    assert "can't start with '_'" in error.message
    assert system_calls == []


def test_the_exploit_in_one_expression_with_walruses_stops_there_too(system_calls):
    one_line = ('[(m := nn.Module()), m.register_buffer("__array_interface__", {"typestr": "|O", "data": '
                '(int(repr(torch.sigmoid).split(" at ")[1][:-1], 16) + 16, True), "shape": (2,), '
                '"version": 3}), (b := torch.from_numpy(m).tolist()[1]), list(map(b["eval"], ["1"]))]')
    error, _ = outcome(one_line)
    assert error.type == "KeyError" and "can't start with '_'" in error.message
    assert system_calls == []


def test_the_address_in_the_exploit_is_an_alias():
    r = run_program("print(repr(torch.sigmoid))\nprint(torch.sigmoid)")
    assert r.stdout == "<function sigmoid at 0x7f0000000001>\n" * 2
    assert hex(id(engine.sigmoid)) not in r.stdout


def test_with_the_buffer_in_place_from_numpy_still_reads_nothing(smuggle, system_calls):
    m = engine.nn.Module()
    m._buffers["__array_interface__"] = dict(_BUFFER.__array_interface__)  # registration bypassed
    smuggle.put(m=m)
    error, _ = outcome("g = torch.from_numpy(m)")
    assert (error.type, error.message) == ("TypeError", "expected np.ndarray (got Module)")
    with pytest.raises(AttributeError):
        m.__array_interface__  # noqa: B018 - Module.__getattr__ serves no special name
    for source in ("t = torch.tensor(m)", "t = torch.zeros(2)\nt.copy_(m)", "t = torch.zeros(2)\nt[:] = m",
                   "t = torch.zeros(2)\nt.fill_(m)", "l = nn.Linear(1, 1)\nl.load_state_dict({'weight': m})"):
        error, _ = outcome(source)
        assert error is not None and error.type in ("TypeError", "RuntimeError"), (source, error)


def test_with_eval_in_hand_map_still_does_not_call_it(smuggle, system_calls):
    smuggle.put(b=vars(builtins))  # what the memory read of the exploit returned
    error, _ = outcome("list(map(b['eval'], [\"__import__('os').system('id')\"]))")
    assert (error.type, error.message) == ("ForbiddenError", "calling 'eval' is not allowed in gradviz")
    assert system_calls == []


# ---- root cause: what a module registers ------------------------------------------------------------------
@pytest.mark.parametrize("source, kind, message", [
    ("m.register_buffer('__array_interface__', None)", "KeyError", "buffer name can't start with '_'"),
    ("m.register_buffer('_hidden', torch.ones(1))", "KeyError", "buffer name can't start with '_'"),
    ("m.register_buffer('a.b', None)", "KeyError", 't contain "."'),
    ("m.register_buffer('', None)", "KeyError", "t be empty string"),
    ("m.register_buffer('x', {'data': (1, True)})", "TypeError",
     "cannot assign 'dict' object to buffer 'x' (torch Tensor or None required)"),
    ("m.register_buffer(1, None)", "TypeError", "buffer name should be a string. Got int"),
    ("m.register_buffer('forward', None)", "KeyError", "attribute 'forward' already exists"),
    ("m.register_parameter('w', torch.ones(1))", "TypeError",
     "cannot assign 'torch.FloatTensor' object to parameter 'w' (torch.nn.Parameter or None required)"),
    ("m.register_parameter('__dict__', None)", "KeyError", "parameter name can't start with '_'"),
    ("m.add_module('f', print)", "TypeError", "is not a Module subclass"),
    ("m.add_module('__class__', nn.ReLU())", "KeyError", "module name can't start with '_'"),
    ("m.add_module('a.b', nn.ReLU())", "KeyError", 't contain ".", got: a.b'),
    ("nn.Sequential(print)", "TypeError", "is not a Module subclass"),
    ("nn.ModuleList([print])", "TypeError", "is not a Module subclass"),
])
def test_registration_takes_what_pytorch_takes_and_no_private_names(source, kind, message):
    error, _ = outcome("m = nn.Module()\n" + source)
    assert error.type == kind and message in error.message, error


def test_registered_names_still_work_as_attributes():
    r = run_program("m = nn.Module()\nm.register_buffer('scale', torch.ones(2))\n"
                    "m.register_parameter('w', nn.Parameter(torch.zeros(1)))\n"
                    "m.add_module('act', nn.ReLU())\n"
                    "print(m.scale, m.w.shape, m.act, sorted(m.state_dict()))")
    assert r.error is None
    assert r.stdout == "tensor([1., 1.]) torch.Size([1]) ReLU() ['scale', 'w']\n"


# ---- root cause: values handed to NumPy ------------------------------------------------------------------
DATA_ENTRIES = [
    "torch.from_numpy(h)", "torch.tensor(h)", "torch.tensor([1.0, h])", "torch.as_tensor(h)", "x.copy_(h)",
    "x[:] = h", "x[0] = h", "x.fill_(h)", "torch.full((2,), h)", "torch.zeros(2, dtype=h)", "x.to(h)",
    "nn.Linear(1, 1).load_state_dict({'weight': h, 'bias': h})", "x + h", "x * h", "x == h", "x < h",
    "torch.where(h, x, x)", "torch.where(x > 0, x, h)", "nn.init.constant_(x, h)", "torch.arange(h)",
    "x.reshape(h)", "x[h]", "x[[0, h]]", "torch.Size([h])", "torch.cat([x, h])", "x.clamp(min=h)",
    "x.pow(h)", "h ** x", "torch.eq(x, h)", "x.add(x, alpha=h)", "F.leaky_relu(x, h)", "torch.manual_seed(h)",
    "optim.SGD([torch.ones(1, requires_grad=True)], lr=h)", "nn.Linear(h, 1)", "x.sum(h)", "h in x",
    "torch.set_printoptions(precision=h)", "x.requires_grad_(h)", "torch.zeros(h)",
]


@pytest.mark.parametrize("entry", DATA_ENTRIES)
def test_engine_entry_points_read_nothing_from_an_object_they_do_not_know(entry, smuggle):
    h = DataCanary()
    smuggle.put(h=h)
    error, _ = outcome(f"x = torch.zeros(2)\nr = {entry}")
    assert h.uses == [], (entry, h.uses)
    assert error is None or error.type in ("TypeError", "RuntimeError", "IndexError", "ValueError"), error


# ---- root cause: dtypes ----------------------------------------------------------------------------------
@pytest.mark.parametrize("source, message", [
    ("torch.dtype('o', 'O', False, '')", "cannot create 'torch.dtype' instances"),
    ("torch.zeros(2, dtype=torch.ones(1).numpy().dtype)", "zeros(): argument 'dtype' must be torch.dtype"),
    ("class D:\n    pass\nd = D()\nd.np = 'O'\nd.is_floating_point = True\nt = torch.zeros(2, dtype=d)",
     "zeros(): argument 'dtype' must be torch.dtype, not D"),
    ("class D:\n    pass\nd = D()\nd.is_floating_point = True\ntorch.set_default_dtype(d)",
     "only floating-point types are supported as the default type"),
    ("t = torch.tensor(['a'])", "new(): invalid data type 'str'"),
])
def test_no_dtype_can_be_made_by_the_program(source, message):
    error, _ = outcome(source)
    assert error.type == "TypeError" and message in error.message, error


def test_the_dtype_class_refuses_construction_even_when_reached(smuggle):
    smuggle.put(dtype_class=type(engine.float32))  # as if type() had been reachable
    error, _ = outcome("d = dtype_class('o', 'O', False, '')")
    assert (error.type, error.message) == ("TypeError", "cannot create 'torch.dtype' instances")


# ---- root cause: callables called outside the call policy ------------------------------------------------
CALLABLE_ESCAPES = [
    "list(map(evil, ['x']))",
    "list(map(lambda s: evil(s), ['x']))",
    "list(filter(evil, ['x']))",
    "sorted(['a', 'b'], key=evil)",
    "min(['a', 'b'], key=evil)",
    "max(['a', 'b'], key=evil)",
    "next(iter(evil, 1))",
    "x = ['a', 'b']\nx.sort(key=evil)",
    "class A:\n    p = property(evil)\nA().p",
    "class A:\n    s = staticmethod(evil)\nA.s('x')",
    "class A:\n    c = classmethod(evil)\nA.c()",
    "opt = optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)\nopt.step(evil)",
    "opt = optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1)\nopt.step(lambda: evil('x'))",
    "nn.Linear(1, 1).apply(evil)",
    "torch.no_grad()(evil)('x')",
    "torch.enable_grad()(evil)('x')",
    "nn.Sequential(evil)(torch.ones(1))",
    "nn.ModuleList([evil])",
    "m = nn.Linear(1, 1)\nm.forward = evil\nm(torch.ones(1))",
    "m = nn.Linear(1, 1)\nm.extra = [evil]\nm.extra[0]('x')",
    "class N(nn.Module):\n    forward = evil\nN()(torch.ones(1))",
    "class N(nn.Module):\n    def go(self):\n        return super().apply(evil)\nN().go()",
    "f = evil\nf('x')",
    "d = {'f': evil}\nd['f']('x')",
]


@pytest.mark.parametrize("source", CALLABLE_ESCAPES)
def test_a_callable_outside_the_policy_is_never_called(source, smuggle, system_calls):
    evil = Canary()
    smuggle.put(evil=evil)
    error, _ = outcome(source)
    assert evil.uses == [], (source, evil.uses)
    assert error is not None and error.type in ("ForbiddenError", "TypeError"), (source, error)


@pytest.mark.parametrize("source", [
    "list(map((e := b['eval']), [\"__import__('os').system('id')\"]))",
    "sorted([\"__import__('os').system('id')\"], key=(e := b['eval']))",
    "(g := b['exec'])(\"__import__('os').system('id')\")",
    "list(filter(b['open'], ['/etc/passwd']))",
    "(o := b['__import__'])('os')",
])
def test_expression_mode_with_a_walrus_is_policed_the_same(source, smuggle, system_calls):
    smuggle.put(b=vars(builtins))
    r = run_program(source)
    assert r.mode == "expression"
    assert r.error.type == "ForbiddenError" and "is not allowed in gradviz" in r.error.message
    assert system_calls == []


def test_policed_callables_still_behave_as_python_and_pytorch():
    src = """
def double(v):
    return v * 2
print(list(map(double, [1, 2])), list(filter(None, [0, 1, 2])), sorted([3, 1, 2], key=lambda v: -v))
print(min([3, 1, 2], key=double), max('ab', 'c', key=len), list(iter([5, 6].pop, 5)))
xs = [3, 1, 2]
xs.sort(reverse=True)
print(xs)
class A:
    def __init__(self):
        self.v = 2
    @property
    def twice(self):
        return self.v * 2
    half = property(lambda self: self.v / 2)
    @staticmethod
    def s(k):
        return k + 1
print(A().twice, A().half, A.s(1))
m = nn.Linear(2, 2)
seen = []
m.apply(lambda mod: seen.append(mod.weight.shape))
w = torch.ones(1, requires_grad=True)
opt = optim.SGD([w], lr=0.5)
def closure():
    opt.zero_grad()
    loss = (w * 3).sum()
    loss.backward()
    return loss
print(seen, opt.step(closure), w, torch.no_grad()(lambda t: t * 2)(w).requires_grad)
m.forward = double
print(m(torch.ones(1)), m.forward is double)
"""
    r = run_program(src)
    assert r.error is None, r.error
    assert r.stdout == (
        "[2, 4] [1, 2] [3, 2, 1]\n1 ab [6]\n[3, 2, 1]\n4 1.0 2\n"
        "[torch.Size([2, 2])] tensor(3., grad_fn=<SumBackward0>) "
        "tensor([-0.5000], requires_grad=True) False\n"
        "tensor([2.]) True\n")


# ---- the walk: every public engine callable, with a smuggled callable and object in each position -------
def test_every_engine_callable_refuses_smuggled_objects(smuggle):
    smuggle.put(f=None, args=None, kwargs=None)
    attempts = escaped = 0
    failures = []
    for label, make in public_callables():
        if not is_engine_callable(make()):
            continue
        for position, arrange in argument_cases(make()):
            for canary in (Canary(), DataCanary()):
                args, kwargs = arrange(canary)
                smuggle.objects.update(f=make(), args=args, kwargs=kwargs)
                attempts += 1
                error, _ = outcome("f(*args, **kwargs)")
                if canary.uses:
                    escaped += 1
                    failures.append((label, position, canary.uses))
                elif type(canary) is Canary and (error is None or error.type != "ForbiddenError"):
                    failures.append((label, position, error))  # a callable is refused where it enters
    print(f"\nsmuggled-object walk through the runner: {attempts} attempts, {escaped} got out")
    assert attempts > 1000 and escaped == 0 and not failures, failures[:10]


# ---- addresses -------------------------------------------------------------------------------------------
def test_no_text_the_program_sees_holds_a_real_address():
    src = """
def f():
    pass
class A:
    pass
m = nn.Linear(1, 1)
x = torch.ones(1, requires_grad=True)
y = (x * 2).sum()
things = [f, A(), A, m.parameters(), map(abs, []), print, [].append, y.grad_fn, y.grad_fn.next_functions,
          torch.no_grad(), optim.SGD(m.parameters(), lr=0.1), torch, iter([])]
print(things)
print(str(f), repr(f), f"{f}", "{}".format(f), "%s %r" % (f, f), format(f))
try:
    [].index(f)
except ValueError as e:
    print(e, e.args, repr(e))
print(f)
"""
    r = run_program(src)
    assert r.error is None, r.error
    real = {int(h, 16) for h in re.findall(r"0x[0-9a-f]+", r.stdout)}
    assert real and all(0x7F0000000000 < a < 0x7F0000001000 for a in real), r.stdout
    f_alias = re.search(r"<function f at (0x[0-9a-f]+)>", r.stdout).group(1)
    assert r.stdout.count(f_alias) == 12  # the same alias for the same object, everywhere
    assert "/engine/" not in r.stdout and "<module 'torch'>" in r.stdout


def test_error_messages_show_aliases_too():
    error, _ = outcome("def f():\n    pass\n[].index(f)")
    assert re.fullmatch(r"<function f at 0x7f000000000\d> is not in list", error.message), error
    error, _ = outcome("d = {}\nd[torch.sigmoid]")
    assert error.type == "KeyError" and error.message == "<function sigmoid at 0x7f0000000001>"


# ---- resource holes ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("source, col", [
    ("t = torch.zeros(3000000, 0)", 5),
    ("t = torch.zeros(10 ** 9, 0)", 5),
    ("t = torch.zeros(0, 500000000).sum(0)", 5),
    ("t = torch.zeros(0).reshape(10 ** 9, 0)", 5),
    ("t = torch.ones(1000, 1000)[torch.zeros(1000, 1000, dtype=torch.long)]", 5),
    ("t = torch.eq(torch.ones(100000, 1), torch.ones(1, 100000))", 5),
])
def test_empty_and_exploding_shapes_are_limit_errors_with_a_position(source, col):
    error, _ = outcome(source)
    assert error.type == "LimitError" and "(limit: max_tensor_elements)" in error.message, error
    assert (error.line, error.col) == (1, col)


def test_small_empty_tensors_keep_pytorch_semantics():
    r = run_program("t = torch.zeros(3, 0)\nprint(t, t.sum(0), t.sum(1), t.shape)")
    assert r.error is None
    assert r.stdout == "tensor([], size=(3, 0)) tensor([]) tensor([0., 0., 0.]) torch.Size([3, 0])\n"


def test_valid_value_table_covers_the_names_it_is_asked_for():
    assert valid_value("dim") == 0 and isinstance(valid_value("no-such-name"), engine.Tensor)

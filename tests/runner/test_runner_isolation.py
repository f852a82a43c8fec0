"""Nothing a program leaves behind reaches the next run in the same process (a kept worker runs
several): every piece of the engine's process-wide state starts each run as in a fresh process,
the objects every run shares cannot be changed (with PyTorch's errors), and stdout is cut at its
limit, cheaply, saying so."""

from __future__ import annotations

import ast
import itertools
import pathlib
import random
import time

import numpy as np
import pytest
import torch

from engine import dtypes, generator, hooks, tangents
from engine.runner import Settings, engine_state, run_program
from engine.runner.run import Output, answer_size

FWAD = "import torch.autograd.forward_ad as fwAD\n"
X = "x = torch.ones(1, requires_grad=True)\n"
SQ = ("class Sq(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
      "        return x * x\n    @staticmethod\n    def backward(ctx, g):\n        return g\n"
      "y = Sq.apply(torch.ones(1, requires_grad=True))")
JVP = (FWAD + "x = torch.tensor(3.0)\nwith fwAD.dual_level():\n    d = fwAD.make_dual(x, torch.tensor(1.0))\n"
       "    print('jvp', fwAD.unpack_dual(d * 2.0).tangent)")

# Each entry of engine_state.STATE: a program that leaves it changed (None: no program can, so the
# test changes it directly), and a program whose output shows it, with what a fresh process prints.
LEFTOVERS = {
    "grad mode": ("torch.set_grad_enabled(False)", "print(torch.is_grad_enabled())", "True\n"),
    "inference mode": (None, "print(torch.is_inference_mode_enabled(), torch.ones(1).is_inference())",
                       "False False\n"),
    "vmap calls refusing random draws": (None, "print(torch.rand(2).shape)", "torch.Size([2])\n"),
    "default dtype": ("torch.set_default_dtype(torch.float64)",
                      "print(torch.get_default_dtype(), torch.tensor([1.5]).dtype)",
                      "torch.float32 torch.float32\n"),
    "print options": ("torch.set_printoptions(precision=1, sci_mode=False, linewidth=5)",
                      "print(torch.tensor([1.23456789, 2000000.0]))", "tensor([1.2346e+00, 2.0000e+06])\n"),
    "random generator": ("torch.manual_seed(5)\ntorch.randn(3)", "print(torch.randn(2))",
                         f"{torch.manual_seed(0) and torch.randn(2)}\n"),  # PyTorch's, seeded as a run is
    "numpy.random generator": ("import numpy as np\nnp.random.seed(3)\nnp.random.rand()",
                               "import numpy as np\nprint(np.random.rand())", "0.6369616873214543\n"),
    "python random generator": ("import random\nrandom.seed(5)\nrandom.random()",
                                "import random\nprint(random.random())", "0.8444218515250481\n"),
    "dual level": (FWAD + "fwAD.enter_dual_level()", JVP, "jvp tensor(2.)\n"),
    "leaf hooks": (X + "h = x.register_hook(lambda g: g * 100)", X + "(x * 2).backward()\nprint(x.grad)",
                   "tensor([2.])\n"),
    "post-accumulate hooks": (X + "h = x.register_post_accumulate_grad_hook(lambda p: print('left'))",
                              X + "(x * 2).backward()\nprint(x.grad)", "tensor([2.])\n"),
    "hook handle ids": (X + "for i in range(5):\n    x.register_hook(lambda g: g)",
                        X + "print(x.register_hook(lambda g: g).id)", "0\n"),
    "transforms running": (None, "print(torch.func.grad(lambda x: (x * x).sum())(torch.tensor(3.0)))",
                           "tensor(6.)\n"),
    "module calls running": (None, "m = nn.Linear(1, 1)\ny = m(torch.ones(1))\nprint(y.shape)",
                             "torch.Size([1])\n"),
    "program Function ops": (SQ, SQ + "\nprint(y.grad_fn.name())", "SqBackward\n"),
    "address aliases": ("def g():\n    pass\nprint(g)", "def f():\n    pass\nprint(f)",
                        "<function f at 0x7f0000000001>\n"),
    "tensor budget": (None, "x = torch.zeros(1000)\nprint(x.shape)", "torch.Size([1000])\n"),
    "recursion limit": (None, "print(1)", "1\n"),
}

# What a leftover looks like where no program can leave one (a run cut off half way, in principle).
DIRTY = {
    "inference mode": True, "vmap calls refusing random draws": [2],
    "grad mode": False, "default dtype": dtypes.float64, "print options": (1, 5.0, 1, 5, True),
    "random generator": generator.seeded_state(5), "numpy.random generator": [np.random.default_rng(3)],
    "python random generator": [random.Random(3)],
    "dual level": tangents.Level(0), "leaf hooks": {1: (lambda: None, {})},
    "post-accumulate hooks": {1: (lambda: None, {})},
    "hook handle ids": itertools.count(7), "transforms running": [3], "module calls running": [{}],
    "program Function ops": {("x", 1): None}, "address aliases": {1: 1}, "tensor budget": None,
    "recursion limit": 2000,
}


def _described(value):
    """A value of an entry as something ``==`` compares (generators by state, counters by next)."""
    if isinstance(value, np.random.Generator):
        return value.bit_generator.state
    if isinstance(value, list) and value and isinstance(value[0], np.random.Generator):
        return [g.bit_generator.state for g in value]
    if isinstance(value, list) and value and isinstance(value[0], random.Random):
        return [g.getstate() for g in value]
    if isinstance(value, itertools.count):
        return repr(value)
    return value


@pytest.fixture()
def seen_at_start(monkeypatch):
    """The value of every entry at the start of each run (just after its reset)."""
    seen: list[dict] = []
    reset = engine_state.reset

    def observed(settings):
        reset(settings)
        seen.append({e.name: _described(e.get()) for e in engine_state.STATE})

    monkeypatch.setattr(engine_state, "reset", observed)
    return seen


def test_every_entry_of_the_state_has_a_leftover_and_a_probe():
    assert set(LEFTOVERS) == {e.name for e in engine_state.STATE} == set(DIRTY)


# Module globals of the engine that change after import but are not entries of the state, and why
# no program can observe them across runs.
NOT_STATE = {
    "engine.autograd._tie": "a tie-breaker of the walk's queue: only the order of its numbers counts",
    "engine.function._seq": "nodes' sequence numbers: the walk uses only their order",
    "engine.function._NODE_CLASSES": "grad_fn classes by PyTorch's name: the same for every run",
    "engine.tensor._CONSTANTS": "wrapped numbers by value: read-only arrays, never handed to a program",
    "engine.tensor._CONST_VC": "their version counter: wrapped numbers are never written",
    "engine.trace_facts._SAVE_PLANS": "each op's save plan: a function of the op",
    "engine.trace_facts.OP_FACTS": "what the recorder reads of each op table entry: a function of the entry",
    "engine.trace.ACTIVE": "the recorder: recording() sets and restores it around the run",
    "engine.gcpause._depth": "gc_paused() nesting: entered and left around the run",
    "engine.gcpause._was_enabled": "gc_paused()'s saved flag: entered and left around the run",
    "engine.runner.torch_modules._TABLES":
        "the allow-list built from the engine modules, which no program changes",
    "engine.ops.table._PUBLISHED": "filled while the op modules are imported",
}
# Module-level containers filled at import and only read afterwards (no program reaches them).
READ_ONLY = {
    "engine.autograd.worlds._NO_PARAMS", "engine.ops.causes.CAUSES", "engine.dtypes._BY_NP",
    "engine.trace_facts.DTYPE_NAMES",
    "engine.ops.arithmetic._OPERATORS",
    "engine.ops.explain.WORDS", "engine.ops.shape._T_PERM", "engine.ops.table.OPS", "engine.ops.table.PUBLIC",
    "engine.ops.table.SAVED_INPUT", "engine.printing_options._PROFILES", "engine.runner.checker._REFUSED",
    "engine.runner.expressions.BINOPS", "engine.runner.expressions.COMPARE",
    "engine.runner.expressions.INPLACE", "engine.runner.expressions.UNARY",
    "engine.runner.libraries.LIBRARIES", "engine.runner.library_gate.DTYPES",
    "engine.runner.torch_modules.TORCH_MODULES", "engine.runner.run._INTERNAL_NAMES",
}
_MUTABLE_CALLS = {"dict", "list", "set", "count", "default_rng", "PrinterOptions", "defaultdict",
                  "OrderedDict"}


def _module_name(path: pathlib.Path) -> str:
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(tree: ast.Module, package: str) -> dict[str, str]:
    """Local name -> engine module, for ``from . import x as y`` and ``from .. import x``."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[:len(package.split(".")) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                out[alias.asname or alias.name] = f"{prefix}.{alias.name}"
    return out


def _assigned_globals(path: pathlib.Path) -> set[str]:
    """Module globals a file creates mutable or changes: ``global`` names, module-level containers,
    and attributes it sets on engine modules it imported (``_tangents.ACTIVE = ...``)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    modules = _imported_modules(tree, package)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            out.update(f"{name}.{n}" for n in node.names)
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in modules:
                    out.add(f"{modules[t.value.id]}.{t.attr}")
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp))
        if isinstance(value, ast.Call):
            f = value.func
            mutable = (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)) in _MUTABLE_CALLS
        if mutable:
            out.update(f"{name}.{t.id}" for t in targets if isinstance(t, ast.Name) and t.id != "__all__")
    return out


def test_every_global_the_engine_changes_is_reset_or_known_to_be_invisible():
    root = pathlib.Path(__file__).resolve().parents[2]
    found = set()
    for path in sorted((root / "engine").rglob("*.py")):
        if path.name != "torch_names.py":
            found |= _assigned_globals(path.relative_to(root))
    state = {e.where for e in engine_state.STATE if e.where}
    assert found - state - set(NOT_STATE) - READ_ONLY == set(), "a new global: reset it in engine_state.STATE"
    assert {"engine.tangents.ACTIVE", "engine.hooks._LEAF", "engine.grad_mode._enabled"} <= found & state


def test_a_run_starts_from_a_fresh_process_state_whatever_was_left(seen_at_start):
    fresh = {e.name: _described(e.fresh(Settings())) for e in engine_state.STATE}
    for leftover, _, _ in LEFTOVERS.values():
        if leftover is not None:
            assert run_program(leftover).error is None, leftover
    saved = [e.get() for e in engine_state.STATE]
    try:
        for e in engine_state.STATE:
            e.put(DIRTY[e.name])
        run_program("x = 1")
    finally:
        for e, value in zip(engine_state.STATE, saved):
            e.put(value)
    assert seen_at_start[-1] == fresh


@pytest.mark.parametrize("name", list(LEFTOVERS))
def test_the_next_run_sees_nothing_of_the_last(name):
    leftover, probe, expected = LEFTOVERS[name]
    assert run_program(probe).stdout == expected  # as in a fresh process
    if leftover is not None:
        first = run_program(leftover)
        assert first.error is None, first.error
    again = run_program(probe)
    assert again.error is None and again.stdout == expected


def test_a_dual_level_left_open_is_closed_for_the_next_run():
    run_program(FWAD + "fwAD.enter_dual_level()")
    assert tangents.ACTIVE is not None  # the run's own state stays while its results are used
    probe, expected = LEFTOVERS["dual level"][1:]
    assert run_program(probe).stdout == expected


def test_a_leaf_hook_of_an_earlier_run_is_forgotten():
    first = run_program(LEFTOVERS["leaf hooks"][0])
    assert first.variables["x"] is not None and hooks._LEAF  # the earlier tensor still lives
    run_program("y = 1")
    assert not hooks._LEAF


def test_the_callers_settings_come_back_after_a_run():
    before = [_described(e.get()) for e in engine_state.STATE if e.restored]
    run_program("torch.set_grad_enabled(False)\ntorch.set_default_dtype(torch.float64)\n"
                "torch.set_printoptions(precision=1)\ntorch.manual_seed(3)")
    assert [_described(e.get()) for e in engine_state.STATE if e.restored] == before


def test_reset_is_cheap():
    settings = Settings()
    saved = engine_state.capture()
    try:
        n = 2000
        t0 = time.perf_counter()
        for _ in range(n):
            engine_state.reset(settings)
        per_run = (time.perf_counter() - t0) / n
    finally:
        engine_state.restore(saved)
    print(f"engine_state.reset: {per_run * 1e6:.1f} µs per run")


# ---- objects every run shares are immutable, with PyTorch's errors -------------------------------
IMMUTABLE = [
    "d = torch.ones(1).device\nd.type = 'cuda'",
    "d = torch.ones(1).device\nd.index = 7",
    "d = torch.device('cpu')\nd.foo = 1",
    "d = torch.device('cuda', 1)\ndel d.type",
    "torch.float32.is_floating_point = False",
    "torch.float32.itemsize = 3",
    "torch.int64.is_signed = False",
    "torch.float32.to_real = 1",
    "torch.float32.foo = 1",
    "del torch.float32.itemsize",
    "s = torch.ones(2, 3).shape\ns.foo = 1",
    "s = torch.Size([2])\ns.numel = 1",
    "s = torch.Size([2])\ndel s.count",
    "s = torch.ones(2).shape\ns[0] = 3",
    "s = torch.ones(2).shape\ndel s[0]",
]


def _torch_error(source: str):
    torch = pytest.importorskip("torch")
    try:
        exec(source, {"torch": torch})  # noqa: S102 - the test's own statements, in real PyTorch
    except (AttributeError, TypeError) as exc:
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("source", IMMUTABLE)
def test_shared_objects_refuse_changes_as_pytorch_does(source):
    expected = _torch_error(source)
    assert expected is not None, "PyTorch accepted it"
    r = run_program(source)
    assert r.error is not None and (r.error.type, r.error.message) == expected


def test_a_device_changed_in_one_run_is_not_seen_by_the_next():
    r = run_program("d = torch.ones(1).device\ntry:\n    d.type = 'cuda'\n    d.index = 7\n"
                    "except AttributeError as e:\n    print(e)")
    assert r.stdout == "attribute 'type' of 'torch.device' objects is not writable\n"
    assert run_program("print('running on', torch.randn(3).device)").stdout == "running on cpu\n"
    r = run_program("print(torch.float32.is_floating_point, torch.float32.itemsize, torch.ones(2).shape)")
    assert r.stdout == "True 4 torch.Size([2])\n"


def test_devices_still_compare_hash_and_copy():
    import copy

    from engine.device import CPU, device

    assert device("cpu") == CPU and hash(device("cuda:1")) == hash(device("cuda", 1))
    assert copy.deepcopy(device("cuda", 2)) == device("cuda", 2)


# ---- stdout is cut at its limit, cheaply, and says so --------------------------------------------
CUT = "the rest is not shown (limit: max_output_chars)]\n"


def test_thirty_megabytes_of_prints_are_cut_at_the_limit():
    r = run_program("for i in range(30000):\n    print('x' * 1000)")
    limit = Settings().max_output_chars
    assert r.error is None and r.stdout_truncated
    assert r.stdout.endswith(CUT)
    assert "[output cut: the program printed more than 1,000,000 characters" in r.stdout
    assert limit < len(r.stdout) < limit + 200


def test_output_under_the_limit_is_whole():
    r = run_program("for i in range(3):\n    print(i)")
    assert r.stdout == "0\n1\n2\n" and not r.stdout_truncated


def test_characters_outside_ascii_count_as_the_answer_writes_them():
    assert answer_size("ab") == 2 and answer_size("é") == 6 and answer_size("😀") == 12
    out = Output(100)
    out.write("😀" * 20)  # 240 characters of the answer
    assert out.cut and out.parts[0] == "😀" * 8 and answer_size(out.parts[0]) <= 100


def test_printing_after_the_cut_shows_nothing_more():
    r = run_program("class M(nn.Module):\n    def extra_repr(self):\n        return 'mine'\n"
                    "print('x' * 100)\nprint(torch.ones(3))\nprint(M())\nprint('y')",
                    settings=Settings(max_output_chars=50))
    assert r.error is None and r.stdout_truncated and r.stdout.count("[output cut") == 1
    assert r.stdout.startswith("x" * 50 + "\n[output cut")
    assert "tensor" not in r.stdout and "mine" not in r.stdout

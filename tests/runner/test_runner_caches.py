"""What the runner works out once per run (per AST node, per type, per function) gives the same
answers as working it out every time, and never lets a second, different object through on the
first one's answer."""

from __future__ import annotations

import ast
import types

import pytest

import engine
from engine.runner import ProgramError, Settings, run_program
from engine.runner.errors import ForbiddenError
from engine.runner.expressions import PLAIN_ARGUMENTS
from engine.runner.policy import Policy
from engine.runner.positions import Positions
from engine.tensor import Tensor


def _error(source: str, **settings):
    res = run_program(source, settings=Settings(**settings) if settings else None)
    assert res.error is not None, res.stdout
    return res.error


# ---- positions per node --------------------------------------------------------------------------
def test_positions_per_node_match_the_computed_ones():
    source = "s = 'é中文'; y = s + 'x'\nz = (1 +\n     2)\n"
    pos = Positions(source)
    for node in ast.walk(ast.parse(source)):
        assert pos.starts[node] == pos.of(node)
        assert pos.ends[node] == pos.end_of(node)
    y = ast.parse(source).body[1].targets[0]
    assert pos.starts[y] == (1, 12)  # characters, not UTF-8 bytes (16)


def test_recorded_ops_keep_their_own_position_and_end():
    res = run_program("a = torch.ones(2, requires_grad=True)\nb = (a * 2).sum()\nc = torch.tanh(a)\n")
    nodes = [n for n in res.trace.nodes if n.kind == "op"]
    assert [(n.line, n.col) for n in nodes] == [(2, 6), (2, 5), (3, 5)]
    assert [(n.end_line, n.end_col) for n in nodes] == [(2, 11), (2, 18), (3, 18)]


# ---- the attribute policy ------------------------------------------------------------------------
def test_module_attributes_keep_every_refusal():
    for source in ("torch.save", "torch.grad_mode", "torch.runner", "torch.np", "torch.no_such_name"):
        err = _error(source)
        assert err.type in ("ForbiddenError", "AttributeError", "NotSupportedError"), (source, err)
    policy = Policy(set(), None)
    for name in ("_C", "__dict__", "__loader__", "np", "save", "load", "base"):
        with pytest.raises((ForbiddenError, AttributeError)):
            policy.get_attr(engine, name)
    assert policy.get_attr(engine, "tanh") is engine.tanh
    assert policy.get_attr(engine, "__name__") == "torch"
    assert run_program("print(torch.tanh is torch.tanh, torch.float32)").stdout == "True torch.float32\n"


def test_tensor_attributes_keep_every_refusal():
    for name in ("tofile", "base", "ctypes", "dump", "mro"):
        assert _error(f"x = torch.ones(1)\nx.{name}").type in ("ForbiddenError", "AttributeError"), name
    policy = Policy(set(), None)
    for name in ("_data", "__dict__", "__bases__", "_grad_fn", "_vc", "tofile", "base"):
        with pytest.raises(ForbiddenError):
            policy.get_attr(engine.ones(1), name)
    x = engine.ones(1)
    assert policy.get_attr(x, "__class__") is type(x)  # what type(x) gives, no more
    assert policy.get_attr(x, "_version") == 0 and policy.get_attr(x, "_base") is None
    assert run_program("x = torch.ones(2)\nprint(x.shape, x.requires_grad)").stdout == \
        "torch.Size([2]) False\n"


def test_instance_kinds_are_asked_again_when_the_program_defines_a_class():
    policy = Policy(set(), None)

    class A:
        pass

    a = A()
    assert not policy.is_user_instance(a)
    policy.user_classes.add(A)  # the program defined A
    assert policy.is_user_instance(a)
    assert policy.is_user_instance(A())
    assert not policy.is_user_instance(object())
    assert policy.is_engine_instance(engine.nn.Linear(1, 1))
    assert not policy.is_engine_instance(engine.nn.Linear)  # a class is not an instance
    assert not policy.is_engine_instance(a)


# ---- the call policy -----------------------------------------------------------------------------
def test_a_function_allowed_once_lets_no_other_function_through():
    policy = Policy(set(), None)
    assert policy.check_call(engine.tanh) is True
    assert policy.check_call(engine.tanh) is True

    def foreign():
        pass

    for _ in range(2):  # a refusal is never kept as an answer: asked again, refused again
        with pytest.raises(ForbiddenError):
            policy.check_call(foreign)
    with pytest.raises(ForbiddenError):
        policy.check_call(lambda: None)


def test_an_engine_method_allowed_on_one_receiver_type_is_not_allowed_on_another():
    policy = Policy(set(), None)
    x = engine.ones(2)
    assert policy.check_call(x.add) is True
    assert policy.check_call(engine.ones(3).add) is True  # same function, same receiver type
    for owner in (object(), 3, "s"):
        with pytest.raises(ForbiddenError):
            policy.check_call(types.MethodType(Tensor.add, owner))


def test_user_classes_and_engine_methods_through_the_program():
    source = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(x)

net = Net()
for _ in range(3):
    out = net(torch.ones(1, 2)).sum()
print(type(out).__name__, len(list(net.parameters())))
"""
    res = run_program(source)
    assert res.error is None and res.stdout == "Tensor 2\n"


# ---- arguments, operators, user functions ------------------------------------------------------
def test_plain_arguments_are_neither_containers_iterators_nor_callable():
    examples = [engine.ones(1), engine.nn.Parameter(engine.ones(1)), 0, 0.5, True, "s", None]
    assert {type(v) for v in examples} == set(PLAIN_ARGUMENTS)
    for value in examples:
        assert type(value) not in (list, tuple, dict)
        assert not hasattr(value, "__next__") and not callable(value), value


def test_lazy_and_callable_arguments_are_still_prepared():
    res = run_program("print(torch.tensor(list(x * 1.0 for x in range(3))))\n"
                      "print(torch.stack([torch.ones(1) for _ in range(2)]).shape)")
    assert res.error is None and res.stdout == "tensor([0., 1., 2.])\ntorch.Size([2, 1])\n"
    err = _error("torch.tensor(iter(range(10 ** 9)))", max_loop_iterations=1000)
    assert err.type == "LimitError"


def test_two_tensors_of_different_shapes_still_meet_the_broadcast_limit():
    err = _error("a = torch.ones(2000, 1)\nb = torch.ones(1, 2000)\nc = a * b")
    assert err.type == "LimitError" and "max_tensor_elements" in err.message
    assert (err.line, err.col) == (3, 5)
    assert run_program("a = torch.ones(3, 1)\nb = torch.ones(1, 4)\nprint((a + b).shape)").stdout == \
        "torch.Size([3, 4])\n"


def test_sizes_of_one_input_ops_are_still_limited():
    err = _error("x = torch.zeros(1, 0)\ny = x.expand(2000000, 0)")
    assert err.type == "LimitError"
    assert run_program("x = torch.ones(1000, 1000)\ny = x.exp()\nprint(y.shape)").error is None


def test_user_functions_bind_their_arguments_as_python_does():
    source = """
def f(a, b):
    return a * 10 + b
def g(a, b=2, *rest, c=3, **kw):
    return (a, b, rest, c, sorted(kw))
print(f(1, 2), f(b=1, a=2), g(1), g(1, 5, 6, c=7, d=8))
"""
    assert run_program(source).stdout == "12 21 (1, 2, (), 3, []) (1, 5, (6,), 7, ['d'])\n"
    err = _error("def f(a, b):\n    return a\nf(1)")
    assert err.type == "TypeError" and "missing 1 required positional argument: 'b'" in err.message
    err = _error("def f(a):\n    return a\nf(1, 2)")
    assert err.type == "TypeError" and "takes 1 positional argument but 2 were given" in err.message


# ---- error positions -----------------------------------------------------------------------------
@pytest.mark.parametrize(("source", "where"), [
    ("y = torch.tanh(zz)\nzz = 1", (1, 16)),          # a name read in a call's argument
    ("x = 1\ny = x + later\nlater = 2", (2, 9)),      # a name read in an operator
    ("def f():\n    return q\nf()\nq = 1", (2, 12)),   # a name read in a function body
    ("x = [1]\nfor i in range(3):\n    x[i]", (3, 5)),  # an item read in a loop
    ("assert 1 == 2", (1, 1)),                          # a statement's own failure
])
def test_errors_carry_the_innermost_position(source, where):
    err = _error(source)
    assert (err.line, err.col) == where, err


def test_a_program_refused_before_it_runs_is_still_refused():
    with pytest.raises(ProgramError):
        run_program("import os")

"""What course code needs from the runner: ``type()`` and ``__name__``, grad_fn methods, the math and
numpy subsets (read-only, behind the argument gate), the torch modules courses import, programs'
own autograd Functions and hooks, and clear answers for what gradviz does not support."""

from __future__ import annotations

import textwrap

import pytest

from engine.errors import NOT_SUPPORTED
from engine.runner import run_program


def run(src: str):
    return run_program(textwrap.dedent(src))


def out(src: str) -> str:
    r = run(src)
    assert r.error is None, r.error
    return r.stdout


# ---- type(), __name__ and the graph's nodes ------------------------------------------------------------
def test_type_gives_pytorch_s_class_names():
    assert out("""
        x = torch.ones(2, requires_grad=True)
        y = (x * 2).sum()
        print(type(x), type(nn.Linear(1, 1)), type(y.grad_fn), type(torch.float32), type(x.shape))
        print(type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0].next_functions[0][0]).__name__)
        print(y.grad_fn.name(), type(x).__name__, torch.sigmoid.__name__, nn.__name__)
        print(isinstance(y.grad_fn, type(y.grad_fn)), type(x) is torch.Tensor, type(3), type(print))
    """) == ("<class 'torch.Tensor'> <class 'torch.nn.modules.linear.Linear'> <class 'SumBackward0'> "
             "<class 'torch.dtype'> <class 'torch.Size'>\nSumBackward0 AccumulateGrad\n"
             "SumBackward0 Tensor sigmoid torch.nn\n"
             "True True <class 'int'> <class 'builtin_function_or_method'>\n")


@pytest.mark.parametrize("source, kind", [
    ("type('A', (), {})", "TypeError"),
    ("type(print)('x')", "ForbiddenError"),
    ("print.__class__('x')", "ForbiddenError"),
    ("torch.nn.Linear(1, 1).state_dict().__class__(a=1).popitem.__self__", "ForbiddenError"),
    ("x = torch.ones(1)\nx.__class__.__bases__", "ForbiddenError"),
    ("x = torch.ones(1)\nx.__class__ = int", "ForbiddenError"),
    ("x = torch.ones(1)\nx._version = 3", "ForbiddenError"),
    ("x = torch.ones(1)\nx.__class__.__subclasses__()", "ForbiddenError"),
    ("x = [1]\nx._version", "ForbiddenError"),
    ("x = torch.ones(1)\nx.__name__", "AttributeError"),
    ("x = torch.ones(1)\nx.__name__ = 'y'", "ForbiddenError"),
])
def test_type_and_names_give_no_more(source, kind):
    from engine.runner import ProgramError

    try:
        error = run_program(source).error
    except ProgramError as e:
        error = e.error
    assert error is not None and error.type == kind, error


# ---- math and numpy -------------------------------------------------------------------------------------
def test_math_subset():
    assert out("""
        import math
        from math import pi, sqrt
        print(math.pi == pi, sqrt(16), math.exp(0), math.log(math.e), math.isclose(0.1 + 0.2, 0.3))
        print(math.floor(2.7), math.ceil(2.1), math.factorial(5), math.comb(5, 2), math.prod([2, 3, 4]))
        x = torch.tensor(0.25)
        print(math.sqrt(x), math.fsum([0.1] * 10), math.inf > 1e308, math.gcd(12, 18))
    """) == "True 4.0 1.0 1.0 True\n2 3 120 10 24\n0.5 1.0 True 6\n"


def test_numpy_subset_makes_numeric_arrays_that_meet_torch():
    assert out("""
        import numpy as np
        a = np.array([1.0, 2.0, 3.0])
        t = torch.from_numpy(a)
        print(t, np.sum(a ** 2), np.allclose(np.sin(a) ** 2 + np.cos(a) ** 2, 1.0), a.dtype)
        print(np.linspace(0, 1, 3), np.zeros((2, 2)).shape, np.arange(4).reshape(2, 2).T.tolist())
        print(np.dot(a, a), np.maximum(a, 2.0), np.float32(1.5).item(), isinstance(a, np.ndarray))
        print(np.mean(np.ones((2, 3)), axis=1), type(a).__name__, np.pi)
        np.random.seed(0)
        r = np.random.randn(3)
        np.random.seed(0)
        print(r.shape, np.array_equal(r, np.random.randn(3)))
    """) == ("tensor([1., 2., 3.], dtype=torch.float64) 14.0 True float64\n"
             "[0.  0.5 1. ] (2, 2) [[0, 2], [1, 3]]\n14.0 [2. 2. 3.] 1.5 True\n"
             "[1. 1.] ndarray 3.141592653589793\n(3,) True\n")


@pytest.mark.parametrize("source, kind, text", [
    ("import numpy as np\nnp.loadtxt('x.txt')", "NotSupportedError", NOT_SUPPORTED + "numpy.loadtxt"),
    ("import numpy as np\nnp.load('x.npy')", "ForbiddenError", "attribute 'load' is not available"),
    ("import numpy as np\nnp.fft", "NotSupportedError", NOT_SUPPORTED + "numpy.fft"),
    ("import numpy as np\nnp.frobnicate", "AttributeError", "module 'numpy' has no attribute 'frobnicate'"),
    ("import math\nmath.exp(nn.Linear(1, 1))", "TypeError", "must be real number, not Linear"),
    ("import numpy as np\nnp.array([1.0, nn.Linear(1, 1)])", "TypeError",
     "unsupported argument of type Linear"),
    ("import numpy as np\nnp.zeros((100000, 100000))", "LimitError", "(limit: max_tensor_elements)"),
    ("import math\nmath.factorial(100000)", "LimitError", "(limit: max_int_bits)"),
    ("import os", "ForbiddenError", "math, numpy"),
])
def test_the_libraries_refuse_the_rest(source, kind, text):
    from engine.runner import ProgramError

    try:
        error = run_program(source).error
    except ProgramError as e:
        error = e.error
    assert error is not None and error.type == kind and text in error.message, error


# ---- not supported in gradviz ----------------------------------------------------------------------------
@pytest.mark.parametrize("source, what", [
    ("torch.fft.fft(torch.ones(4))", "torch.fft"),
    ("torch.einsum('i,i->', torch.ones(2), torch.ones(2))", "torch.einsum"),
    ("x = torch.ones(4)\nx.unfold(0, 2, 1)", "Tensor.unfold"),
    ("m = nn.Linear(1, 1)\nm.register_backward_hook(print)", "Module.register_backward_hook"),
    ("nn.Conv2d(1, 1, 3)", "torch.nn.Conv2d"),
    ("from torch import einsum\neinsum('i,i->', torch.ones(2), torch.ones(2))", "torch.einsum"),
    ("from torch.fft import fft\nfft(torch.ones(4))", "torch.fft"),
    ("torch.tensor([1 + 2j])", "complex numbers"),
    ("F.gelu(torch.ones(2), approximate='tanh')", "gelu(approximate='tanh')"),
])
def test_what_gradviz_does_not_support_says_so(source, what):
    from engine.runner import ProgramError

    try:
        error = run_program(source).error
    except ProgramError as e:
        error = e.error
    assert error is not None and error.message == NOT_SUPPORTED + what, error


def test_a_name_pytorch_has_is_refused_where_it_is_used_not_where_it_is_imported():
    from engine.runner import ProgramError

    source = ("from torch.fft import fft\nimport torch.distributions as D\nfrom torch import einsum\n"
              "print('imported')\ntry:\n    D.Normal(0.0, 1.0)\nexcept RuntimeError as e:\n    print(e)\n"
              "einsum('i,i->', torch.ones(2), torch.ones(2))\n")
    try:
        r = run_program(source)
    except ProgramError as e:
        raise AssertionError(f"refused before running: {e.error}") from None
    assert r.stdout == "imported\n" + NOT_SUPPORTED + "torch.distributions\n"
    error = (r.error.type, r.error.message, r.error.line)
    assert error == ("NotSupportedError", NOT_SUPPORTED + "torch.einsum", 9)


def test_a_typo_is_pytorch_s_attribute_error():
    r = run("torch.tensr([1.0])")
    assert (r.error.type, r.error.message) == ("AttributeError", "module 'torch' has no attribute 'tensr'")
    r = run("x = torch.ones(2)\nx.sumn()")
    assert (r.error.type, r.error.message) == ("AttributeError", "'Tensor' object has no attribute 'sumn'")


# ---- the program's own autograd Functions and hooks --------------------------------------------------------
def test_a_function_of_the_program_runs_through_the_policy_and_is_recorded():
    r = run("""
        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                ctx.note = "saved"
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                print("backward runs with", ctx.note)
                return 3 * x ** 2 * g

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x)
        y.sum().backward()
        print(y.grad_fn, x.grad)
    """)
    assert r.error is None, r.error
    assert r.stdout == ("backward runs with saved\n<torch.autograd.function.CubeBackward object at "
                        "0x7f0000000001> tensor([ 3., 12.])\n")
    node = next(n for n in r.trace.nodes if n.kind == "op")
    assert (node.grad_fn, node.op, node.line) == ("CubeBackward", "autograd_function", 16)  # the apply line
    assert [s.kind for s in r.trace.passes[0].steps] == ["op", "op", "leaf"]


def test_hooks_of_the_program_run_as_steps_of_the_walk():
    r = run("""
        x = torch.tensor([1.0, -2.0], requires_grad=True)
        y = x * 3
        def double(g):
            return g * 2
        handle = y.register_hook(double)
        x.register_hook(print)
        y.sum().backward()
        handle.remove()
    """)
    assert r.error is None, r.error
    assert r.stdout == "tensor([6., 6.])\n"
    hooks = [s for s in r.trace.passes[0].steps if s.kind == "hook"]
    assert [(h.hook, h.hook_line) for h in hooks] == [("double", 6), ("print", 7)]
    assert hooks[0].grad_after.tolist() == [2.0, 2.0] and hooks[1].grad_after is None


def test_a_function_may_not_extend_anything_else_of_the_engine():
    r = run("class A(torch.autograd.Variable):\n    pass")
    assert r.error.type == "ForbiddenError"

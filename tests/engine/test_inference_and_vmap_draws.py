"""torch.inference_mode's inference tensors and vmap's refusal of random ops, each program run on
the engine and on torch: the same results, the same errors."""

from __future__ import annotations

import pytest
import torch

import engine
from engine.runner import run_program


def outcome(lib, program):
    """What ``program(lib)`` did: ("ok", value) or (exception type name, message)."""
    try:
        return ("ok", program(lib))
    except Exception as exc:  # noqa: BLE001 - the point is to compare whatever was raised
        return (type(exc).__name__, str(exc))


def same(program):
    ours, theirs = outcome(engine, program), outcome(torch, program)
    assert ours == theirs
    return ours


def test_tensors_made_in_inference_mode_are_inference_tensors():
    def program(t):
        x = t.ones(3, requires_grad=True)
        w = t.ones(3)
        flags = [t.is_inference_mode_enabled()]
        with t.inference_mode():
            flags += [t.is_inference_mode_enabled(), t.is_grad_enabled()]
            y = x * 2
            view_of_normal = w[0:2]
            z = t.zeros(2)
            view_of_inference = z[0]
            with t.no_grad():
                under_no_grad = t.ones(1)
            with t.inference_mode(False):
                flags += [t.is_inference_mode_enabled(), t.is_grad_enabled()]
                normal = t.ones(1)
        made = [y, view_of_normal, z, view_of_inference, under_no_grad, normal, y.clone(), y + 1, y.detach()]
        return flags, [m.is_inference() for m in made], t.is_inference(y), y.requires_grad, w.is_inference()

    inference = [True, False, True, True, True, False, False, False, True]
    assert same(program)[1] == ([False, True, False, False, True], inference, True, False, False)


def test_inference_mode_as_a_decorator():
    def program(t):
        @t.inference_mode()
        def f(a):
            return a * 3

        @t.inference_mode(False)
        def g(a):
            return a * 3

        x = t.ones(2, requires_grad=True)
        return f(x).is_inference(), f(x).requires_grad, g(x).is_inference(), g(x).requires_grad

    assert same(program)[1] == (True, False, False, True)


@pytest.mark.parametrize("use", ["version", "saved for backward", "in place outside", "not a tensor"])
def test_what_an_inference_tensor_refuses(use):
    def program(t):
        x = t.ones(3, requires_grad=True)
        with t.inference_mode():
            y = x * 2
            y.add_(1)  # allowed inside
        if use == "version":
            return y._version
        if use == "saved for backward":
            return (y * x).sum()
        if use == "in place outside":
            return y.mul_(2)
        return t.is_inference(3)

    assert same(program)[0] in ("RuntimeError", "TypeError")


RANDOM = {
    "randn": lambda t, r: r + t.randn(3),
    "rand_like": lambda t, r: t.rand_like(r),
    "dropout": lambda t, r: t.nn.functional.dropout(r, 0.5),
    "bernoulli": lambda t, r: t.bernoulli(t.full((3,), 0.5)),
    "randint": lambda t, r: t.randint(0, 3, (3,)),
    "randperm": lambda t, r: t.randperm(3),
    "normal_": lambda t, r: r.clone().normal_(),
}


@pytest.mark.parametrize("name", RANDOM)
def test_vmap_refuses_random_ops_by_default(name):
    def program(t):
        t.manual_seed(0)
        t.randn(1)  # a normal cached in the generator must be refused too
        return t.func.vmap(lambda r: RANDOM[name](t, r))(t.ones(2, 3))

    assert same(program)[0] == "RuntimeError"


def test_vmap_without_random_ops_and_the_randomness_argument():
    def program(t):
        x = t.ones(2, 3)
        kept = t.func.vmap(lambda r: t.nn.functional.dropout(r, 0.5, training=False))(x).tolist()
        try:
            t.func.vmap(lambda r: r, randomness="sometimes")(x)
        except RuntimeError as e:
            refused = str(e)
        t.manual_seed(0)
        t.func.vmap(lambda r: r * 2, randomness="same")(x)
        return kept, refused, t.randn(2).tolist()

    same(program)


def test_vmap_refusal_ends_with_the_call():
    """A refused draw leaves no state behind: the program's next draws are torch's."""
    source = """import torch
from torch.func import vmap
torch.manual_seed(0)
try:
    vmap(lambda r: r + torch.randn(3))(torch.ones(2, 3))
except RuntimeError as e:
    print(type(e).__name__)
print(torch.randn(3))
with torch.inference_mode():
    y = torch.ones(2) * 2
print(y.is_inference(), torch.is_inference(y), torch.is_inference_mode_enabled())
"""
    result = run_program(source)
    assert result.error is None
    assert result.stdout == "RuntimeError\ntensor([ 1.5410, -0.2934, -2.1788])\nTrue True False\n"

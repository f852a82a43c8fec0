"""torch.autograd.gradcheck and gradgradcheck: a right backward passes, a wrong one is caught with
torch's message, and what they return and raise is what torch returns and raises."""

from __future__ import annotations

import pytest
import torch

import engine


def _wrong_square(t):
    class WrongSquare(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # the derivative is 2x

    return WrongSquare.apply


@pytest.mark.parametrize("t", [engine, torch], ids=["engine", "torch"])
def test_right_and_wrong_backwards(t):
    t.manual_seed(0)
    x = t.randn(3, dtype=t.float64, requires_grad=True)
    w = t.randn(2, 3, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (w, x))
    assert t.autograd.gradgradcheck(lambda a: (a ** 3).sum(), (x,))
    assert t.autograd.gradcheck(_wrong_square(t), (x,), raise_exception=False) is False


def test_the_mismatch_message_is_torchs():
    messages = []
    for t in (engine, torch):
        x = t.tensor([1.0, 2.0], dtype=t.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            t.autograd.gradcheck(_wrong_square(t), (x,))
        messages.append((type(info.value).__name__, str(info.value)))
    assert messages[0] == messages[1]
    assert messages[0][1].startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")


def test_inputs_without_grad_and_float32_are_reported():
    with pytest.raises(ValueError, match="expects at least one input tensor to require gradient"):
        engine.autograd.gradcheck(engine.sin, (engine.randn(2, dtype=engine.float64),))
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
        engine.autograd.gradcheck(engine.sin, (engine.randn(2, requires_grad=True),), raise_exception=False)

"""Public API details of the ops added on top of the table, compared with torch: return types,
argument forms, errors, integer inputs."""

from __future__ import annotations

import importlib

import pytest
import torch
from hostile_objects import INVOKED, HAll
from test_semantics import same

import engine


def _x(t):
    return t.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], dtype=t.float64, requires_grad=True)


FORMS = {
    "x.max()": lambda torch, x: x.max(),
    "x.min()": lambda torch, x: x.min(),
    "torch.max(x, 1)": lambda torch, x: torch.max(x, 1),
    "x.max(dim=0, keepdim=True)": lambda torch, x: x.max(dim=0, keepdim=True),
    "x.min(1)": lambda torch, x: x.min(1),
    "torch.min(x, -1, True)": lambda torch, x: torch.min(x, -1, True),
    "torch.max(x, x.detach() * 0.5)": lambda torch, x: torch.max(x, x.detach() * 0.5),
    "x.max(x.detach() + 1)": lambda torch, x: x.max(x.detach() + 1),
    "torch.argmax(x)": lambda torch, x: torch.argmax(x),
    "x.argmax(1)": lambda torch, x: x.argmax(1),
    "x.argmin(dim=0, keepdim=True)": lambda torch, x: x.argmin(dim=0, keepdim=True),
    "torch.clamp(x, min=2)": lambda torch, x: torch.clamp(x, min=2),
    "x.clamp(max=3)": lambda torch, x: x.clamp(max=3),
    "x.clamp(2, 4)": lambda torch, x: x.clamp(2, 4),
    "torch.cat([x, x], 1)": lambda torch, x: torch.cat([x, x], 1),
    "torch.stack([x, x], 2)": lambda torch, x: torch.stack([x, x], 2),
    "x.var(1)": lambda torch, x: x.var(1),
    "x.std(0, unbiased=False)": lambda torch, x: x.std(0, unbiased=False),
    "x.sum((0, 1))": lambda torch, x: x.sum((0, 1)),
    "x.mean(dim=(1,), keepdim=True)": lambda torch, x: x.mean(dim=(1,), keepdim=True),
    "x[1, 0]": lambda torch, x: x[1, 0],
    "x[:, -1]": lambda torch, x: x[:, -1],
    "x[..., 1:]": lambda torch, x: x[..., 1:],
    "x[x > 2]": lambda torch, x: x[x > 2],
    "x[[1, 0], [2, 2]]": lambda torch, x: x[[1, 0], [2, 2]],
    "x[None, :, None, 1]": lambda torch, x: x[None, :, None, 1],
    "torch.tensor([3, 1, 2]).max()": lambda torch, x: torch.tensor([3, 1, 2]).max(),
    "torch.tensor([3, 1, 2]).max(0)": lambda torch, x: torch.tensor([3, 1, 2]).max(0),
    "torch.tensor([3, 1, 2]).clamp(min=2)": lambda torch, x: torch.tensor([3, 1, 2]).clamp(min=2),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_forms_match(form):
    def program(t):
        x = _x(t)
        r = FORMS[form](t, x)
        if isinstance(r, tuple):
            return type(r).__name__, r.values.tolist(), r.indices.tolist(), r[0].grad_fn is None, repr(r)[:24]
        return r.tolist(), str(r.dtype), None if r.grad_fn is None else r.grad_fn.name()

    assert same(program)[0] == "ok"


def test_max_dim_unpacks_and_backpropagates():
    def program(t):
        x = _x(t)
        values, indices = t.max(x, dim=1)
        values.sum().backward()
        return indices.tolist(), x.grad.tolist(), str(indices.dtype)

    assert same(program)[1][0] == [1, 2]


ERROR_FORMS = {
    "x[2]": lambda torch, x: x[2],
    "x[0, 3]": lambda torch, x: x[0, 3],
    "x[-3]": lambda torch, x: x[-3],
    "x[0, 0, 0]": lambda torch, x: x[0, 0, 0],
    "x[[0, 5]]": lambda torch, x: x[[0, 5]],
    "x[::-1]": lambda torch, x: x[::-1],
    "x[torch.tensor([True, False, True])]": lambda torch, x: x[torch.tensor([True, False, True])],
    "torch.cat([x, x[0]])": lambda torch, x: torch.cat([x, x[0]]),
    "torch.cat([x, torch.ones(2, 2)], 0)": lambda torch, x: torch.cat([x, torch.ones(2, 2)], 0),
    "torch.stack([x, x[:, :2]])": lambda torch, x: torch.stack([x, x[:, :2]]),
    "torch.clamp(x)": lambda torch, x: torch.clamp(x),
    "x.max(2)": lambda torch, x: x.max(2),
}


@pytest.mark.parametrize("form", sorted(ERROR_FORMS))
def test_errors_match(form):
    def program(t):
        x = t.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
        return ERROR_FORMS[form](t, x)

    result = same(program)
    assert result[0] in ("IndexError", "RuntimeError", "ValueError")


def test_setitem_forms_match():
    def program(t):
        x = t.zeros(3, 4)
        x[0] = 1.0
        x[1, 1:3] = t.tensor([2.0, 3.0])
        x[:, 3] = t.tensor([7.0, 8.0, 9.0])
        x[x > 8] = -1.0
        x[[2, 2], [0, 1]] = 5.0
        x[..., 0] += 10
        return x.tolist(), x._version

    assert same(program)[0] == "ok"


def test_inplace_fill_zero_copy_and_clamp():
    def program(t):
        x = _x(t)
        a = (x * 2).fill_(3.0)
        b = (x * 2).zero_()
        c = (x * 2).copy_(t.tensor([1.0, 2.0, 3.0], dtype=t.float64))
        d = (x * 2).clamp_(0.0, 7.0)
        (a.sum() + b.sum() + (c * c).sum() + (d * d).sum()).backward()
        return [v.grad_fn.name() for v in (a, b, c, d)], x.grad.tolist()

    assert same(program)[0] == "ok"


def test_torch_max_exists_with_the_same_signature_forms():
    assert torch.max is not None
    x = engine.tensor([1.0, 3.0, 2.0])
    assert x.max().item() == 3.0 and engine.max(x, 0).indices.item() == 1


# ---- the public surface is what the op modules publish --------------------------------------------
def test_torch_functions_tensor_methods_and_functional_come_from_the_registrations():
    from engine.nn import functional as F
    from engine.ops.table import PUBLIC

    assert PUBLIC["torch"] and PUBLIC["Tensor"] and PUBLIC["F"]
    for name, fn in PUBLIC["torch"].items():
        assert getattr(engine, name) is fn, name
    for name, member in PUBLIC["Tensor"].items():
        assert engine.Tensor.__dict__[name] is member, name
    for name, fn in PUBLIC["F"].items():
        assert getattr(F, name) is fn and fn.__module__ == "engine.nn.functional", name
        assert name in F.__all__


def test_a_published_function_is_named_as_published():
    assert engine.max.__name__ == "max" and engine.clip is engine.clamp
    assert engine.nn.functional.softmax.__name__ == "softmax"
    assert engine.Tensor.float.__name__ == "float"


def test_an_op_that_is_only_registered_and_derived_reaches_torch_tensor_and_the_runner():
    """What a maintainer writes for a new elementwise op (its entry, wrapped) is all it takes."""
    import numpy as np

    from engine.ops.elementwise import math_function
    from engine.ops.table import OPS, PUBLIC, register
    from engine.runner import run_program

    fn = math_function(register("test_atan", "AtanBackward0", np.arctan,
                                [lambda g, s: g / (1 + s.a * s.a)], ["∂atan x/∂x = 1/(1+x²)"],
                                saves=("a",), description="atan x"))
    try:
        importlib.reload(engine.ops.api)  # what importing the op modules does at startup
        engine.test_atan = engine.ops.api.test_atan
        assert engine.Tensor.test_atan is fn
        r = run_program("x = torch.tensor([0.5], requires_grad=True)\n"
                        "y = torch.test_atan(x) + x.test_atan()\ny.backward()\n")
        assert r.error is None
        assert r.variables["x"].grad.tolist() == pytest.approx([2 / 1.25])
        assert [n.grad_fn for n in r.trace.nodes if n.kind == "op"][:2] == ["AtanBackward0"] * 2
        # Derived functions pass the argument gate too: refused as torch refuses, nothing run.
        INVOKED.clear()
        for bad in (HAll(), [HAll()], "x"):
            with pytest.raises(TypeError, match=r"^test_atan\(\): argument 'input' \(position 1\) must be "
                                                r"Tensor, not (HAll|list|str)$"):
                fn(bad)
        assert INVOKED == []
        r = run_program("y = torch.test_atan([0.5])\n")
        assert r.error.type == "TypeError" and "must be Tensor, not list" in r.error.message
    finally:
        del OPS["test_atan"], PUBLIC["torch"]["test_atan"], PUBLIC["Tensor"]["test_atan"]
        del engine.Tensor.test_atan, engine.test_atan, engine.ops.api.test_atan
        importlib.reload(engine.ops.api)

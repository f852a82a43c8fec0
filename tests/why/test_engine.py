"""The diagnosis on gradviz's engine: every op declares its causes, and every program of the corpus
gets the cause and the op it expects, with numbers that recompute."""

from __future__ import annotations

import pytest

from app.worker.why import diagnose_all, engine_subjects
from engine.ops.causes import CAUSES, KINDS
from engine.ops.table import OPS
from engine.runner import run_program

from .corpus import check_facts, check_line, check_words, corpus


def test_every_op_declares_its_causes():
    assert set(CAUSES) == set(OPS), "ops without a declaration: " + ", ".join(sorted(set(OPS) - set(CAUSES)))
    for op, causes in CAUSES.items():
        assert causes <= set(KINDS), op


def test_the_corpus_is_large_enough():
    assert len(corpus()) >= 25


@pytest.mark.parametrize("stem,source,name,cause,op", corpus(), ids=[c[0] for c in corpus()])
def test_engine_finds_the_cause(stem, source, name, cause, op):
    result = run_program(source)
    assert result.error is None, result.error
    why = diagnose_all(result.trace, engine_subjects(result.trace, result.variables))
    d = why["tensors"].get(name)
    assert d is not None, f"{name}'s gradient was not found suspicious"
    assert (d["cause"], d["op"]) == (cause, op), d["text"]["en"]
    check_words(d, name)
    check_line(source, d)
    t = result.variables[name]
    grad = t.grad if t.is_leaf else None
    check_facts(result.trace, d, None if grad is None else grad._data)


def test_a_healthy_gradient_has_no_diagnosis():
    source = ("import torch\ntorch.manual_seed(0)\nx = torch.randn(4, 3)\n"
              "w = torch.randn(3, requires_grad=True)\nloss = (x @ w).pow(2).mean()\nloss.backward()\n")
    result = run_program(source)
    why = diagnose_all(result.trace, engine_subjects(result.trace, result.variables))
    assert "w" not in why["tensors"] and "x" in why["tensors"]


@pytest.mark.parametrize("op", ["ceil", "floor", "round", "sign", "trunc"])
def test_an_op_declared_cut_sends_zeros(op):
    # what the declaration claims, checked on the op itself: its gradient is 0 everywhere
    import engine as torch

    assert "cut" in CAUSES[op]
    x = torch.tensor([-1.7, -0.2, 0.4, 2.6], requires_grad=True)
    getattr(torch, op)(x * 3).sum().backward()
    assert not x.grad.any()

"""cross_entropy's common call (2-D float logits, int64 class targets, every other argument left at
its default) takes a shorter path than a call that spells the defaults out: both record the same
graph (LogSoftmaxBackward0 then NllLossBackward0, same params and saved tensors) and give the same
bits, with torch's values (to rounding: exp is NumPy's), in float32 and float64; a target out of
range still gets torch's error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import engine

F = engine.nn.functional


def _run(x, y, **kw):
    logits = engine.tensor(x, requires_grad=True)
    loss = F.cross_entropy(logits, engine.tensor(y), **kw)
    nll = loss.grad_fn
    soft = nll.next_functions[0][0]
    saved = sorted(soft.saved_tensors())
    loss.backward()
    return {"loss": loss._data.tobytes(), "grad": logits.grad._data.tobytes(),
            "nodes": (type(nll).__name__, type(soft).__name__, soft.next_functions[0][0].name()),
            "params": (nll.params, soft.params), "saved": saved}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_common_call_records_and_computes_what_the_spelled_out_call_does(dtype):
    for seed in range(25):
        rng = np.random.default_rng(seed)
        n, c = int(rng.integers(1, 200)), int(rng.integers(1, 30))
        x = (rng.standard_normal((n, c)) * rng.uniform(0.1, 20)).astype(dtype)
        y = rng.integers(0, c, n)
        common = _run(x, y)
        # values equal to the defaults but not the very default objects: the general path
        spelled = _run(x, y, ignore_index=int("-100"), reduction="".join("mean"),
                       label_smoothing=float("0"))
        assert common == spelled
        assert common["nodes"] == ("NllLossBackward0", "LogSoftmaxBackward0",
                                   "torch::autograd::AccumulateGrad")
        tx = torch.tensor(x, requires_grad=True)
        tloss = torch.nn.functional.cross_entropy(tx, torch.tensor(y))
        tloss.backward()
        assert np.allclose(np.frombuffer(common["loss"], dtype), tloss.detach().numpy(), rtol=1e-5)
        assert np.allclose(np.frombuffer(common["grad"], dtype).reshape(n, c), tx.grad.numpy(),
                           rtol=1e-4, atol=1e-7)


def test_out_of_range_target_keeps_torchs_error():
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(engine.randn(3, 5), engine.tensor([0, 5, 1]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds."):
        F.cross_entropy(engine.randn(3, 5), engine.tensor([0, -1, 1]))

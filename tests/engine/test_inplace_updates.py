"""In-place changes no graph op records are noted by the trace as updates, whichever way the tensor
is changed: an in-place op under no_grad, or a fill with random numbers."""

from __future__ import annotations

import numpy as np

from engine.runner import run_program

SOURCE = """torch.manual_seed(0)
w = torch.ones(3, requires_grad=True)
(w * 2).sum().backward()
with torch.no_grad():
    w.uniform_()
    w.normal_()
    w.random_(0, 5)
    w.bernoulli_(0.5)
    w.mul_(2)
z = w.sum()
"""


def test_a_fill_is_an_update_as_an_in_place_op_is():
    result = run_program(SOURCE)
    assert result.error is None
    updates = result.trace.updates
    assert [(u.name, u.op) for u in updates] == [
        ("w", "uniform_"), ("w", "normal_"), ("w", "random_"), ("w", "bernoulli_"), ("w", "mul")]
    assert np.array_equal(updates[0].before, np.ones(3, dtype=np.float32))
    for earlier, later in zip(updates, updates[1:]):
        assert np.array_equal(earlier.after, later.before)  # each starts where the last ended
    assert set(np.unique(updates[3].after)) <= {0.0, 1.0}  # bernoulli_'s draws
    assert np.array_equal(updates[-1].after, 2 * updates[-2].after)

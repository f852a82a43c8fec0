"""The diagnosis of a deep model: its work grows with the model's size, not with its square, and
what it says stays bounded (the first parameters diagnosed, the others counted; a long chain of ops
keeps its ends and the links where the gradient crossed its threshold, and says how many it left
out, in both languages). Work is counted in function calls, which do not depend on the machine."""

from __future__ import annotations

import sys

from app.worker.why import PARAMS, diagnose_all, engine_subjects
from app.worker.why.trim import AROUND, ENDS
from engine.runner import run_program

BLOCKS = """
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.ff1 = nn.Linear(d, 2 * d)
        self.ff2 = nn.Linear(2 * d, d)

    def forward(self, x):
        att = torch.softmax(self.q(x) @ self.k(x).transpose(0, 1) / 2.0, dim=-1)
        x = x + att @ self.v(x)
        x = (x - x.mean(dim=-1, keepdim=True)) / (x.var(dim=-1, keepdim=True) + 1e-5).sqrt()
        return x + self.ff2(F.relu(self.ff1(x)))


blocks = nn.Sequential(*[Block(4) for _ in range({n})])
x = torch.randn(6, 4)
loss = blocks(x).pow(2).mean()
loss.backward()
"""


def diagnosed(blocks: int) -> tuple[dict, int]:
    """The ``why`` of the program with ``blocks`` blocks, and the function calls it took."""
    result = run_program(BLOCKS.replace("{n}", str(blocks)))
    assert result.error is None, result.error
    subjects = engine_subjects(result.trace, result.variables)
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        why = diagnose_all(result.trace, subjects)
    finally:
        sys.setprofile(None)
    return why, calls


def test_a_deep_model_is_diagnosed_in_linear_work_and_bounded_words():
    small, small_calls = diagnosed(24)
    big, big_calls = diagnosed(48)
    # twice the blocks: about twice the work (it was 3.6 times, and growing with the size)
    assert big_calls < 2.6 * small_calls, (small_calls, big_calls)
    # the same number of parameters diagnosed, the others counted; what is said of each is bounded
    named = {"x", "loss"} & set(big["tensors"])
    assert len(big["tensors"]) == len(named) + PARAMS
    assert big["more"] > small.get("more", 0) > 0
    chains = [d for d in big["tensors"].values() if d["cause"] == "vanish"]
    assert chains, "a deep stack of layer norms makes the first blocks' gradients tiny"
    most = 2 * ENDS + 2 * AROUND + 1  # each end, and the links around the crossing
    for d in big["tensors"].values():
        links, layers = d["facts"].get("chain") or [], d["facts"].get("layers") or []
        assert len(d["path"]) <= most + 1 and len(links) <= most and len(layers) <= 2 * ENDS
        assert len(d["text"]["en"].splitlines()) == len(d["text"]["zh"].splitlines()) <= most + 4
        assert d["at"] is None or d["at"] in d["path"]
        if d["cause"] == "vanish":
            crossed = links[d["facts"]["crossed"]]
            assert crossed["after"] < d["facts"]["limit"]
            assert all(link["before"] >= d["facts"]["limit"] for link in links[:d["facts"]["crossed"]])
    gaps = [(link["gap"], d) for d in chains for link in d["facts"]["chain"] if link.get("gap")]
    assert gaps, "a chain through 48 blocks is longer than what is said of it"
    k, d = gaps[0]
    assert f"… {k} more ops …" in d["text"]["en"] and f"中间还有 {k} 个运算" in d["text"]["zh"]

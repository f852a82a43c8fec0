"""No drawn box is empty: in large runs (a long loop, a loop in a loop, a training loop over a
model, an RNN, a deep stack of layers) drawn at every level and with each box opened in turn, as a
user opens them (a loop, then a chunk of its iterations, then a part inside), every open frame
holds at least one drawn node or box, and every closed box stands for at least one node."""

from __future__ import annotations

import re

import pytest

from app.drawing.layout import draw_response
from app.worker.serialize import serialize_trace
from engine.runner import run_program

from .test_repeats import DEEP

PROGRAMS = {
    "long-loop": """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(1500):
    h = torch.tanh(h * w)
h.backward()
""",
    "loop-in-loop": """w = torch.tensor(0.9, requires_grad=True)
h = torch.tensor(0.5, requires_grad=True)
for i in range(40):
    for j in range(40):
        h = torch.tanh(h * w)
h.backward()
""",
    "training-loop": """torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(8, 2)
loss = 0
for step in range(200):
    loss = loss + model(x).pow(2).mean()
loss.backward()
""",
    "rnn": """torch.manual_seed(0)
W = torch.randn(4, 4, requires_grad=True)
U = torch.randn(4, 4, requires_grad=True)
xs = torch.randn(300, 4)
h = torch.zeros(4)
for t in range(300):
    h = torch.tanh(W @ h + U @ xs[t])
h.sum().backward()
""",
    "deep-mlp": DEEP,
}
OPENS_PER_RUN = 14  # boxes opened per program (the first, the last and a middle one at each depth)

_NODE = re.compile(r'<g id="([np]\d+)" class="node[^"]*"')
_UNIT = re.compile(r'<g class="graph unit" data-part="(p\d+)"')
_TAG = re.compile(r"<g[\s>]|</g>")


def _unit_bodies(svg: str) -> dict[str, str]:
    """Each open frame's drawing (its ``g.unit`` group, nested drawings included), by part id."""
    out = {}
    for m in _UNIT.finditer(svg):
        depth = 0
        for t in _TAG.finditer(svg, m.start()):
            depth += 1 if t.group(0) != "</g>" else -1
            if depth == 0:
                out[m.group(1)] = svg[m.start():t.end()]
                break
    return out


def _draw(trace, fold) -> dict:
    d = serialize_trace(trace, fold=fold)
    d.update(variables={}, stdout="", error=None, svg="")
    draw_response(d)
    return d


def _check(d: dict, what: str) -> list[str]:
    """The boxes the drawing shows closed (checked to hold something); fails on an empty frame."""
    parts = {p["id"]: p for p in d["parts"]}
    svg = d["views"][0]["svg"]
    assert svg, f"{what}: not drawn ({d['views'][0].get('undrawn')})"
    frames = _unit_bodies(svg)
    drawn = set(_NODE.findall(svg))
    for pid, body in frames.items():
        inner = set(_NODE.findall(body))
        assert inner, f"{what}: the open frame {pid} ({parts[pid]['label']}) draws nothing"
        assert any(i[0] == "n" for i in inner) or parts[pid]["kind"] in ("loop", "chunk", "segment"), \
            f"{what}: {pid} draws only boxes"
    boxes = [i for i in drawn if i[0] == "p" and i not in frames]
    for pid in boxes:
        p = parts[pid]
        assert p["ops"] > 0 and p["span"][1] >= p["span"][0], f"{what}: the box {pid} ({p['label']}) is empty"
        if p["kind"] == "chunk":
            assert p["iterations"] and p["label"].startswith("#"), p
    return sorted(boxes, key=lambda b: int(b[1:]))


def _around(parts: dict, pid: str) -> list[str]:
    out = []
    while pid is not None:
        out.append(pid)
        pid = parts[pid]["parent"]
    return out[::-1]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_drawn_box_holds_something_at_every_level_and_opening(name):
    result = run_program(PROGRAMS[name])
    assert result.error is None, result.error
    trace = result.trace
    todo = []
    for level in ("auto", "module", "op"):
        d = _draw(trace, level)
        boxes = _check(d, f"{name} at {level}")
        if level == "auto":
            parts = {p["id"]: p for p in d["parts"]}
            todo = [_around(parts, b) for b in _pick(boxes)]
    opened = 0
    while todo and opened < OPENS_PER_RUN:
        want = todo.pop(0)
        d = _draw(trace, want)
        opened += 1
        assert want[-1] in d["views"][0]["open"], (name, want)
        parts = {p["id"]: p for p in d["parts"]}
        inside = [b for b in _check(d, f"{name} with {want} open") if parts[b]["parent"] == want[-1]]
        todo = [want + [b] for b in _pick(inside)] + todo  # deeper first: a chunk, then what it holds
    assert opened >= 2 or name == "deep-mlp" and opened >= 1


def _pick(boxes: list[str]) -> list[str]:
    """The first, a middle and the last box (a loop's chunks differ at its ends)."""
    if len(boxes) <= 3:
        return boxes
    return [boxes[0], boxes[len(boxes) // 2], boxes[-1]]

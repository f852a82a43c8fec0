"""Named tensors show, at every step, the value and .grad each name holds at that point of the
program, as real PyTorch computes them: after an in-place update under no_grad (with a tensor hook,
retain_grad, several backward passes), and at every graph level (Auto, Modules, Ops)."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from .support import blur, config_id, expect_event, pass_steps, run_source, step_label

SCREENS = [(1280, 720, "en"), (1280, 720, "zh"), (390, 844, "en"), (390, 844, "zh")]
# The values a row shows depend neither on the screen nor on the language, and the words of an update
# only on the language: each program runs once, on a screen of its own, so that between them every
# screen is seen and each kind of update (-=, +=, mul_, zero_, an optimizer's step) is said in both
# languages (the program with the most kinds, retain_grad, runs in both).
PAIR_A = [SCREENS[0], SCREENS[3]]  # a laptop in English, a phone in Chinese
PLACES = {"hook": [SCREENS[0]], "loop": [SCREENS[3]], "retain_grad": [SCREENS[1], SCREENS[2]],
          "data": [SCREENS[2]], "optimizer": [SCREENS[3]], "optimizer-plain": [SCREENS[0]]}


# A tensor hook, then an update under no_grad, then a use of the updated tensor.
HOOKED = """import torch
a = torch.tensor(2.0, requires_grad=True)
h = a.register_hook(lambda g: g * 2)
b = a * a * 3
b.backward()
with torch.no_grad():
    a -= 0.1 * a.grad
d = a * 10
print(a, d)
"""

# Several backward passes, each followed by an update and a .grad reset in place.
LOOPED = """import torch
a = torch.tensor(2.0, requires_grad=True)
h = a.register_hook(lambda g: g * 2)
for i in range(3):
    b = a * a * 3
    b.backward()
    with torch.no_grad():
        a -= 0.1 * a.grad
    a.grad.zero_()
d = a * 10
print(a, d)
"""

# retain_grad, an update of a leaf that needs grad (under no_grad) and of one that needs none (not
# under no_grad), a name bound again to a tensor that keeps no .grad, the last update used by
# nothing afterwards.
RETAINED = """import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
x = torch.tensor([3.0, 0.5])
y = w * x
y.retain_grad()
loss = (y ** 2).sum()
loss.backward()
with torch.no_grad():
    w -= 0.05 * w.grad
x.mul_(2)
y = w * x
z = y.sum()
z.backward()
with torch.no_grad():
    w += 1
print(w, x, z)
"""

# Changes through another tensor on the same storage, as older tutorials write them.
THROUGH_DATA = """import torch
w = torch.tensor([2.0, -1.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
w.data -= 0.1 * w.grad
w.grad.data.zero_()
y = w * 3
print(w, y)
"""

# An optimizer's steps and zero_grad between passes (the same index of values as the updates).
OPTIMIZED = """import torch
lin = torch.nn.Linear(2, 1, bias=False)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -1.0]]))
opt = torch.optim.SGD(lin.parameters(), lr=0.05)
x = torch.tensor([2.0, 3.0])
for i in range(3):
    opt.zero_grad()
    loss = (lin(x).sum() - 1) ** 2
    loss.backward()
    opt.step()
print(lin.weight)
"""

# The same with a plain tensor given to the optimizer: its zero_grad sets that tensor's .grad to None.
OPTIMIZED_PLAIN = """import torch
w = torch.tensor([1.0, -1.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.05)
x = torch.tensor([2.0, 3.0])
for i in range(3):
    opt.zero_grad()
    loss = ((w * x).sum() - 1) ** 2
    loss.backward()
    opt.step()
print(w)
"""

MODULES = """import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.linspace(-1.0, 1.0, 16).reshape(4, 4))
    model[0].bias.copy_(torch.tensor([0.1, -0.2, 0.3, -0.4]))
    model[2].weight.copy_(torch.tensor([[0.5, -0.25, 0.75, -1.0]]))
    model[2].bias.fill_(0.2)
x = torch.tensor([[0.5, -1.0, 2.0, 0.25], [1.5, 0.5, -0.5, -2.0], [0.0, 1.0, 1.0, 1.0]])
y = torch.tensor([[1.0], [-1.0], [0.5]])
loss = ((model(x) - y) ** 2).mean()
loss.backward()
print(loss)
"""


# ---- what real PyTorch holds -----------------------------------------------------------------
def _snapshot(scope: dict, torch) -> dict:
    """Each named tensor's (value, .grad) as nested lists (a module's parameters by their names,
    with and without the module's)."""
    out = {}
    for name, v in scope.items():
        tensors = {}
        if isinstance(v, torch.Tensor):
            tensors = {name: v}
        elif isinstance(v, torch.nn.Module):  # (the page names them "0.weight" or "lin.weight")
            tensors = dict(v.named_parameters())
            tensors |= {f"{name}.{n}": p for n, p in tensors.items()}
        for n, t in tensors.items():
            grad = t.grad if (t.is_leaf or t.retains_grad) else None
            out[n] = (t.detach().tolist(), None if grad is None else grad.tolist())
    return out


def torch_history(source: str) -> dict:
    """name -> [(value, grad)] the program's names hold with real PyTorch, one entry per line it ran
    (consecutive repeats dropped)."""
    import torch

    code = compile(source, "<program>", "exec")
    snaps = []

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event in ("line", "return"):
            snaps.append(_snapshot(frame.f_locals, torch))
        return tracer

    sys.settrace(tracer)
    try:
        exec(code, {"__name__": "__main__"})  # the test's own program, with real PyTorch
    finally:
        sys.settrace(None)
    names = {n for s in snaps for n in s}
    return {n: _dedup([s[n] for s in snaps if n in s]) for n in names}


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)


def _dedup(seq):
    out = []
    for item in seq:
        if not out or not all(_same(x, y) for x, y in zip(out[-1], item)):
            out.append(item)
    return out


# ---- what the page shows -----------------------------------------------------------------------
_ROWS = """() => Object.fromEntries([...document.querySelectorAll('tr[data-testid^="var-"]')].map((tr) => [
  tr.dataset.testid.slice(4),
  [JSON.parse(tr.querySelector('.v-value').dataset.value ?? 'null'),
   JSON.parse(tr.querySelector('.v-grad').dataset.grad ?? 'null'),
   tr.querySelector('.v-value').textContent]]))"""


# What a step shows, read at once: the "i / n" label, the rows and the explanation's text.
_SHOWN = f"""() => ({{
  label: document.querySelector('[data-testid=step-label]').innerText,
  rows: ({_ROWS})(),
  explain: document.querySelector('#explain').innerText,
}})"""


def walk(page) -> list[dict]:
    """Every step from the first, with the keys: each row's (value, grad, value text) and the
    explanation's text."""
    blur(page)
    page.keyboard.press("Home")
    n = step_label(page)[1]
    out = []
    for k in range(1, n + 1):
        if k > 1:
            page.keyboard.press("ArrowRight")
        shown = page.evaluate(_SHOWN)
        assert [int(x) for x in shown["label"].split("/")] == [k, n]
        out.append({"rows": shown["rows"], "explain": shown["explain"]})
    return out


def shown_history(frames: list[dict], name: str) -> list:
    """The (value, grad) sequence a row showed over the steps, from its first value on, consecutive
    repeats dropped."""
    seq = [f["rows"][name][:2] for f in frames if name in f["rows"] and f["rows"][name][0] is not None]
    return _dedup(seq)


def assert_same_history(got, want, name, made_before=False):
    """``made_before``: the tensor existed (a module's parameter, set up under no_grad) before the
    first step the page shows, so PyTorch's history may begin earlier."""
    if made_before and got:
        want = want[-len(got):]
    same = all(_same(g[0], w[0]) and _same(g[1], w[1]) for g, w in zip(got, want))
    assert got and len(got) == len(want) and same, f"{name}: the page showed {got}, PyTorch held {want}"


def at_level(page, level: str) -> None:
    """Click a graph level (Auto, Modules, Ops) and wait for the drawing."""
    button = page.get_by_test_id(f"fold-{level}")
    if button.get_attribute("aria-pressed") == "true":
        return
    with expect_event(page, "relayout"):
        button.click()


# ---- tests -----------------------------------------------------------------------------------------
PROGRAMS = {"hook": HOOKED, "loop": LOOPED, "retain_grad": RETAINED, "data": THROUGH_DATA,
            "optimizer": OPTIMIZED, "optimizer-plain": OPTIMIZED_PLAIN}
CASES = [(label, screen) for label in PROGRAMS for screen in PLACES[label]]


@pytest.mark.parametrize(("label", "shown"), CASES, indirect=["shown"],
                         ids=[f"{config_id(c)}-{label}" for label, c in CASES])
def test_each_name_shows_what_it_holds_at_every_step(shown, label):
    source = PROGRAMS[label]
    # (the reported program, HOOKED, is also checked for what a shows beside d: a_beside_d)
    page = shown.page
    run_source(page, source)
    frames = walk(page)
    want = torch_history(source)
    for name in ("a", "b", "d", "w", "x", "y", "loss", "z", "lin.weight"):
        if name in want:
            assert_same_history(shown_history(frames, name), want[name], name, "." in name)
    # Each update is a step of its own, said in the page's language, and the row changes there.
    said = ("changes in place", "被原地修改")
    updates = [k for k, f in enumerate(frames) if any(w in f["explain"] for w in said)]
    expected = source.count(" -= ") + source.count(" += ") + source.count(".mul_(") + source.count(".zero_()")
    expected *= 3 if "range(3)" in source else 1
    assert len(updates) == expected, [f["explain"][:60] for f in frames]
    for k in updates:
        assert frames[k]["rows"] != frames[k - 1]["rows"], f"step {k + 1} changes nothing in Named tensors"
        assert ("in place" in frames[k]["explain"]) == (shown.lang == "en")
    if source == HOOKED:
        a_beside_d(page, frames)


def a_beside_d(page, frames) -> None:
    """The tester's program: wherever d exists, a shows the value d was made from (d = a * 10), and at
    the end both are PyTorch's, the row's text too."""
    with_d = [f["rows"] for f in frames if f["rows"]["d"][0] is not None]
    assert with_d
    for rows in with_d:
        assert _same(rows["d"][0], np.float32(rows["a"][0]) * np.float32(10)), rows
    final = {n: h[-1] for n, h in torch_history(HOOKED).items()}
    last = frames[-1]["rows"]
    assert _same(last["d"][0], final["d"][0]) and _same(last["a"][0], final["a"][0]), (last, final)
    assert _same(last["a"][1], final["a"][1])
    text = page.get_by_test_id("var-a").locator(".v-value").inner_text()
    assert float(text.replace("−", "-")) == pytest.approx(final["a"][0], rel=1e-5)


@pytest.mark.screens(PAIR_A)
def test_a_graph_level_changes_the_drawing_never_the_values(shown):
    page = shown.page
    run_source(page, MODULES)
    at_level(page, "auto")
    want = torch_history(MODULES)
    seen = {}
    for level in ("auto", "module", "op", "auto"):
        at_level(page, level)
        frames = walk(page)
        first, last = pass_steps(page, 1)
        written = frames[last]["explain"]  # the frame after the pass's last step: the pass is over
        assert written.count(".grad = ") == 4, written
        for name in ("0.weight", "0.bias", "2.weight", "2.bias", "loss", "x", "y"):
            assert_same_history(shown_history(frames, name), want[name], f"{name} at {level}", "." in name)
        seen[level] = (json.dumps([f["rows"] for f in frames]), written)
    assert seen["module"] == seen["auto"] and seen["op"] == seen["auto"]

"""The graphs of the course corpus, compared with PyTorch's: every backward pass a program calls
(``backward()``, ``torch.autograd.backward``, ``torch.autograd.grad``) is caught as it starts, and the
graph below its roots is read through ``grad_fn.next_functions`` alone: each node's class name and,
per input, the node it leads to and the output number it reads. A pass matches when the engine's
graph is torch's exactly. A pass run after one with ``create_graph=True`` differentiates a graph that
a backward pass recorded: it counts as second order.

``python tests/corpus/corpus_graphs.py`` prints the counts and the programs whose graphs differ."""

from __future__ import annotations

import builtins
import contextlib
import io
import sys
import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from corpus_harness import Outcome, _engine_import, _reset, _run, programs  # noqa: E402


def structure(roots) -> tuple:
    """The graph below ``roots`` (grad_fns): each node once, in the order first reached, as (class
    name, ((index of the next node or None, output number), ...))."""
    index: dict = {}
    order: list = []
    stack = [fn for fn in reversed(roots) if fn is not None]
    while stack:
        fn = stack.pop()
        if fn in index:
            continue
        index[fn] = len(order)
        order.append(fn)
        stack.extend(f for f, _ in reversed(fn.next_functions) if f is not None and f not in index)
    return tuple((type(fn).__name__, tuple((None if f is None else index[f], nr)
                                           for f, nr in fn.next_functions)) for fn in order)


@dataclass
class Passes:
    """The graphs of one program's backward passes, and whether each is second order (the passes
    a library function runs for the program, ``jacobian``, ``gradcheck``, ``torch.func``, are its own)."""

    path: str
    graphs: list = field(default_factory=list)
    second: list = field(default_factory=list)
    made_graph: bool = False

    def catch(self, tensors, create_graph) -> None:
        caller = sys._getframe(2)
        while caller is not None and caller.f_code.co_filename.endswith(_TENSOR_BACKWARD):
            caller = caller.f_back  # Tensor.backward calls autograd.backward for the program
        if caller is None or caller.f_code.co_filename != self.path:
            return
        ts = [tensors] if not isinstance(tensors, (list, tuple)) else list(tensors)
        self.graphs.append(structure([getattr(t, "grad_fn", None) for t in ts]))
        self.second.append(self.made_graph)
        self.made_graph = self.made_graph or bool(create_graph)


_TENSOR_BACKWARD = ("torch/_tensor.py", "engine/tensor.py")


@contextlib.contextmanager
def watching(autograd, passes: Passes):
    """Within the block, ``autograd.backward`` and ``autograd.grad`` note each call's graph first."""
    backward, grad = autograd.backward, autograd.grad

    def watched_backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *a, **k):
        passes.catch(tensors, create_graph)
        return backward(tensors, grad_tensors, retain_graph, create_graph, *a, **k)

    def watched_grad(outputs, inputs, *a, **k):
        passes.catch(outputs, k.get("create_graph", a[2] if len(a) > 2 else False))
        return grad(outputs, inputs, *a, **k)

    autograd.backward, autograd.grad = watched_backward, watched_grad
    try:
        yield passes
    finally:
        autograd.backward, autograd.grad = backward, grad


def graphs_of(path: Path, torch, importer) -> Passes:
    """Run the program at ``path`` with ``torch`` (the real one or the engine) and catch its passes."""
    passes = Passes(str(path))
    scope = {"__name__": "__main__", "__builtins__": dict(vars(builtins), __import__=importer)}
    _reset(torch)
    torch.manual_seed(0)
    try:
        with watching(torch.autograd, passes), warnings.catch_warnings(), \
                contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(path.read_text(), str(path), "exec"), scope)  # noqa: S102 - the test's own programs
    except Exception:  # noqa: BLE001, S110 - a program may end with an error on purpose
        pass
    finally:
        _reset(torch)
    return passes


@cache
def torch_side(path: Path) -> tuple[Outcome, Passes]:
    """What real PyTorch prints for the program and the graphs of its backward passes, from one run
    kept for the session: the oracle of every test of the corpus (the watch reads the graphs only)."""
    import torch

    passes = Passes(str(path))
    with watching(torch.autograd, passes):
        outcome = _run(path.read_text(), path, builtins.__import__, torch)
    return outcome, passes


def compare() -> dict:
    """Per order: passes compared and passes matching torch exactly; and the programs that differ."""
    import torch

    import engine

    counts = {1: [0, 0], 2: [0, 0]}
    differ = []
    for path in programs():
        theirs = graphs_of(path, torch, builtins.__import__)
        ours = graphs_of(path, engine, _engine_import)
        for i, graph in enumerate(theirs.graphs):
            order = 2 if theirs.second[i] else 1
            counts[order][0] += 1
            same = i < len(ours.graphs) and ours.graphs[i] == graph
            counts[order][1] += same
            if not same:
                differ.append(f"{path.stem} pass {i + 1}")
    return {"first": counts[1], "second": counts[2], "differ": differ}


if __name__ == "__main__":
    result = compare()
    for order in ("first", "second"):
        compared, matching = result[order]
        print(f"{order} order: {matching} of {compared} passes have torch's graph exactly (next_functions)")
    for line in result["differ"]:
        print("differs:", line)

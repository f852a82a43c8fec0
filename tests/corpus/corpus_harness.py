"""Running a course program three ways and reading what it printed and how it ended.

- ``reference(path)``: with real PyTorch (the oracle);
- ``direct(path)``: the same text with the engine standing in for ``torch`` (every ``import torch...``
  resolves to the engine's module of the same name);
- through ``POST /api/run`` (tests/corpus/test_corpus.py), where the program runner interprets it.

Each gives an ``Outcome``: stdout (with each distinct UserWarning added once, as
``UserWarning: <message>`` lines where it was raised, which is how the runner shows them) and the
final exception as ``(type name, message)``. Object addresses are masked, since the runner shows
per-run aliases in their place.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
_ADDRESS = re.compile(r"0x[0-9a-f]{4,16}")


@dataclass(frozen=True)
class Outcome:
    stdout: str
    error: tuple[str, str] | None

    def masked(self) -> Outcome:
        error = None if self.error is None else (self.error[0], mask(self.error[1]))
        return Outcome(mask(self.stdout), error)


def mask(text: str) -> str:
    """``text`` with every object address replaced by the same placeholder."""
    return _ADDRESS.sub("0xADDR", text)


def programs() -> list[Path]:
    return sorted(PROGRAMS.glob("*.py"))


def _engine_import(name, globals=None, locals=None, fromlist=(), level=0):
    """``__import__`` for a program run with the engine as torch: ``torch`` and its submodules are
    the engine's modules of the same names (reached as attributes, as the runner reaches them)."""
    if level == 0 and (name == "torch" or name.startswith("torch.")):
        engine = importlib.import_module("engine")
        if not fromlist:
            return engine
        mod = engine
        for part in name.split(".")[1:]:
            mod = getattr(mod, part)
        return mod
    return builtins.__import__(name, globals, locals, fromlist, level)


def _reset(torch) -> None:
    """The global state a program may change (grad mode, default dtype, print options)."""
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default")


def _run(source: str, path: Path, importer, torch) -> Outcome:
    out = io.StringIO()
    shown: set[str] = set()

    def showwarning(message, category, *args, **kwargs):
        text = f"{category.__name__}: {message}"
        if issubclass(category, UserWarning) and text not in shown:
            shown.add(text)
            out.write(text + "\n")

    env_builtins = dict(vars(builtins), __import__=importer)
    scope = {"__name__": "__main__", "__builtins__": env_builtins}
    error = None
    _reset(torch)
    torch.manual_seed(0)
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        warnings.showwarning = showwarning
        try:
            exec(compile(source, str(path), "exec"), scope)  # noqa: S102 - the test's own programs
        except Exception as e:  # the program's final exception is part of its outcome
            error = (type(e).__name__, str(e))
    _reset(torch)
    return Outcome(out.getvalue(), error).masked()


def reference(path: Path) -> Outcome:
    """What real PyTorch prints for the program (run once per session, with its graphs read:
    corpus_graphs.torch_side)."""
    from corpus_graphs import torch_side

    return torch_side(path)[0]


def direct(path: Path) -> Outcome:
    """What the program prints with the engine as torch."""
    import engine

    return _run(path.read_text(), path, _engine_import, engine)


def from_answer(answer: dict) -> Outcome:
    """The outcome an ``/api/run`` answer (200 or 4xx) reports."""
    err = answer.get("error")
    error = None if err is None else (err["type"], err["message"])
    return Outcome(answer.get("stdout", ""), error).masked()

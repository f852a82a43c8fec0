"""Everything a run can change that outlives it in this process, in one table.

A server worker may be kept for its client's next runs, so a program must never see what an
earlier one left behind: a dual level left open, grad mode switched off, another default dtype,
print options, the random generators, hooks of tensors, a transform or module call left half
done, the numbering of hook handles and of addresses. ``reset`` puts every entry of ``STATE`` to
what a process that never ran a program has, at the start of every run. Afterwards ``restore``
gives code that uses the engine around runs, in the same process, its own settings back (grad
mode, default dtype, print options, generator, limits); the other entries stay as the run left
them, since what is done with its results belongs to it (its hooks, its numbering of addresses).

Not entries, because no program can observe them: caches that are pure functions of their keys
(the op table's save plans, node classes by name, wrapped number constants, whose arrays are
read-only), and the sequence numbers of graph nodes (the backward walk uses only their order).
Objects a program can reach and that every run shares (``torch.float32``, the CPU device, a
``torch.Size``) are immutable instead: see ``engine.dtypes`` and ``engine.device``.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Callable
from dataclasses import astuple, dataclass

import numpy as np

from .. import addresses, dtypes, func, generator, grad_mode, hooks, limits, printing_options, tangents
from ..autograd import function as program_functions
from ..nn import tracing
from ..utils import hooks as handles
from . import libraries, library_random
from .results import Settings

# Python frames: enough for max_nesting x max_recursion of our walker, low enough that C-level
# recursion (comparing deeply nested lists) stops before the C stack ends.
RECURSION_LIMIT = 10_000
_PRINT_FIELDS = tuple(printing_options.PrinterOptions.__dataclass_fields__)
_DEFAULT_PRINT = astuple(printing_options.PrinterOptions())


@dataclass(frozen=True)
class Entry:
    """One piece of process-wide state: how to read it, set it, its value in a fresh process (which
    may depend on the run's settings), and whether the caller's value comes back after the run."""

    name: str
    get: Callable[[], object]
    put: Callable[[object], None]
    fresh: Callable[[Settings], object]
    restored: bool = False
    where: str = ""  # the module global it is ("engine.grad_mode._enabled"), if it is one


def _put_print(values: tuple) -> None:
    opts = printing_options.PRINT_OPTS
    for field, value in zip(_PRINT_FIELDS, values):
        setattr(opts, field, value)


def _generator(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)  # None: from fresh entropy, nothing carried from a run before


def _setter(module, name: str) -> Callable[[object], None]:
    return lambda value: setattr(module, name, value)


def _module_global(name: str, module, attr: str, fresh: Callable[[Settings], object],
                   restored: bool = False) -> Entry:
    return Entry(name, lambda: getattr(module, attr), _setter(module, attr), fresh, restored,
                 f"{module.__name__}.{attr}")


STATE: tuple[Entry, ...] = (
    _module_global("grad mode", grad_mode, "_enabled", lambda s: True, True),
    _module_global("inference mode", grad_mode, "_inference", lambda s: False, True),
    _module_global("default dtype", dtypes, "_default_float", lambda s: dtypes.float32, True),
    Entry("print options", lambda: astuple(printing_options.PRINT_OPTS), _put_print, lambda s: _DEFAULT_PRINT,
          True, f"{printing_options.__name__}.PRINT_OPTS"),
    Entry("random generator", generator.default_generator._state_bytes,  # PyTorch's state bytes
          generator.default_generator._load_bytes, lambda s: generator.seeded_state(s.seed), True,
          f"{generator.__name__}.default_generator"),
    _module_global("numpy.random generator", libraries, "_RANDOM_STATE", lambda s: [_generator(0)]),
    _module_global("python random generator", library_random, "_STATE", lambda s: [random.Random(0)]),
    _module_global("dual level", tangents, "ACTIVE", lambda s: None),
    _module_global("leaf hooks", hooks, "_LEAF", lambda s: {}),
    _module_global("post-accumulate hooks", hooks, "_POST", lambda s: {}),
    _module_global("hook handle ids", handles, "_ids", lambda s: itertools.count()),
    _module_global("transforms running", func, "_DEPTH", lambda s: [0]),
    _module_global("vmap calls refusing random draws", generator, "REFUSING", lambda s: [0]),
    _module_global("module calls running", tracing, "_ROOT_PATHS", lambda s: []),
    _module_global("program Function ops", program_functions, "_OPS", lambda s: {}),
    _module_global("address aliases", addresses, "_aliases", lambda s: {}),
    _module_global("tensor budget", limits, "ACTIVE", lambda s: limits.Budget(
        max_elements=s.max_tensor_elements, max_bytes=s.max_tensor_bytes, max_int_bits=s.max_int_bits), True),
    Entry("recursion limit", sys.getrecursionlimit, sys.setrecursionlimit,
          lambda s: max(sys.getrecursionlimit(), RECURSION_LIMIT), True),
)


_RESTORED = tuple(e for e in STATE if e.restored)


def capture() -> list:
    """The caller's values of the entries ``restore`` puts back."""
    return [e.get() for e in _RESTORED]


def reset(settings: Settings) -> None:
    """Put every entry of ``STATE`` to its value in a process that never ran a program (the seed
    and limits from ``settings``): the one place a run starts from."""
    for e in STATE:
        e.put(e.fresh(settings))


def restore(saved: list) -> None:
    """Put back the values ``capture`` read."""
    for e, value in zip(_RESTORED, saved):
        e.put(value)


__all__ = ["Entry", "RECURSION_LIMIT", "STATE", "capture", "reset", "restore"]

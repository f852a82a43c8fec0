"""``run_program``: check, then interpret a user program inside a trace recording and the limits.

Every run starts from the engine state of a process that never ran a program
(``engine_state.reset``: grad mode, default dtype, print options, random generators, dual level,
hooks, limits, ...), so one run cannot leak into the next one served by the same worker.
"""

from __future__ import annotations

import ast
import re
import threading
import warnings

from .. import addresses, dtypes
from .. import trace as trace_mod
from ..errors import LimitError
from ..factory import tensor
from ..gcpause import gc_paused
from ..tensor import Tensor
from . import engine_state
from .checker import check
from .guards import Guard
from .interpreter import Interpreter
from .policy import Policy
from .positions import tagged_node
from .results import ProgramError, RunResult, Settings, UserError

_RUN_LOCK = threading.Lock()


def answer_size(text: str) -> int:
    """How many characters ``text`` takes in the answer, whose JSON is ASCII: a character outside
    ASCII is written as a \\uXXXX escape (two for one beyond the BMP)."""
    if text.isascii():
        return len(text)
    plain = len(text.encode("ascii", "ignore"))
    units = len(text.encode("utf-16-le")) // 2  # a character beyond the BMP is two UTF-16 units
    return plain + 6 * (units - plain)


class Output:
    """The program's stdout, cut once it would take more than ``max_output_chars`` characters of
    the answer (``answer_size``); warnings are added once each. Once cut, writing costs nothing."""

    def __init__(self, limit: int):
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit
        self.cut = False
        self.warned: set[str] = set()

    def write(self, text: str) -> None:
        if self.cut:
            return
        room = self.limit - self.size
        size = len(text) if len(text) > room else answer_size(text)  # too long either way: no count
        if size > room:
            self.parts.append(_prefix(text, room))
            self.parts.append(f"\n[output cut: the program printed more than {self.limit:,} characters; "
                              "the rest is not shown (limit: max_output_chars)]\n")
            self.cut = True
            self.size = self.limit
            return
        self.parts.append(text)
        self.size += size

    def warning(self, message, category, *args, **kwargs) -> None:
        """``warnings.showwarning`` for the run: UserWarnings become stdout lines."""
        text = f"{category.__name__}: {message}"
        if issubclass(category, UserWarning) and text not in self.warned:
            self.warned.add(text)
            self.write(text + "\n")

    def text(self) -> str:
        return "".join(self.parts)


def _prefix(text: str, room: int) -> str:
    """The longest start of ``text`` found that takes at most ``room`` characters of the answer."""
    k = min(len(text), room)
    size = answer_size(text[:k])
    while size > room:  # shrink in proportion: a few passes even for text far outside ASCII
        k = k * room // size
        size = answer_size(text[:k])
    return text[:k]


# Our builtins are methods of a class: show their names as Python's would read.
_INTERNAL_NAMES = [(re.compile(r"Builtins\._(str|list|dict)_(\w+)\(\)"), r"\1.\2()"),
                   (re.compile(r"Builtins\.(\w+)\(\)"), r"\1()")]


def _clean(message: str) -> str:
    for pattern, repl in _INTERNAL_NAMES:
        message = pattern.sub(repl, message)
    return message


def _error_from(exc: BaseException, interp: Interpreter) -> UserError:
    node = tagged_node(exc)
    line, col = interp.positions.of(node) if node is not None else (None, None)
    kind = type(exc).__name__
    if isinstance(exc, LimitError):
        kind = "LimitError"
    elif isinstance(exc, RecursionError):
        kind = "LimitError"
        return UserError(kind, "the program nests calls or expressions too deeply (limit: max_recursion)",
                         line, col)
    elif isinstance(exc, MemoryError):
        return UserError("LimitError", "the program ran out of memory (limit: max_tensor_bytes)", line, col)
    message = _clean(str(exc))
    if isinstance(exc, KeyError) and exc.args:
        message = repr(exc.args[0])
    return UserError(kind, addresses.scrub(message), line, col)


class _EngineState:
    """The engine's process-wide state around one run: every entry reset to a fresh process's value
    before it (``engine_state.reset``), the caller's settings back after it."""

    def __init__(self, settings: Settings):
        self.s = settings

    def __enter__(self):
        self.saved = engine_state.capture()
        engine_state.reset(self.s)
        return self

    def __exit__(self, *exc):
        engine_state.restore(self.saved)
        return False


def _bind_variables(interp: Interpreter, variables: dict, names) -> None:

    for name in names:
        spec = variables[name]
        if not isinstance(spec, dict) or "value" not in spec:
            raise ProgramError(UserError("ValueError", f"variable '{name}' needs a value"))
        rg = bool(spec.get("requires_grad", True))
        try:
            interp.guard.check_nested(spec["value"])
            t = tensor(spec["value"], dtype=dtypes.get_default_dtype(), requires_grad=rg)
        except (TypeError, ValueError, RuntimeError) as e:
            raise ProgramError(UserError(type(e).__name__, f"variable '{name}': {e}")) from None
        interp.bind(name, t, interp.globals)


def _prelude(policy: Policy) -> dict:
    torch = policy.module_for("torch")
    out = {"torch": torch, "__name__": "__main__"}
    for short, path in (("nn", "torch.nn"), ("F", "torch.nn.functional"), ("optim", "torch.optim")):
        mod = policy.module_for(path)
        if mod is not None:
            out[short] = mod
    return out


def run_program(source: str, variables: dict | None = None, settings: Settings | None = None) -> RunResult:
    """Run ``source`` (an expression with free names, or a program) safely in this process.

    Raises ``ProgramError`` when the program cannot run at all; every other failure is returned
    in ``RunResult.error`` with everything that ran before it. Runs in one process are serialized
    (the engine's grad mode, limits and recorder are process-wide); the server runs each in a
    worker process of its own (``app.sandbox``), with a hard deadline.
    """
    with _RUN_LOCK:
        return _run(source, variables, settings)


def _run(source: str, variables: dict | None, settings: Settings | None) -> RunResult:
    settings = settings or Settings()
    variables = dict(variables or {})
    for name in variables:
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
            raise ProgramError(UserError("ValueError", f"'{name}' is not a valid variable name"))
    policy = Policy(set(), None)
    prog = check(source, variables, settings, policy)
    out = Output(settings.max_output_chars)
    guard = Guard(settings)
    error = None
    result = None
    auto = False
    # The trace keeps every recorded op alive: see gcpause for why the cyclic GC waits.
    with _EngineState(settings), gc_paused(), trace_mod.recording(max_ops=settings.max_ops) as rec, \
            warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = out.warning
        interp = Interpreter(guard, policy, prog.positions, rec, _prelude(policy), out)
        interp.prelude.update(prog.torch_functions)
        if prog.mode == "expression":
            missing = [n for n in prog.free_names if n not in variables]
            if missing:
                names = ", ".join(f"'{n}'" for n in missing)
                node = _first_load(prog, missing[0])
                line, col = prog.positions.of(node)
                them = "it" if len(missing) == 1 else "them"
                error = UserError("NameError", f"no value for {names}: give {them} "
                                  "a value in the variables table", line, col)
        bind = list(prog.free_names) if prog.mode == "expression" else list(variables)
        if error is None:
            _bind_variables(interp, variables, [n for n in bind if n in variables])
            try:
                if prog.mode == "expression":
                    result = interp.eval(prog.tree.body[0].value, interp.globals)
                    auto = _auto_backward(result, rec, interp, prog)
                else:
                    interp.run(prog.tree)
            except Exception as exc:  # every failure of the program is reported
                error = _error_from(exc, interp)
        trace = rec.trace
    tensors = {k: v for k, v in interp.globals.vars.items() if isinstance(v, Tensor)}
    return RunResult(trace=trace, stdout=out.text(), variables=tensors, error=error, mode=prog.mode,
                     free_names=list(prog.free_names), auto_backward=auto,
                     result=result if isinstance(result, Tensor) else None, stdout_truncated=out.cut)


def _first_load(prog, name: str):
    nodes = [n for n in ast.walk(prog.tree) if isinstance(n, ast.Name) and n.id == name]
    return min(nodes, key=lambda n: (n.lineno, n.col_offset)) if nodes else None


def _auto_backward(result, rec, interp: Interpreter, prog) -> bool:
    """Expression mode: backward from a scalar result that requires grad, when nothing else did."""
    if not isinstance(result, Tensor) or not result.requires_grad:
        return False
    if result.numel() != 1 or rec.trace.passes:
        return False
    interp.at(prog.tree.body[0].value)
    result.backward()
    return True


__all__ = ["run_program", "Output", "answer_size"]

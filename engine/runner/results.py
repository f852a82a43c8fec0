"""What the program runner takes and gives back: its settings, its errors and its result."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..tensor import Tensor
from ..trace import Trace


@dataclass
class Settings:
    """Every limit of one run: large enough for the teaching programs and hundreds of training
    steps of a small MLP, small enough that one run cannot hold a worker for long. Each exceedance
    is a ``LimitError`` whose message names the field (e.g. "limit: max_loop_iterations")."""

    max_source_chars: int = 20_000
    max_nesting: int = 100
    max_ast_nodes: int = 20_000
    max_loop_iterations: int = 100_000
    max_ops: int = 20_000
    max_recursion: int = 50
    max_tensor_elements: int = 1_000_000
    max_tensor_bytes: int = 64 * 2**20
    max_int_bits: int = 10_000
    max_str_chars: int = 100_000
    max_list_items: int = 100_000
    timeout_s: float = 5.0
    max_output_chars: int = 1_000_000  # stdout past this many characters of the answer is cut (not an error)
    seed: int | None = 0  # the engine's random generator's seed at the start of a run (None: fresh entropy)


@dataclass
class UserError:
    """An error as the user sees it: 1-based line and column of the code that caused it."""

    type: str
    message: str
    line: int | None = None
    col: int | None = None


class ProgramError(Exception):
    """The program cannot run at all: a syntax error, a forbidden construct, a name never bound
    anywhere, or a source/AST/nesting limit. Maps to an HTTP 4xx."""

    def __init__(self, error: UserError):
        super().__init__(f"{error.type}: {error.message}")
        self.error = error


@dataclass
class RunResult:
    """Everything one run produced, also when it failed part way (``error`` is then set)."""

    trace: Trace
    stdout: str
    variables: dict[str, Tensor]
    error: UserError | None
    mode: str  # "expression" | "program"
    free_names: list[str] = field(default_factory=list)
    auto_backward: bool = False
    result: Tensor | None = None
    stdout_truncated: bool = False  # stdout was cut at max_output_chars

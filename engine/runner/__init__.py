"""The program runner: runs what users type (an expression with free names, or a PyTorch-style
program) by walking its AST with our own interpreter, inside the engine's trace recording and
resource limits. User code is never passed to ``eval``, ``exec`` or ``compile``.

``run_program`` runs in the calling process; ``WorkerPool`` runs a function in worker processes
that are killed at a deadline (for the HTTP server).
"""

from .errors import ForbiddenError
from .results import ProgramError, RunResult, Settings, UserError
from .run import run_program
from .sandbox import RunTimeout, WorkerCrashed, WorkerPool

__all__ = ["ForbiddenError", "ProgramError", "RunResult", "RunTimeout", "Settings", "UserError",
           "WorkerCrashed", "WorkerPool", "run_program"]

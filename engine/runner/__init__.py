"""The program runner: runs what users type (an expression with free names, or a PyTorch-style
program) by walking its AST with our own interpreter, inside the engine's trace recording and
resource limits. User code is never passed to ``eval``, ``exec`` or ``compile``.

``run_program`` runs in the calling process; the HTTP server runs it in a fresh sandboxed worker
process per request (``app.sandbox``).
"""

from .errors import ForbiddenError
from .results import ProgramError, RunResult, Settings, UserError
from .run import run_program

__all__ = ["ForbiddenError", "ProgramError", "RunResult", "Settings", "UserError", "run_program"]

"""The one error gradviz's Python API raises for bad input: a message meant for the reader, shown
without a traceback (by the command line, and in IPython through ``_render_traceback_``)."""

from __future__ import annotations


class GradvizError(Exception):
    """Bad input or a missing system program: the message says what and what to do."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    def __str__(self) -> str:
        where = f" (line {self.line}, column {self.col})" if self.line is not None and self.col is not None \
            else f" (line {self.line})" if self.line is not None else ""
        return f"{self.message}{where}"

    def _render_traceback_(self) -> list[str]:
        """IPython shows this instead of a traceback."""
        return [f"gradviz: {self}"]


def program_error(error: dict, file: str | None = None) -> GradvizError:
    """A runner ``ErrorInfo`` (type, message, line, col) as a GradvizError."""
    where = f"{file}: " if file else ""
    return GradvizError(f"{where}{error.get('type', 'Error')}: {error.get('message', '')}",
                        error.get("line"), error.get("col"))

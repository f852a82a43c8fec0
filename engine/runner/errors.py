"""The runner's own runtime error (limits use the engine's ``LimitError``), and what the program
sees of exceptions."""

from ..addresses import scrub


class ForbiddenError(Exception):
    """User code reached for something the sandbox does not allow."""


def scrub_args(exc: BaseException) -> None:
    """Python's own messages quote reprs (``list.index``: "<function f at 0x7f...> is not in
    list"): before the program sees an exception, its string arguments get aliases for addresses."""

    args = exc.args
    if any(type(a) is str and " at 0x" in a for a in args):
        exc.args = tuple(scrub(a) if type(a) is str else a for a in args)

"""The runner's own runtime error (limits use the engine's ``LimitError``)."""


class ForbiddenError(Exception):
    """User code reached for something the sandbox does not allow."""

"""Global grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (context managers and decorators)."""

from __future__ import annotations

import functools

_enabled = True


def is_grad_enabled() -> bool:
    return _enabled


class _GradMode:
    _value = True

    def __enter__(self):
        global _enabled
        self._prev = _enabled
        _enabled = self._value
        return None

    def __exit__(self, *exc):
        global _enabled
        _enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):  # noqa: N801
    """Disable gradient recording inside the block."""

    _value = False


class enable_grad(_GradMode):  # noqa: N801
    """Enable gradient recording inside the block."""

    _value = True


class set_grad_enabled(_GradMode):  # noqa: N801
    """Set grad mode to ``mode``; works as a function call and as a context manager."""

    def __init__(self, mode: bool):
        global _enabled
        self._value = bool(mode)
        self._prev = _enabled
        _enabled = self._value  # takes effect immediately, as torch's does

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        global _enabled
        _enabled = self._prev
        return False


class inference_mode(no_grad):  # noqa: N801
    """Treated as ``no_grad``."""

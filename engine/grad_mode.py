"""Global grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (context managers and decorators)."""

from __future__ import annotations

import types

from .addresses import alias

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
        """As a decorator: ``fn`` run inside a fresh instance of this grad mode."""
        return GradModeCall(type(self), fn)


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
        if type(mode) is not bool:
            from .arguments import flag

            mode = flag(mode, "set_grad_enabled", "enabled", 1)
        self._value = mode
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


class GradModeCall:
    """A callable decorated with a grad mode (``torch.no_grad()(f)``): calls ``f`` inside a fresh
    instance of the mode. Data (the mode and the callable), not a closure copying ``f``'s
    attributes; a method when it sits in a class, as a decorated function would be."""

    __slots__ = ("mode", "fn")

    def __init__(self, mode: type, fn):
        if not callable(fn):
            raise TypeError(f"'{type(fn).__name__}' object is not callable")
        self.mode = mode
        self.fn = fn

    def __call__(self, *args, **kwargs):
        with self.mode():
            return self.fn(*args, **kwargs)

    def __get__(self, obj, cls=None):
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:

        name = getattr(self.fn, "__qualname__", None)  # functools.wraps would show the function's name
        if type(name) is not str:
            name = "context_decorator.<locals>.decorate_context"
        return f"<function {name} at {alias(self)}>"

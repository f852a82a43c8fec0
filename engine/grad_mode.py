"""Global grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` (context managers and decorators)."""

from __future__ import annotations

import types

from .addresses import alias

_enabled = True
_inference = False  # inside torch.inference_mode(): the tensors made now are inference tensors


def is_grad_enabled() -> bool:
    return _enabled


def is_inference_mode_enabled() -> bool:
    """Whether a ``torch.inference_mode()`` block is running."""
    return _inference


class InferenceCounter(list):
    """The version counter of a tensor made inside ``inference_mode``: its type is what marks an
    inference tensor (views share their base's counter, so a view of an inference tensor is one
    too, and a view of a normal tensor is not, as in PyTorch)."""

    __slots__ = ()


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
    """Grad mode off and inference mode on inside the block (``inference_mode(False)``: grad mode on
    and inference mode off); every tensor made inside is an inference tensor."""

    def __init__(self, mode: bool = True):
        if type(mode) is not bool:
            from .arguments import flag

            mode = flag(mode, "inference_mode", "mode", 1)
        self._value = not mode
        self._inference = mode

    def __call__(self, fn):
        """As a decorator: ``fn`` run inside a fresh ``inference_mode`` of the same mode."""
        return GradModeCall(inference_mode, fn, (self._inference,))

    def __enter__(self):
        global _inference
        super().__enter__()
        self._prev_inference = _inference
        _inference = self._inference
        return None

    def __exit__(self, *exc):
        global _inference
        _inference = self._prev_inference
        return super().__exit__(*exc)


class GradModeCall:
    """A callable decorated with a grad mode (``torch.no_grad()(f)``): calls ``f`` inside a fresh
    instance of the mode. Data (the mode and the callable), not a closure copying ``f``'s
    attributes; a method when it sits in a class, as a decorated function would be."""

    __slots__ = ("mode", "fn", "args")

    def __init__(self, mode: type, fn, args: tuple = ()):
        if not callable(fn):
            raise TypeError(f"'{type(fn).__name__}' object is not callable")
        self.mode = mode
        self.fn = fn
        self.args = args  # the mode's own arguments (inference_mode(False))

    def __call__(self, *args, **kwargs):
        with self.mode(*self.args):
            return self.fn(*args, **kwargs)

    def __get__(self, obj, cls=None):
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:

        name = getattr(self.fn, "__qualname__", None)  # functools.wraps would show the function's name
        if type(name) is not str:
            name = "context_decorator.<locals>.decorate_context"
        return f"<function {name} at {alias(self)}>"

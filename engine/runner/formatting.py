"""Turning values into text for user code: ``str``/``repr`` of containers, f-strings, ``str.format``
and ``%`` formatting, through our own code path.

Why our own: ``"{0.__class__}".format(x)`` walks attributes, and shared sub-lists make a small
object whose text is astronomically long. Here fields are positions or names only, containers
are rendered by an iterative walk with a character budget, and widths and precisions in format
specs are bounded. And every object's own text passes through ``engine.addresses.scrub``: the
reprs keep Python's and PyTorch's form (``<function f at 0x7f0000000001>``) with a per-run alias in
place of the real memory address.
"""

from __future__ import annotations

import re
import string
import types

from ..addresses import scrub
from ..errors import LimitError
from ..tensor import Tensor
from .errors import ForbiddenError
from .guards import Guard

_WALKED = (list, tuple, dict, set, frozenset)
_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-#0 +]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d+))?"
                      r"[hlL]?(?P<type>.?)", re.S)
_DIGITS = re.compile(r"\d+")
_FORMATTER = string.Formatter()
_PLAIN = frozenset((str, int, float, bool, complex, type(None)))  # their text never holds an address


_ENGINE = __package__.rpartition(".")[0]  # "engine", or "gradviz.engine" when installed


def torch_module_name(name: str) -> str:
    """An engine module's name as a program imported it: ``engine.nn`` -> ``torch.nn``."""
    return "torch" + name[len(_ENGINE):] if name == _ENGINE or name.startswith(_ENGINE + ".") else name


def shown(obj, text: str) -> str:
    """``text`` (``obj``'s own repr or str) with real addresses replaced by their aliases; a module
    is named as the program imported it (``<module 'torch.nn'>``), without the server's file path."""
    if type(obj) in _PLAIN:
        return text
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        return f"<module '{torch_module_name(name)}'>"
    return scrub(text)


def safe_repr(obj, guard: Guard) -> str:
    """``repr(obj)``, walking lists/tuples/dicts/sets ourselves under the string limit."""
    if type(obj) not in _WALKED:
        return guard.result(shown(obj, repr(obj)))
    limit = guard.s.max_str_chars
    out: list[str] = []
    size = 0
    active: list = []  # containers being rendered (Python prints a cycle as [...])
    work: list = [obj]
    while work:
        item = work.pop()
        if type(item) is _Text:
            if item.close:
                active.pop()
            text = item.text
        elif type(item) in _WALKED:
            if any(a is item for a in active):
                text = "[...]" if type(item) is list else "{...}" if type(item) is dict else "(...)"
            else:
                text = _open(item, work, active)
        else:
            text = shown(item, repr(item))
        out.append(text)
        size += len(text)
        if size > limit:
            raise LimitError(f"the text of this value is longer than {limit:,} characters "
                             "(limit: max_str_chars)")
    return "".join(out)


class _Text:
    __slots__ = ("text", "close")

    def __init__(self, text: str, close: bool = False):
        self.text = text
        self.close = close


def _open(item, work: list, active: list) -> str:
    """Push the parts of a container (in reverse: ``work`` is a stack); return its opening text."""
    t = type(item)
    if t is list:
        opening, closing, parts = "[", "]", list(item)
    elif t is tuple:
        opening, closing, parts = "(", ",)" if len(item) == 1 else ")", list(item)
    elif t is dict:
        opening, closing, parts = "{", "}", None
    else:
        if not item:
            return "set()" if t is set else "frozenset()"
        opening, closing, parts = ("{", "}", list(item)) if t is set else ("frozenset({", "})", list(item))
    active.append(item)
    work.append(_Text(closing, close=True))
    if parts is None:
        pairs = list(item.items())
        for i in range(len(pairs) - 1, -1, -1):
            k, v = pairs[i]
            work.append(v)
            work.append(_Text(": "))
            work.append(k)
            if i:
                work.append(_Text(", "))
    else:
        for i in range(len(parts) - 1, -1, -1):
            work.append(parts[i])
            if i:
                work.append(_Text(", "))
    return opening


def safe_str(obj, guard: Guard) -> str:
    """``str(obj)`` under the limits."""
    if type(obj) is str:
        return obj
    if type(obj) in _WALKED:
        return safe_repr(obj, guard)
    return guard.result(shown(obj, str(obj)))


def check_spec(spec: str, guard: Guard) -> None:
    """Bound the width and precision of a format spec (``f"{x:>1000000000}"`` would allocate)."""
    for m in _DIGITS.finditer(spec):
        digits = m.group()
        if len(digits) > 7 or int(digits) > guard.s.max_str_chars:
            raise LimitError(f"format width or precision {digits[:12]} is over the limit of "
                             f"{guard.s.max_str_chars:,} characters (limit: max_str_chars)")


def format_value(value, spec: str, conversion: str | None, guard: Guard) -> str:
    """One replacement field: ``!s``/``!r``/``!a`` conversion, then ``format(value, spec)``."""
    if conversion == "s":
        value = safe_str(value, guard)
    elif conversion == "r":
        value = safe_repr(value, guard)
    elif conversion == "a":
        value = ascii(safe_repr(value, guard))
    elif conversion is not None:
        raise ValueError(f"Unknown conversion specifier {conversion}")
    if not spec:
        return safe_str(value, guard)
    check_spec(spec, guard)
    if type(value) in _WALKED:
        raise TypeError(f"unsupported format string passed to {type(value).__name__}.__format__")
    return guard.result(shown(value, format(value, spec)))


def str_format(fmt: str, args: tuple, kwargs: dict, guard: Guard, depth: int = 0) -> str:
    """``fmt.format(*args, **kwargs)`` with fields that are positions or names only."""
    if depth > 1:
        raise ValueError("Max string recursion exceeded")
    out: list[str] = []
    size = 0
    auto = 0
    manual = False
    for literal, field, spec, conversion in _FORMATTER.parse(fmt):
        out.append(literal)
        size += len(literal)
        if field is None:
            continue
        if field == "":
            if manual:
                raise ValueError("cannot switch from manual field specification to automatic field numbering")
            key = auto
            auto += 1
        elif field.isdigit():
            if auto:
                raise ValueError("cannot switch from automatic field numbering to manual field specification")
            manual = True
            key = int(field)
        elif field.isidentifier() and not field.startswith("_"):
            key = field
        else:
            raise ForbiddenError(f"format field '{{{field}}}' is not allowed in gradviz: use a position or a "
                                 "name, and compute attributes and items before formatting")
        if isinstance(key, int):
            if key >= len(args):
                raise IndexError(f"Replacement index {key} out of range for positional args tuple")
            value = args[key]
        else:
            if key not in kwargs:
                raise KeyError(key)
            value = kwargs[key]
        if spec and "{" in spec:
            spec = str_format(spec, args, kwargs, guard, depth + 1)
        text = format_value(value, spec, conversion, guard)
        out.append(text)
        size += len(text)
        if size > guard.s.max_str_chars:
            guard.str_len(size)
    return "".join(out)


def percent_format(fmt: str, args, guard: Guard) -> str:
    """``fmt % args`` with bounded widths and containers rendered under the limit first."""
    for m in _PERCENT.finditer(fmt):
        for part in (m.group("width"), m.group("prec")):
            if part == "*":
                raise ValueError("'*' widths in % formatting are not supported by gradviz")
            if part:
                check_spec(part, guard)
    # The values that %s, %r and %a turn into text get their text from safe_str/safe_repr.
    fields = [m for m in _PERCENT.finditer(fmt) if m.group("type") != "%"]
    textual = {i for i, m in enumerate(fields) if m.group("type") in "sra"}
    keys = {m.group("key") for m in fields if m.group("type") in "sra"}
    if type(args) is tuple:
        args = tuple(_Shown.wrap(v, guard) if i in textual else v for i, v in enumerate(args))
    elif type(args) is dict:
        args = {k: _Shown.wrap(v, guard) if k in keys else v for k, v in args.items()}
    elif 0 in textual:
        args = _Shown.wrap(args, guard)
    return guard.result(fmt % args)


class _Shown:
    """A value for ``%s``/``%r``/``%a``: its text made by ``safe_str``/``safe_repr`` (limits, aliases)."""

    __slots__ = ("value", "guard")

    def __init__(self, value, guard: Guard):
        self.value = value
        self.guard = guard

    @classmethod
    def wrap(cls, value, guard: Guard):
        if type(value) in _PLAIN or isinstance(value, Tensor):
            return value  # their text never holds an address
        return cls(value, guard)

    def __str__(self) -> str:
        return safe_str(self.value, self.guard)

    def __repr__(self) -> str:
        return safe_repr(self.value, self.guard)

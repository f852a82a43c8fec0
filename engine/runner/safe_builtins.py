"""The builtins user programs can call, and the checked versions of a few str/list/dict methods.

Functions that consume an iterable in C (``sum``, ``sorted``, ``list``, ``"".join``...) are
replaced by versions that count each item against the loop limit and check sizes before building;
``str``, ``list``, ... stay usable in ``isinstance`` through ``BuiltinType``. Every builtin that
calls a function it is given (``map``, ``filter``, ``sorted``/``min``/``max`` with ``key=``,
``iter(f, sentinel)``, ``list.sort``) is written here in Python and calls it through the
interpreter's checked call path; ``property``, ``staticmethod`` and ``classmethod`` keep the
functions they are given as ``Callback``s, so Python's own calls of them come back to it too.
"""

from __future__ import annotations

import ast
import builtins as _py

from ..device import device
from ..dtypes import dtype
from ..errors import LimitError
from ..tensor import Size, Tensor
from .formatting import format_value, safe_repr, safe_str, str_format
from .guards import Guard

EXCEPTIONS = (Exception, ArithmeticError, AssertionError, AttributeError, IndexError, KeyError, LookupError,
              NameError, NotImplementedError, OverflowError, RuntimeError, StopIteration, TypeError,
              ValueError, ZeroDivisionError)
RAW = (abs, range, enumerate, zip, reversed, float, bool, divmod, chr, ord, hex, bin, oct, callable, len,
       next, slice)
DECORATORS = (property, staticmethod, classmethod)  # the real types behind the decorator builtins
# Values whose text runs none of the program's code (print skips them once the output is cut).
_PLAIN = frozenset((str, int, float, bool, type(None), Size, dtype, device))


class BuiltinType:
    """A builtin type for user code: calling it goes through a checked constructor; ``isinstance``
    sees the real type."""

    __slots__ = ("name", "pytype", "make")

    def __init__(self, name: str, pytype: type, make):
        self.name = name
        self.pytype = pytype
        self.make = make

    def __call__(self, *args, **kwargs):
        return self.make(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"


class BuiltinFunction:
    """A builtin of the run written here (``print``, ``sorted``...): Python's name and repr."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn):
        self.name = name
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<built-in function {self.name}>"


class SuperMarker:
    """The name ``super``: the interpreter turns a call of it into a ``SuperProxy``."""

    def __repr__(self) -> str:
        return "<built-in function super>"


SUPER = SuperMarker()


def unwrap_types(classes):
    """``isinstance``'s second argument with our BuiltinTypes replaced by the real types."""
    if isinstance(classes, BuiltinType):
        return classes.pytype
    if type(classes) is tuple:
        return tuple(unwrap_types(c) for c in classes)
    return classes


class Builtins:
    """The builtins of one run (they need the run's guard, stdout and interpreter)."""

    def __init__(self, interp, guard: Guard):
        self.interp = interp
        self.g = guard

    def table(self) -> dict:
        """name -> callable or type, for the interpreter's last lookup level."""
        t = {f.__name__: f for f in RAW}
        t.update({e.__name__: e for e in EXCEPTIONS})
        t.update({
            "print": self.print, "min": self.min, "max": self.max, "sum": self.sum, "any": self.any,
            "all": self.all, "sorted": self.sorted, "isinstance": self.isinstance,
            "issubclass": self.issubclass, "pow": self.pow, "repr": self.repr, "format": self.format,
            "round": self.round, "iter": self.iter,
            "map": BuiltinType("map", _Map, self.map), "filter": BuiltinType("filter", _Filter, self.filter),
            "property": BuiltinType("property", property, self.property),
            "staticmethod": BuiltinType("staticmethod", staticmethod, self.staticmethod),
            "classmethod": BuiltinType("classmethod", classmethod, self.classmethod),
            "int": BuiltinType("int", int, self.int), "str": BuiltinType("str", str, self.str),
            "list": BuiltinType("list", list, self.list), "tuple": BuiltinType("tuple", tuple, self.tuple),
            "dict": BuiltinType("dict", dict, self.dict), "set": BuiltinType("set", set, self.set),
            "super": SUPER, "object": object, "type": BuiltinType("type", type, self.type),
        })
        for name, value in t.items():
            if getattr(value, "__self__", None) is self:
                t[name] = BuiltinFunction(name, value)
        return t

    # ---- output ----------------------------------------------------------------------------------
    def print(self, *args, sep=" ", end="\n", flush=False):
        """print() into the run's stdout."""
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be None or a string")
        if self.interp.out.cut and all(type(a) in _PLAIN or isinstance(a, Tensor) for a in args):
            return None  # nothing more is shown
        self.interp.write(sep.join(safe_str(a, self.g) for a in args) + end)

    def repr(self, obj):
        return safe_repr(obj, self.g)

    def format(self, value, spec=""):
        return format_value(value, spec, None, self.g)

    # ---- constructors ----------------------------------------------------------------------------
    def int(self, *args, **kwargs):
        return self.g.result(int(*args, **kwargs))

    def str(self, obj="", *args):
        if args:
            raise TypeError("str() with an encoding is not supported by gradviz")
        return safe_str(obj, self.g)

    def list(self, iterable=()):
        return self.g.consume(iterable)

    def tuple(self, iterable=()):
        return tuple(self.g.consume(iterable))

    def set(self, iterable=()):
        return set(self.g.consume(iterable))

    def dict(self, *args, **kwargs):
        if len(args) > 1:
            raise TypeError(f"dict expected at most 1 argument, got {len(args)}")
        out = {}
        if args:
            src = args[0]
            out = dict(src) if isinstance(src, dict) else dict(self.g.consume(src))
        out.update(kwargs)
        return out

    # ---- builtins that call functions -----------------------------------------------------------
    def map(self, fn, *iterables):
        if not iterables:
            raise TypeError("map() must have at least two arguments.")
        return _Map(self.interp, fn, [_py.iter(it) for it in iterables])

    def filter(self, fn, iterable):
        return _Filter(self.interp, fn, _py.iter(iterable))

    def iter(self, obj, *sentinel):
        if not sentinel:
            return _py.iter(obj)
        if len(sentinel) > 1:
            raise TypeError(f"iter expected at most 2 arguments, got {1 + len(sentinel)}")
        if not _py.callable(obj):
            raise TypeError("iter(v, w): v must be callable")
        return _CallIterator(self.interp, obj, sentinel[0])

    def property(self, fget=None, fset=None, fdel=None, doc=None):
        cb = self.interp.callback
        return property(*(None if f is None else cb(f) for f in (fget, fset, fdel)), doc)

    def staticmethod(self, fn):
        return staticmethod(self.interp.callback(fn))

    def classmethod(self, fn):
        return classmethod(self.interp.callback(fn))

    def _key(self, key, x):
        return self.interp.call(key, (x,), {})

    # ---- consumers -------------------------------------------------------------------------------
    def sum(self, iterable, /, start=0):
        total = start
        if isinstance(start, (str, bytes)):
            raise TypeError("sum() can't sum strings [use ''.join(seq) instead]")
        for x in self.g.consume(iterable):
            total = self.interp.binop(ast.Add, total, x)
        return total

    def _extreme(self, name: str, args, key, default, pick_max: bool):
        if len(args) == 1:
            items = self.g.consume(args[0])
        elif not args:
            raise TypeError(f"{name} expected at least 1 argument, got 0")
        else:
            items = list(args)
        if not items:
            if default is not _MISSING:
                return default
            raise ValueError(f"{name}() iterable argument is empty")
        best = items[0]
        best_key = self._key(key, best) if key is not None else best
        for x in items[1:]:
            k = self._key(key, x) if key is not None else x
            if (k > best_key) if pick_max else (k < best_key):
                best, best_key = x, k
        return best

    def max(self, *args, key=None, default=None):
        return self._extreme("max", args, key, _MISSING if default is None else default, True)

    def min(self, *args, key=None, default=None):
        return self._extreme("min", args, key, _MISSING if default is None else default, False)

    def any(self, iterable):
        return any(self.g.iterate(iterable))

    def all(self, iterable):
        return all(self.g.iterate(iterable))

    def sorted(self, iterable, /, *, key=None, reverse=False):
        items = self.g.consume(iterable)
        if key is None:
            items.sort(reverse=reverse)
            return items
        keys = [self._key(key, x) for x in items]
        order = _py.sorted(_py.range(len(items)), key=keys.__getitem__, reverse=reverse)
        return [items[i] for i in order]

    def type(self, *args):
        """``type(obj)``: the class of ``obj`` (the one-argument form only: no classes are made)."""
        if len(args) != 1:
            raise TypeError("type() with three arguments (making a class) is not supported by gradviz")
        return _py.type(args[0])

    def isinstance(self, obj, classes):
        return isinstance(obj, unwrap_types(classes))

    def issubclass(self, cls, classes):
        return issubclass(unwrap_types(cls), unwrap_types(classes))

    def pow(self, base, exp, mod=None):
        if mod is None:
            return self.interp.binop(ast.Pow, base, exp)
        if type(exp) is int and type(mod) is int and exp > 0:
            work = exp.bit_length() * mod.bit_length() ** 2  # modular exponentiation costs about this
            if work > 10**11:
                raise LimitError("pow(base, exp, mod) with numbers this large takes too long "
                                 "(limit: max_int_bits)")
        return self.g.result(_py.pow(base, exp, mod))

    def round(self, number, ndigits=None):
        if ndigits is not None and type(number) in (int, bool) and ndigits < -self.g.s.max_int_bits:
            return 0  # |number| < 2**max_int_bits < 10**-ndigits (Python would compute 10**-ndigits)
        return _py.round(number, ndigits) if ndigits is not None else _py.round(number)

    # ---- checked methods of str / list / dict ----------------------------------------------------
    def checked_method(self, obj, name: str):
        """A size-checked bound method for ``obj.name`` (str.format/join/replace/ljust/..., list.extend,
        dict.update), or None."""
        if isinstance(obj, str):
            if name == "format":
                return _Bound(self._str_format, obj)
            if name == "join":
                return _Bound(self._str_join, obj)
            if name == "replace":
                return _Bound(self._str_replace, obj)
            if name in ("ljust", "rjust", "center", "zfill"):
                return _Bound(self._str_pad, obj, name)
        elif isinstance(obj, list) and name == "extend":
            return _Bound(self._list_extend, obj)
        elif isinstance(obj, list) and name == "sort":
            return _Bound(self._list_sort, obj)
        elif isinstance(obj, dict) and name == "update":
            return _Bound(self._dict_update, obj)
        return None

    def _str_format(self, s, *args, **kwargs):
        return str_format(s, args, kwargs, self.g)

    def _str_join(self, s, iterable):
        items = self.g.consume(iterable)
        for x in items:
            if not isinstance(x, str):
                raise TypeError(f"sequence item {items.index(x)}: expected str instance, "
                                f"{type(x).__name__} found")
        self.g.str_len(sum(len(x) for x in items) + len(s) * max(len(items) - 1, 0))
        return s.join(items)

    def _str_replace(self, s, old, new, count=-1):
        if not isinstance(old, str) or not isinstance(new, str):
            raise TypeError("replace() arguments must be str")
        n = s.count(old) if old else len(s) + 1
        if count is not None and count >= 0:
            n = min(n, count)
        self.g.str_len(len(s) + n * (len(new) - len(old)))
        return s.replace(old, new, count)

    def _str_pad(self, s, name, width, *args):
        width = int(width)
        self.g.str_len(width)
        return getattr(s, name)(width, *args)

    def _list_extend(self, lst, iterable):
        items = self.g.consume(iterable)
        self.g.list_len(len(lst) + len(items))
        lst.extend(items)

    def _list_sort(self, lst, *, key=None, reverse=False):
        lst[:] = self.sorted(lst, key=key, reverse=reverse)

    def _dict_update(self, d, *args, **kwargs):
        d.update(self.dict(*args, **kwargs))
        self.g.list_len(len(d))


class _Missing:
    pass


_MISSING = _Missing()


class _Map:
    """``map(fn, *iterables)``: lazy as Python's; each call of ``fn`` is a checked call."""

    __slots__ = ("interp", "fn", "its")

    def __init__(self, interp, fn, its):
        self.interp = interp
        self.fn = fn
        self.its = its

    def __iter__(self):
        return self

    def __next__(self):
        args = []
        for it in self.its:
            args.append(next(it))  # StopIteration ends the map, as in Python
        return self.interp.call(self.fn, tuple(args), {})


class _Filter:
    """``filter(fn, iterable)``: lazy as Python's; each call of ``fn`` is a checked call."""

    __slots__ = ("interp", "fn", "it")

    def __init__(self, interp, fn, it):
        self.interp = interp
        self.fn = fn
        self.it = it

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            x = next(self.it)
            keep = x if self.fn is None else self.interp.call(self.fn, (x,), {})
            if keep:
                return x
            self.interp.guard.tick()  # a rejected item is work the consumer does not count


class _CallIterator:
    """``iter(fn, sentinel)``: calls ``fn`` (a checked call) until it returns ``sentinel``."""

    __slots__ = ("interp", "fn", "sentinel")

    def __init__(self, interp, fn, sentinel):
        self.interp = interp
        self.fn = fn
        self.sentinel = sentinel

    def __iter__(self):
        return self

    def __next__(self):
        v = self.interp.call(self.fn, (), {})
        if v == self.sentinel:
            raise StopIteration
        return v


class _Bound:
    """A checked method bound to its receiver (what ``"x".join`` evaluates to)."""

    __slots__ = ("fn", "obj", "extra")

    def __init__(self, fn, obj, *extra):
        self.fn = fn
        self.obj = obj
        self.extra = extra

    def __call__(self, *args, **kwargs):
        return self.fn(self.obj, *self.extra, *args, **kwargs)


# How these objects are named in user-facing error messages ("'function' object is not ...") and reprs.
_Bound.__name__ = _Bound.__qualname__ = "builtin_function_or_method"
BuiltinFunction.__name__ = BuiltinFunction.__qualname__ = "builtin_function_or_method"
for _cls, _name in ((_Map, "map"), (_Filter, "filter"), (_CallIterator, "callable_iterator")):
    _cls.__name__ = _cls.__qualname__ = _name
    _cls.__module__ = "builtins"
SuperMarker.__name__ = SuperMarker.__qualname__ = "builtin_function_or_method"
BuiltinType.__name__ = BuiltinType.__qualname__ = "type"
for _cls in (_Bound, BuiltinFunction, SuperMarker, BuiltinType):
    _cls.__module__ = "builtins"
__all__ = ["Builtins", "BuiltinType", "EXCEPTIONS", "LimitError", "SUPER", "unwrap_types"]

"""Functions, scopes and ``super()`` of user programs.

A ``def`` or ``lambda`` becomes a ``UserFunction``: data (its AST node, defaults, defining scope)
plus a ``__call__`` that hands it back to the interpreter, so engine code (``nn.Module.__call__``
calling ``forward``) can call it like any Python function. It is a descriptor, so a method
defined in a user class binds to the instance as Python methods do.
"""

from __future__ import annotations

import ast
import types

from .. import addresses
from .errors import ForbiddenError
from .generators import yielding_statements, yields_of


class Scope:
    """One namespace: module globals, a function call's locals, a class body or a comprehension."""

    __slots__ = ("vars", "parent", "local_names", "kind", "ret", "func", "handling")

    def __init__(self, parent: Scope | None, kind: str, local_names=None, func=None):
        self.vars: dict = {}
        self.parent = parent
        self.local_names = local_names  # names assigned in a function body (UnboundLocalError)
        self.kind = kind  # "global" | "function" | "class" | "comprehension"
        self.ret = None
        self.func = func
        self.handling: list = []  # exceptions being handled (for a bare ``raise``)

    def enclosing_for_def(self) -> Scope:
        """Functions defined in a class body do not see the class namespace (as in Python)."""
        s = self
        while s.kind == "class":
            s = s.parent
        return s


class UserFunction:
    """A function defined by the user program."""

    def __init__(self, node, name: str, scope: Scope, defaults: tuple, kw_defaults: dict, interp,
                 local_names: frozenset):
        self.node = node  # ast.FunctionDef or ast.Lambda
        self.name = name
        self.qualname = name
        self.scope = scope
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        self.interp = interp
        self.owner = None  # the user class it was defined in, for super()
        self.local_names = local_names
        a = node.args
        # The parameter names when the signature is plain positional ones (``def forward(self, x)``):
        # a call with exactly that many positional arguments binds them in order (``bind_arguments``
        # does the rest).
        plain = not (a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg)
        self.positional = tuple(x.arg for x in a.args) if plain else None
        self.generator = isinstance(node, ast.FunctionDef) and bool(yields_of(node))  # its body yields
        self.yielding = yielding_statements(node) if self.generator else frozenset()
        self.__name__ = name  # read by functools.wraps (@torch.no_grad())
        self.__qualname__ = name
        self.__doc__ = None

    def set_qualname(self, qualname: str) -> None:
        self.qualname = qualname
        self.__qualname__ = qualname

    def __call__(self, *args, **kwargs):
        return self.interp.call_user(self, args, kwargs)

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<function {self.qualname} at {addresses.alias(self)}>"


class SuperProxy:
    """What ``super()`` gives user code: only ``__init__`` and public attributes of the parent."""

    __slots__ = ("cls", "obj")

    def __init__(self, cls, obj):
        self.cls = cls
        self.obj = obj

    def get(self, name: str):
        if name.startswith("_") and name != "__init__":
            raise ForbiddenError(f"attribute '{name}' is not available in gradviz")
        target = super(self.cls, self.obj)
        if name == "__init__" and _object_init(target) is object.__dict__["__init__"]:
            return SuperMethod(None)
        value = getattr(target, name)
        return SuperMethod(value) if callable(value) else value

    def __repr__(self) -> str:
        return f"<super: {self.cls.__name__}>"


def _object_init(target):
    """The ``__init__`` a super object resolves to, unbound (``object.__init__`` for plain classes)."""
    mro = type(target.__self__).__mro__
    start = mro.index(target.__thisclass__) + 1
    for klass in mro[start:]:
        if "__init__" in klass.__dict__:
            return klass.__dict__["__init__"]
    return None


class SuperMethod:
    """A method reached through ``super()``; ``None`` stands for ``object.__init__`` (a no-op)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        if self.fn is None:
            if args or kwargs:
                raise TypeError("object.__init__() takes exactly one argument (the instance to initialize)")
            return None
        return self.fn(*args, **kwargs)


class InitMethod:
    """``Base.__init__`` for a class of the program or an nn.Module class: only on an instance of it."""

    __slots__ = ("cls",)

    def __init__(self, cls):
        self.cls = cls

    def __call__(self, obj=None, *args, **kwargs):
        if not isinstance(obj, self.cls):
            raise TypeError(f"descriptor '__init__' requires a '{self.cls.__name__}' object")
        return self.cls.__init__(obj, *args, **kwargs)


class Callback:
    """A callable of the program that crossed into code outside the interpreter: an argument of
    engine code (``opt.step(closure)``, ``m.apply(fn)``), an attribute (``m.forward = f``) or a
    class attribute. Engine code and Python call it like any function; each call comes back through
    the interpreter's checked call path (``Interpreter.call``: the call policy, the arguments made
    concrete and size-checked, the result checked), so no callable runs outside the policy."""

    __slots__ = ("fn", "interp")

    def __init__(self, fn, interp):
        self.fn = fn
        self.interp = interp

    def __call__(self, *args, **kwargs):
        return self.interp.call(self.fn, args, kwargs)

    def __repr__(self) -> str:
        return repr(self.fn)


# How these objects are named in user-facing error messages (and by torch.typename).
UserFunction.__name__ = UserFunction.__qualname__ = "function"
SuperMethod.__name__ = SuperMethod.__qualname__ = "method"
Callback.__name__ = Callback.__qualname__ = "function"
for _shim in (UserFunction, Callback):
    _shim.__module__ = "builtins"


def bind_arguments(fn: UserFunction, args: tuple, kwargs: dict) -> dict:
    """Python's argument binding for a user function: positional, defaults, *args, keyword-only,
    **kwargs, with Python's error messages."""
    a: ast.arguments = fn.node.args
    name = fn.qualname
    posonly = [x.arg for x in a.posonlyargs]
    params = posonly + [x.arg for x in a.args]
    out: dict = {}
    n = len(params)
    if len(args) > n:
        if a.vararg is None:
            given = len(args)
            raise TypeError(f"{name}() takes {n} positional argument{'s' if n != 1 else ''} but {given} "
                            f"{'were' if given != 1 else 'was'} given")
        out[a.vararg.arg] = tuple(args[n:])
    elif a.vararg is not None:
        out[a.vararg.arg] = ()
    for p, v in zip(params, args):
        out[p] = v
    kwonly = [x.arg for x in a.kwonlyargs]
    extra: dict = {}
    for k, v in kwargs.items():
        if (k in params and k not in posonly) or k in kwonly:
            if k in out:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            out[k] = v
        elif a.kwarg is not None:
            extra[k] = v
        else:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
    missing = []
    first_default = n - len(fn.defaults)
    for i, p in enumerate(params):
        if p not in out:
            if i >= first_default:
                out[p] = fn.defaults[i - first_default]
            else:
                missing.append(p)
    if missing:
        raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) != 1 else ''}: {_quoted(missing)}")
    missing = []
    for k in kwonly:
        if k not in out:
            if k in fn.kw_defaults:
                out[k] = fn.kw_defaults[k]
            else:
                missing.append(k)
    if missing:
        raise TypeError(f"{name}() missing {len(missing)} required keyword-only argument"
                        f"{'s' if len(missing) != 1 else ''}: {_quoted(missing)}")
    if a.kwarg is not None:
        out[a.kwarg.arg] = extra
    return out


def _quoted(names: list[str]) -> str:
    q = [f"'{n}'" for n in names]
    if len(q) == 1:
        return q[0]
    return ", ".join(q[:-1]) + " and " + q[-1]


def local_names(node) -> frozenset:
    """Names a function body binds (its locals), not looking into nested functions, classes or
    comprehensions (which have scopes of their own)."""
    names = set()
    args = node.args
    for x in args.posonlyargs + args.args + args.kwonlyargs:
        names.add(x.arg)
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    body = node.body if isinstance(node.body, list) else [node.body]
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            names.add(n.name)
            stack.extend(n.decorator_list)
            if isinstance(n, ast.FunctionDef):
                stack.extend(n.args.defaults)
                stack.extend(d for d in n.args.kw_defaults if d is not None)
            else:
                stack.extend(n.bases)
            continue
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for alias in n.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name.split(".")[0])
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(names)

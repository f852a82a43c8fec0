"""Generator functions of the program (``def data_iter(...): ... yield X, y``), run lazily as in Python.

A call of a function whose body yields returns a ``UserGenerator``; each ``next`` resumes the body
where it stopped, under the same guard (every resume is a call of the program: depth, time, steps).
The body runs in ``GeneratorRunner``, a twin of the interpreter's statement loop written as Python
generators, so a ``yield`` suspends the walk itself. It covers the shapes courses write: ``yield
value`` and ``yield from iterable`` as statements of their own, inside ``for``, ``while`` and ``if``
blocks; the checker refuses a yield anywhere else with its position, before anything runs. Loops of a
generator body are not drawn as loops of the timeline: their iterations interleave with the
consumer's, which owns the steps.
"""

from __future__ import annotations

import ast
from time import monotonic

from .. import addresses
from .errors import ForbiddenError
from .positions import tag_error

BREAK, CONTINUE, RETURN = "break", "continue", "return"
_BLOCKS = (ast.For, ast.While, ast.If)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
PLACEMENT = ("gradviz runs a generator's yield as a statement of its own ('yield value' or 'yield from "
             "iterable') inside a function, in its body or in for, while and if blocks")


def yields_of(node) -> list:
    """The yield expressions that belong to ``node``'s own body (not to functions defined inside)."""
    found, stack = [], list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            found.append(n)
        if not isinstance(n, _SCOPES):
            stack.extend(ast.iter_child_nodes(n))
    return found


def yielding_statements(node) -> frozenset:
    """The ids of the statements of a function's own body (at any depth) that contain a yield."""
    found, stack = set(), list(node.body)
    while stack:
        st = stack.pop()
        if isinstance(st, _SCOPES) or not yields_of(st):
            continue
        found.add(id(st))
        for field in ("body", "orelse"):
            stack.extend(getattr(st, field, ()))
    return frozenset(found)


def misplaced_yield(tree: ast.Module):
    """The first yield of the program in a place generators do not run from, and whether it is
    inside a function at all (Python's SyntaxError when not); ``(None, True)`` when there is none."""
    allowed, in_functions = set(), set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef):
            _allowed_in(fn.body, allowed)
        if isinstance(fn, (ast.FunctionDef, ast.Lambda)):
            in_functions.update(id(n) for n in yields_of(fn))
    for n in ast.walk(tree):
        if isinstance(n, (ast.Yield, ast.YieldFrom)) and id(n) not in allowed:
            return n, id(n) in in_functions
    return None, True


def _allowed_in(stmts: list, allowed: set) -> None:
    for st in stmts:
        if isinstance(st, ast.Expr) and isinstance(st.value, (ast.Yield, ast.YieldFrom)):
            allowed.add(id(st.value))
        elif isinstance(st, _BLOCKS):
            _allowed_in(st.body, allowed)
            _allowed_in(st.orelse, allowed)


class UserGenerator:
    """What calling a generator function of the program gives: an iterator over what it yields."""

    def __init__(self, interp, fn, scope):
        self._interp = interp
        self._fn = fn
        self._body = GeneratorRunner(interp, fn.yielding).function(fn, scope)
        self.__name__ = fn.name

    def __iter__(self):
        return self

    def __next__(self):
        guard = self._interp.guard
        guard.enter_call()
        try:
            return next(self._body)
        finally:
            guard.leave_call()

    def close(self) -> None:
        self._body.close()

    def __repr__(self) -> str:

        return f"<generator object {self._fn.qualname} at {addresses.alias(self)}>"


class GeneratorRunner:
    """The interpreter's statements as Python generators (see the module's docstring)."""

    def __init__(self, interp, yielding: frozenset):
        self.i = interp
        self.yielding = yielding  # the statements that contain a yield (``yielding_statements``)

    def function(self, fn, scope):
        sig = yield from self.block(fn.node.body, scope)
        return scope.ret if sig is RETURN else None

    def block(self, stmts, scope):
        i = self.i
        guard = i.guard
        for st in stmts:
            if monotonic() > guard.deadline:
                guard.timeout()
            i.at(st)
            try:
                if id(st) in self.yielding:
                    sig = yield from self.statement(st, scope)
                else:
                    handler = i._stmt.get(type(st))
                    if handler is None:
                        raise ForbiddenError(f"{type(st).__name__} statements are not supported by gradviz")
                    sig = handler(i, st, scope)
            except Exception as e:
                tag_error(e, st)
                raise
            if sig is not None:
                return sig
        return None

    def statement(self, st, scope):
        i = self.i
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Yield):
            yield None if st.value.value is None else i.eval(st.value.value, scope)
            return None
        if isinstance(st, ast.Expr):
            for item in i.eval(st.value.value, scope):
                i.guard.tick()
                yield item
            return None
        if isinstance(st, ast.If):
            return (yield from self.block(st.body if i.eval(st.test, scope) else st.orelse, scope))
        if isinstance(st, ast.For):
            return (yield from self.loop_for(st, scope))
        if isinstance(st, ast.While):
            return (yield from self.loop_while(st, scope))
        raise ForbiddenError(PLACEMENT)  # the checker refused it already

    def loop_for(self, st: ast.For, scope):
        i = self.i
        for item in i.eval(st.iter, scope):
            i.guard.tick()
            i.at(st)
            i.assign(st.target, item, scope)
            sig = yield from self.block(st.body, scope)
            if sig is BREAK:
                return None
            if sig is RETURN:
                return sig
        return (yield from self.block(st.orelse, scope))

    def loop_while(self, st: ast.While, scope):
        i = self.i
        while i.eval(st.test, scope):
            i.guard.tick()
            sig = yield from self.block(st.body, scope)
            if sig is BREAK:
                return None
            if sig is RETURN:
                return sig
        return (yield from self.block(st.orelse, scope))

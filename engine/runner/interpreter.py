"""The tree-walking interpreter: statements, calls of user functions, classes, imports.

User code is never given to ``eval``/``exec``/``compile``: each AST node is interpreted here,
every attribute and call goes through the ``Policy``, every loop and call through the ``Guard``.
Control flow (break/continue/return) travels as return values of ``exec_block``, not exceptions.
"""

from __future__ import annotations

import ast
import operator
from time import monotonic

from .. import grad_mode
from ..errors import LimitError
from ..nn.module import Module
from ..tensor import Tensor
from .errors import ForbiddenError, scrub_args
from .expressions import Expressions
from .functions import Callback, Scope, UserFunction, bind_arguments
from .generators import UserGenerator
from .guards import Guard
from .loops import LoopScopes
from .policy import Policy
from .positions import Positions, tag_error
from .safe_builtins import DECORATORS, EXCEPTIONS, Builtins, BuiltinType, _Bound
from .unsupported import imported_module, names_imported

BREAK = "break"
CONTINUE = "continue"
RETURN = "return"

# Never caught by the program's own ``try``: the sandbox's refusals and exhaustion.
UNCATCHABLE = (LimitError, ForbiddenError, MemoryError, RecursionError)


def _nowhere(node) -> None:
    """``Interpreter.at`` when nothing is recorded."""


class Interpreter(Expressions):
    """Runs one checked program. ``rec`` is the trace recorder (or None)."""

    def __init__(self, guard: Guard, policy: Policy, positions: Positions, rec, prelude: dict, out):
        self.guard = guard
        self.policy = policy
        self.positions = positions
        self.rec = rec
        # ``at(node)``: ops recorded from now on were made by ``node`` (innermost expression wins).
        # Called before every operator, attribute and call: the recorder's own method, bound once.
        self.at = rec.at_node if rec is not None else _nowhere
        if rec is not None:
            rec.end_of = positions.ends.__getitem__
            rec.position_of = positions.starts.__getitem__
        self.prelude = prelude
        self.out = out  # an Output: write(text)
        self.user_classes = policy.user_classes
        b = Builtins(self, guard)
        self.builtins = b.table()
        policy.builtin_callables.update(v for v in self.builtins.values() if not isinstance(v, type))
        policy.builtin_callables.update(v for v in self.builtins.values() if isinstance(v, type)
                                        and v not in EXCEPTIONS and v is not object)
        policy.exception_classes.update(EXCEPTIONS)
        policy.callable_types = (*policy.callable_types, _Bound, BuiltinType, Callback,
                                 grad_mode.GradModeCall)
        policy.checked = b.checked_method
        self.globals = Scope(None, "global")
        self.loops = LoopScopes(rec, positions)

    def write(self, text: str) -> None:
        self.out.write(text)

    # ---- statements ------------------------------------------------------------------------------
    def run(self, tree: ast.Module):
        """Run the module body in the global scope."""
        return self.exec_block(tree.body, self.globals)

    def exec_block(self, stmts, scope: Scope):
        """Run statements in order; an exception leaving one is tagged with its position."""
        guard = self.guard
        at = self.at
        handlers = self._stmt
        for st in stmts:
            if monotonic() > guard.deadline:
                guard.timeout()
            at(st)
            handler = handlers.get(type(st))
            try:
                if handler is None:
                    raise ForbiddenError(f"{type(st).__name__} statements are not supported by gradviz")
                sig = handler(self, st, scope)
            except Exception as e:
                tag_error(e, st)
                raise
            if sig is not None:
                return sig
        return None

    def _expr_stmt(self, st: ast.Expr, scope):
        self.eval(st.value, scope)

    def _assign(self, st: ast.Assign, scope):
        value = self.eval(st.value, scope)
        for t in st.targets:
            if type(t) is ast.Name:
                self.bind(t.id, value, scope)
            else:
                self.assign(t, value, scope)

    def _annassign(self, st: ast.AnnAssign, scope):
        if st.value is not None:
            self.assign(st.target, self.eval(st.value, scope), scope)

    def _augassign(self, st: ast.AugAssign, scope):
        op = type(st.op)
        t = st.target
        if isinstance(t, ast.Name):
            cur = self.lookup(t.id, scope)
            value = self.eval(st.value, scope)
            self.at(st)
            self.bind(t.id, self.inplace(op, cur, value), scope)
        elif isinstance(t, ast.Attribute):
            obj = self.eval(t.value, scope)
            cur = self.policy.get_attr(obj, t.attr)
            value = self.eval(st.value, scope)
            self.at(st)
            self.policy.set_attr(obj, t.attr, self.callback(self.inplace(op, cur, value)))
        else:
            obj = self.eval(t.value, scope)
            key = self.eval(t.slice, scope)
            cur = obj[key]
            value = self.eval(st.value, scope)
            self.at(st)
            obj[key] = self.inplace(op, cur, value)

    def assign(self, target, value, scope: Scope) -> None:
        """Bind ``value`` to an assignment target (name, tuple/list, attribute, item)."""
        kind = type(target)
        if kind is ast.Name:
            self.bind(target.id, value, scope)
        elif kind is ast.Tuple or kind is ast.List:
            self._unpack(target.elts, value, scope)
        elif kind is ast.Attribute:
            obj = self.eval(target.value, scope)
            self.at(target)
            self.policy.set_attr(obj, target.attr, self.callback(value))
            if isinstance(value, Tensor) and self.rec is not None and not isinstance(obj, Module):
                self.rec.name_tensor(value, target.attr)
        elif kind is ast.Subscript:
            obj = self.eval(target.value, scope)
            key = self.eval(target.slice, scope)
            if isinstance(key, slice) and isinstance(obj, list) and not isinstance(value, (list, tuple)):
                value = self.guard.consume(value)
            self.at(target)
            obj[key] = value
            if isinstance(obj, list):
                self.guard.list_len(len(obj))
        elif kind is ast.Starred:
            raise SyntaxError("starred assignment target must be in a list or tuple")
        else:
            raise ForbiddenError(f"cannot assign to {kind.__name__}")

    def _unpack(self, elts, value, scope: Scope) -> None:
        star = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
        n = len(elts)
        if star is None:
            if isinstance(value, (list, tuple)):
                items = list(value)
            else:
                items = []
                for x in value:
                    self.guard.tick()
                    items.append(x)
                    if len(items) > n:
                        break
            if len(items) > n:
                raise ValueError(f"too many values to unpack (expected {n})")
            if len(items) < n:
                raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
            for t, v in zip(elts, items):
                self.assign(t, v, scope)
            return
        items = self.guard.consume(value)
        if len(items) < n - 1:
            raise ValueError(f"not enough values to unpack (expected at least {n - 1}, got {len(items)})")
        after = n - 1 - star
        for t, v in zip(elts[:star], items[:star]):
            self.assign(t, v, scope)
        self.assign(elts[star].value, items[star:len(items) - after], scope)
        for t, v in zip(elts[star + 1:], items[len(items) - after:]):
            self.assign(t, v, scope)

    def _if(self, st: ast.If, scope):
        return self.exec_block(st.body if self.eval(st.test, scope) else st.orelse, scope)

    def _for(self, st: ast.For, scope):
        iterable = self.eval(st.iter, scope)
        loops = self.loops
        loop = loops.start(st)
        tick, at, target, body = self.guard.tick, self.at, st.target, st.body
        iteration, end, bind, exec_block = loops.iteration, loops.end, self.bind, self.exec_block
        name = target.id if type(target) is ast.Name else None
        try:
            for k, item in enumerate(iterable):
                tick()
                at(st)
                it = iteration(loop, k)
                try:
                    if name is not None:
                        bind(name, item, scope)
                    else:
                        self.assign(target, item, scope)
                    sig = exec_block(body, scope)
                finally:
                    end(it)
                if sig is BREAK:
                    return None
                if sig is RETURN:
                    return sig
        finally:
            loops.end(loop)
        return self.exec_block(st.orelse, scope)

    def _while(self, st: ast.While, scope):
        loops = self.loops
        loop = loops.start(st)
        try:
            k = 0
            while True:
                it = loops.iteration(loop, k)  # the test belongs to the iteration it lets in
                try:
                    if not self.eval(st.test, scope):
                        break
                    self.guard.tick()
                    sig = self.exec_block(st.body, scope)
                finally:
                    loops.end(it)
                if sig is BREAK:
                    return None
                if sig is RETURN:
                    return sig
                k += 1
        finally:
            loops.end(loop)
        return self.exec_block(st.orelse, scope)

    def _return(self, st: ast.Return, scope):
        s = scope
        while s.kind not in ("function",):
            s = s.parent
        s.ret = self.eval(st.value, scope) if st.value is not None else None
        return RETURN

    def _delete(self, st: ast.Delete, scope):
        for t in st.targets:
            if isinstance(t, ast.Name):
                if t.id not in scope.vars:
                    raise NameError(f"name '{t.id}' is not defined")
                del scope.vars[t.id]
            elif isinstance(t, ast.Attribute):
                self.policy.del_attr(self.eval(t.value, scope), t.attr)
            elif isinstance(t, ast.Subscript):
                operator.delitem(self.eval(t.value, scope), self.eval(t.slice, scope))
            else:
                for e in t.elts:
                    self._delete(ast.Delete(targets=[e]), scope)

    def _assert(self, st: ast.Assert, scope):
        if not self.eval(st.test, scope):
            if st.msg is not None:
                raise AssertionError(self.eval(st.msg, scope))
            raise AssertionError()

    # ---- definitions -----------------------------------------------------------------------------
    def _functiondef(self, st: ast.FunctionDef, scope):
        fn = self.make_function(st, st.name, scope)
        if scope.kind == "class":
            fn.set_qualname(f"{scope.func}.{st.name}")
        value = fn
        for dec in reversed(st.decorator_list):
            d = self.eval(dec, scope)
            if isinstance(d, BuiltinType) and d.pytype in DECORATORS:
                value = d(value)
            elif type(d) in (grad_mode.no_grad, grad_mode.enable_grad, grad_mode.inference_mode):
                value = d(value)  # the engine's decorator: a GradModeCall
            else:
                raise ForbiddenError("decorators other than @torch.no_grad(), @torch.enable_grad(), "
                                     "@property, @staticmethod and @classmethod are not supported by gradviz")
        scope.vars[st.name] = value

    def _classdef(self, st: ast.ClassDef, scope):
        bases = [self.eval(b, scope) for b in st.bases]
        for b in bases:
            self.policy.check_base(b)
        body = Scope(scope, "class")
        body.func = st.name  # for method qualnames
        sig = self.exec_block(st.body, body)
        if sig is not None:
            raise SyntaxError(f"'{sig}' outside loop")
        ns = dict(body.vars)
        for k, v in ns.items():
            if k.startswith("__") and k != "__init__":
                raise ForbiddenError(f"defining '{k}' is not supported by gradviz")
            if not isinstance(v, (staticmethod, classmethod, property)):
                ns[k] = self.callback(v)  # a class attribute engine code may call (``forward = f``)
        ns["__module__"] = "__main__"
        ns["__qualname__"] = st.name
        cls = type(st.name, tuple(bases), ns)
        for v in ns.values():
            fn = v.__func__ if isinstance(v, (staticmethod, classmethod)) else v.fget \
                if isinstance(v, property) else v
            if isinstance(fn, grad_mode.GradModeCall):
                fn = fn.fn
            if isinstance(fn, UserFunction):
                fn.owner = cls
        self.user_classes.add(cls)
        scope.vars[st.name] = cls

    def call_user(self, fn: UserFunction, args: tuple, kwargs: dict):
        """Call a function defined by the program (from user code or from engine code)."""
        g = self.guard
        g.enter_call()
        try:
            scope = Scope(fn.scope, "function", local_names=fn.local_names, func=fn)
            params = fn.positional
            if params is not None and not kwargs and len(args) == len(params):
                scope.vars.update(zip(params, args))
            else:
                scope.vars.update(bind_arguments(fn, args, kwargs))
            if isinstance(fn.node, ast.Lambda):
                return self.eval(fn.node.body, scope)
            if fn.generator:
                return UserGenerator(self, fn, scope)  # its body runs at each next()
            sig = self.exec_block(fn.node.body, scope)
            return scope.ret if sig is RETURN else None
        finally:
            g.leave_call()

    # ---- imports ---------------------------------------------------------------------------------
    def _import(self, st: ast.Import, scope):
        for alias in st.names:
            if alias.asname:
                self.bind(alias.asname, imported_module(self.policy, alias.name), scope)
            else:
                top = alias.name.split(".")[0]
                self.bind(top, self.policy.module_for(top), scope)

    def _importfrom(self, st: ast.ImportFrom, scope):
        for name, value in names_imported(self.policy, st.module, st.names):
            self.bind(name, value, scope)

    # ---- with, try, raise ------------------------------------------------------------------------
    def _with(self, st: ast.With, scope):
        return self._with_items(st, 0, scope)

    def _with_items(self, st: ast.With, i: int, scope):
        if i == len(st.items):
            return self.exec_block(st.body, scope)
        item = st.items[i]
        cm = self.eval(item.context_expr, scope)
        self.policy.check_context_manager(cm)
        entered = cm.__enter__()
        if item.optional_vars is not None:
            self.assign(item.optional_vars, entered, scope)
        try:
            sig = self._with_items(st, i + 1, scope)
        except BaseException as e:
            if not cm.__exit__(type(e), e, e.__traceback__):
                raise
            return None
        cm.__exit__(None, None, None)
        return sig

    def _try(self, st: ast.Try, scope):
        try:
            try:
                sig = self.exec_block(st.body, scope)
            except UNCATCHABLE:
                raise
            except Exception as e:
                scrub_args(e)
                handler = self._handler_for(st, e, scope)
                if handler is None:
                    raise
                if handler.name:
                    scope.vars[handler.name] = e
                scope.handling.append(e)
                try:
                    return self.exec_block(handler.body, scope)
                finally:
                    scope.handling.pop()
                    if handler.name:
                        scope.vars.pop(handler.name, None)
            if sig is not None:
                return sig
            return self.exec_block(st.orelse, scope)
        finally:
            if st.finalbody:
                fin = self.exec_block(st.finalbody, scope)
                if fin is not None:
                    return fin  # noqa: B012 - Python's semantics: finally's break/return wins

    def _handler_for(self, st: ast.Try, e: Exception, scope):
        for h in st.handlers:
            if h.type is None:
                return h
            classes = self.eval(h.type, scope)
            for c in classes if isinstance(classes, tuple) else (classes,):
                if not (isinstance(c, type) and issubclass(c, BaseException)):
                    raise TypeError("catching classes that do not inherit from BaseException is not allowed")
            if isinstance(e, classes):
                return h
        return None

    def _raise(self, st: ast.Raise, scope):
        if st.exc is None:
            s = scope
            while s is not None:
                if s.handling:
                    raise s.handling[-1]
                s = s.parent
            raise RuntimeError("No active exception to reraise")
        exc = self.eval(st.exc, scope)
        if isinstance(exc, type) and exc in EXCEPTIONS:
            exc = exc()
        if not isinstance(exc, BaseException) or isinstance(exc, UNCATCHABLE):
            raise TypeError("exceptions must derive from BaseException")
        raise exc

    _stmt = {
        ast.Expr: _expr_stmt, ast.Assign: _assign, ast.AnnAssign: _annassign, ast.AugAssign: _augassign,
        ast.If: _if, ast.For: _for, ast.While: _while, ast.Return: _return,
        ast.Break: lambda self, st, scope: BREAK, ast.Continue: lambda self, st, scope: CONTINUE,
        ast.Pass: lambda self, st, scope: None, ast.Delete: _delete, ast.Assert: _assert,
        ast.FunctionDef: _functiondef, ast.ClassDef: _classdef, ast.Import: _import,
        ast.ImportFrom: _importfrom, ast.With: _with, ast.Try: _try, ast.Raise: _raise,
    }


__all__ = ["Interpreter", "UNCATCHABLE"]

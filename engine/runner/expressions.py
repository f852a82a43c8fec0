"""Evaluating expressions: the expression half of the interpreter (a mixin of ``Interpreter``)."""

from __future__ import annotations

import ast
import operator

from ..nn.module import Module, name_module
from ..nn.parameter import Parameter
from ..tensor import Tensor
from .errors import ForbiddenError
from .formatting import format_value, percent_format
from .functions import Callback, Scope, SuperProxy, UserFunction, local_names
from .positions import tag_error
from .safe_builtins import SUPER

BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.MatMult: operator.matmul,
}
INPLACE = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.Div: operator.itruediv,
    ast.FloorDiv: operator.ifloordiv, ast.Mod: operator.imod, ast.Pow: operator.ipow,
    ast.LShift: operator.ilshift, ast.RShift: operator.irshift, ast.BitOr: operator.ior,
    ast.BitXor: operator.ixor, ast.BitAnd: operator.iand, ast.MatMult: operator.imatmul,
}
COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}


class _Unbound:
    pass


UNBOUND = _Unbound()

# Arguments that engine code gets as they are (``prepare_arg`` would return them unchanged: no
# container, no iterator, nothing callable).
PLAIN_ARGUMENTS = frozenset({Tensor, Parameter, int, float, bool, str, type(None)})
_NAME, _CONSTANT = ast.Name, ast.Constant


class Expressions:
    """Expression evaluation. Expects ``self.guard``, ``self.policy``, ``self.rec``, ``self.pos``,
    ``self.loops``."""

    def eval(self, node, scope: Scope):
        """The value of expression ``node``; an exception leaving it is tagged with its position."""
        try:
            kind = type(node)
            if kind is _NAME:  # the commonest node: a name bound in the innermost scope is one lookup
                v = scope.vars.get(node.id, UNBOUND)
                return v if v is not UNBOUND else self.lookup(node.id, scope)
            if kind is _CONSTANT:
                return node.value
            return self._expr[kind](self, node, scope)
        except Exception as e:
            tag_error(e, node)
            raise

    # ---- names -----------------------------------------------------------------------------------
    def lookup(self, name: str, scope: Scope):
        s = scope
        while s is not None:
            v = s.vars.get(name, UNBOUND)
            if v is not UNBOUND:
                return v
            if s.local_names is not None and name in s.local_names:
                raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated "
                                        "with a value")
            s = s.parent
        v = self.prelude.get(name, UNBOUND)
        if v is not UNBOUND:
            return v
        v = self.builtins.get(name, UNBOUND)
        if v is not UNBOUND:
            return v
        raise NameError(f"name '{name}' is not defined")

    def bind(self, name: str, value, scope: Scope) -> None:
        scope.vars[name] = value
        rec = self.rec
        if isinstance(value, Tensor):
            if rec is not None:
                rec.name_tensor(value, name)
        elif isinstance(value, Module):
            name_module(value, name)

    def _name(self, node: ast.Name, scope):
        return self.lookup(node.id, scope)

    def _constant(self, node: ast.Constant, scope):
        return node.value

    # ---- operators -------------------------------------------------------------------------------
    def binop(self, op: type, a, b):
        """``a op b`` with the size checks; also used by the builtins (sum, pow)."""
        if type(a) is Tensor and type(b) is Tensor:
            # Two tensors: the only check is the broadcast's size, and only for different shapes.
            sa, sb = a._data.shape, b._data.shape
            if sa != sb and sa and sb:
                self.guard.check_broadcast(op, a, b)
            return self.guard.result(BINOPS[op](a, b))
        if op is ast.Mod and type(a) is str:
            return percent_format(a, b, self.guard)
        self.guard.check_binop(op, a, b)
        return self.guard.result(BINOPS[op](a, b))

    def _binop(self, node: ast.BinOp, scope):
        a = self.eval(node.left, scope)
        b = self.eval(node.right, scope)
        self.at(node)
        return self.binop(type(node.op), a, b)

    def inplace(self, op: type, a, b):
        if op is ast.Mod and type(a) is str:
            return percent_format(a, b, self.guard)
        self.guard.check_binop(op, a, b)
        return self.guard.result(INPLACE[op](a, b))

    def _unaryop(self, node: ast.UnaryOp, scope):
        v = self.eval(node.operand, scope)
        if type(node.op) is ast.Not:
            return not v
        self.at(node)
        return UNARY[type(node.op)](v)

    def _boolop(self, node: ast.BoolOp, scope):
        is_and = type(node.op) is ast.And
        v = None
        for e in node.values:
            v = self.eval(e, scope)
            if bool(v) != is_and:
                return v
        return v

    def _compare(self, node: ast.Compare, scope):
        left = self.eval(node.left, scope)
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(comp, scope)
            self.at(node)
            t = type(op)
            if t is ast.In:
                res = self.guard.contains(left, right)
            elif t is ast.NotIn:
                res = not self.guard.contains(left, right)
            else:
                if isinstance(left, Tensor) or isinstance(right, Tensor):
                    self.guard.check_broadcast(t, left, right)
                res = COMPARE[t](left, right)
            if len(node.ops) == 1:
                return res
            if not res:
                return res
            left = right
        return res

    def _ifexp(self, node: ast.IfExp, scope):
        return self.eval(node.body if self.eval(node.test, scope) else node.orelse, scope)

    # ---- attributes, items -----------------------------------------------------------------------
    def _attribute(self, node: ast.Attribute, scope):
        obj = self.eval(node.value, scope)
        self.at(node)
        return self.policy.get_attr(obj, node.attr)

    def _subscript(self, node: ast.Subscript, scope):
        obj = self.eval(node.value, scope)
        key = self.eval(node.slice, scope)
        self.at(node)
        return self.guard.result(obj[key])

    def _slice(self, node: ast.Slice, scope):
        lo = self.eval(node.lower, scope) if node.lower is not None else None
        hi = self.eval(node.upper, scope) if node.upper is not None else None
        st = self.eval(node.step, scope) if node.step is not None else None
        return slice(lo, hi, st)

    # ---- displays --------------------------------------------------------------------------------
    def _elements(self, elts, scope) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self.guard.consume(self.eval(e.value, scope)))
            else:
                out.append(self.eval(e, scope))
            self.guard.list_len(len(out))
        return out

    def _list(self, node: ast.List, scope):
        return self._elements(node.elts, scope)

    def _tuple(self, node: ast.Tuple, scope):
        return tuple(self._elements(node.elts, scope))

    def _set(self, node: ast.Set, scope):
        return set(self._elements(node.elts, scope))

    def _dict(self, node: ast.Dict, scope):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                src = self.eval(v, scope)
                if not isinstance(src, dict):
                    raise TypeError(f"'{type(src).__name__}' object is not a mapping")
                out.update(src)
            else:
                key = self.eval(k, scope)
                out[key] = self.eval(v, scope)
        self.guard.list_len(len(out))
        return out

    # ---- comprehensions --------------------------------------------------------------------------
    def _comprehension(self, node, scope, make):
        inner = Scope(scope, "comprehension", local_names=None)
        out = []
        self._comp_loop(node, node.generators, 0, inner, scope, make, out)
        return out

    def _comp_loop(self, node, gens, i, inner, outer, make, out) -> None:
        gen = gens[i]
        # The first iterable is evaluated in the enclosing scope (as in Python).
        iterable = self.eval(gen.iter, outer if i == 0 else inner)
        loops = self.loops
        loop = loops.start(gen, node)
        try:
            for k, item in enumerate(iterable):
                self.guard.tick()
                it = loops.iteration(loop, k)
                try:
                    self.assign(gen.target, item, inner)
                    if all(self.eval(c, inner) for c in gen.ifs):
                        if i + 1 < len(gens):
                            self._comp_loop(node, gens, i + 1, inner, outer, make, out)
                        else:
                            out.append(make(node, inner))
                            if len(out) > self.guard.s.max_list_items:
                                self.guard.list_len(len(out))
                finally:
                    loops.end(it)
        finally:
            loops.end(loop)

    def _listcomp(self, node: ast.ListComp, scope):
        return self._comprehension(node, scope, lambda n, s: self.eval(n.elt, s))

    def _genexp(self, node: ast.GeneratorExp, scope):
        """A lazy generator, as in Python (``any(x > 5 for x in range(10**9))`` stops early); the
        first iterable is evaluated now, in the enclosing scope."""
        first = self.eval(node.generators[0].iter, scope)
        return self._gen_level(node, 0, Scope(scope, "comprehension"), first)

    def _gen_level(self, node: ast.GeneratorExp, i: int, inner: Scope, iterable):
        gen = node.generators[i]
        if iterable is None:
            iterable = self.eval(gen.iter, inner)
        last = i + 1 == len(node.generators)
        # The loop's scope is open only while an element is computed, never across a yield: what
        # the consumer records between two elements is not part of the loop.
        loops = self.loops
        loop = loops.start(gen, node)
        loops.end(loop)
        for k, item in enumerate(iterable):
            self.guard.tick()
            loops.resume(loop)
            it = loops.iteration(loop, k)
            try:
                self.assign(gen.target, item, inner)
                keep = all(self.eval(c, inner) for c in gen.ifs)
                value = self.eval(node.elt, inner) if keep and last else None
            finally:
                loops.end(it)
                loops.end(loop)
            if keep:
                if last:
                    yield value
                else:
                    yield from self._gen_level(node, i + 1, inner, None)

    def _setcomp(self, node: ast.SetComp, scope):
        return set(self._comprehension(node, scope, lambda n, s: self.eval(n.elt, s)))

    def _dictcomp(self, node: ast.DictComp, scope):
        pairs = self._comprehension(node, scope, lambda n, s: (self.eval(n.key, s), self.eval(n.value, s)))
        return dict(pairs)

    # ---- strings ---------------------------------------------------------------------------------
    def _joinedstr(self, node: ast.JoinedStr, scope):
        parts = []
        size = 0
        for v in node.values:
            text = v.value if isinstance(v, ast.Constant) else self.eval(v, scope)
            parts.append(text)
            size += len(text)
            self.guard.str_len(size)
        return "".join(parts)

    def _formattedvalue(self, node: ast.FormattedValue, scope):
        value = self.eval(node.value, scope)
        spec = self.eval(node.format_spec, scope) if node.format_spec is not None else ""
        conv = None if node.conversion == -1 else chr(node.conversion)
        self.at(node)
        return format_value(value, spec, conv, self.guard)

    # ---- functions -------------------------------------------------------------------------------
    def _lambda(self, node: ast.Lambda, scope):
        return self.make_function(node, "<lambda>", scope)

    def make_function(self, node, name: str, scope: Scope) -> UserFunction:
        a = node.args
        defaults = tuple(self.eval(d, scope) for d in a.defaults)
        kw_defaults = {arg.arg: self.eval(d, scope) for arg, d in zip(a.kwonlyargs, a.kw_defaults)
                       if d is not None}
        return UserFunction(node, name, scope.enclosing_for_def(), defaults, kw_defaults, self,
                            local_names(node))

    def _namedexpr(self, node: ast.NamedExpr, scope):
        value = self.eval(node.value, scope)
        self.bind(node.target.id, value, scope)
        return value

    def _call(self, node: ast.Call, scope):
        f = self.eval(node.func, scope)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.guard.consume(self.eval(a.value, scope)))
            else:
                args.append(self.eval(a, scope))
        kwargs = {}
        for kw in node.keywords:
            value = self.eval(kw.value, scope)
            if kw.arg is None:
                if not isinstance(value, dict):
                    raise TypeError(f"argument after ** must be a mapping, not {type(value).__name__}")
                for k in value:
                    if not isinstance(k, str):
                        raise TypeError("keywords must be strings")
                    if k.startswith("_"):
                        raise ForbiddenError(f"keyword argument '{k}' is not available in gradviz")
                    if k in kwargs:
                        raise TypeError(f"got multiple values for keyword argument '{k}'")
                kwargs.update(value)
            else:
                if kw.arg in kwargs:
                    raise TypeError(f"got multiple values for keyword argument '{kw.arg}'")
                kwargs[kw.arg] = value
        self.at(node)
        if f is SUPER:
            return self.make_super(args, scope)
        result = self.call(f, args, kwargs)
        self.at(node)  # ops after the call (in the same expression) belong here again
        return result

    def call(self, f, args, kwargs: dict):
        """The one checked call path: every call the program makes, and every call builtins or
        engine code make of a callable the program gave them (``Callback``), runs through here.
        The policy refuses what may not be called; engine code gets its arguments prepared."""
        if self.policy.check_call(f):
            for a in args:
                if type(a) not in PLAIN_ARGUMENTS:
                    args = [self.prepare_arg(a) for a in args]
                    break
            if kwargs:
                kwargs = {k: self.prepare_arg(v) for k, v in kwargs.items()}
        return self.guard.result(f(*args, **kwargs))

    def prepare_arg(self, value):
        """An argument for engine code: lazy iterators made concrete (counted), nested lists bounded,
        callables of the program as ``Callback``s."""
        if type(value) in PLAIN_ARGUMENTS:
            return value
        if type(value) in (list, tuple, dict):
            self.guard.check_nested(value)
        elif hasattr(value, "__next__") and not isinstance(value, (Tensor, Module)):
            return self.guard.consume(value)
        return self.callback(value)

    def callback(self, value):
        """``value`` as it may be handed to code outside the interpreter (engine code, a builtin's
        own calls, an attribute or class attribute): a callable that engine code would run directly
        becomes a ``Callback`` (its calls come back through ``call``), and a callable the program
        may not call at all is refused now. Data, engine objects (modules), classes the program may
        call, and the interpreter's own callables (user functions, safe builtins) stay as they are:
        calling them is already checked or interpreted."""
        if not callable(value) or self.policy.is_engine_instance(value) or type(value) is Callback:
            return value
        if self.policy.check_call(value) and not isinstance(value, type):
            return Callback(value, self)
        return value

    def make_super(self, args: list, scope: Scope) -> SuperProxy:
        if args:
            if len(args) != 2:
                raise TypeError("super() takes zero or two arguments in gradviz")
            cls, obj = args
            if cls not in self.user_classes:
                raise ForbiddenError("super(cls, obj) needs a class defined by the program")
            if not isinstance(obj, cls):
                raise TypeError("super(type, obj): obj must be an instance or subtype of type")
            return SuperProxy(cls, obj)
        s = scope
        while s is not None and s.kind != "function":
            s = s.parent
        fn = s.func if s is not None else None
        if fn is None or fn.owner is None:
            raise RuntimeError("super(): no arguments (use it inside a method of a class)")
        params = fn.node.args.posonlyargs + fn.node.args.args
        if not params or params[0].arg not in s.vars:
            raise RuntimeError("super(): no arguments")
        return SuperProxy(fn.owner, s.vars[params[0].arg])

    _expr = {
        ast.Name: _name, ast.Constant: _constant, ast.BinOp: _binop, ast.UnaryOp: _unaryop,
        ast.BoolOp: _boolop, ast.Compare: _compare, ast.IfExp: _ifexp, ast.Attribute: _attribute,
        ast.Subscript: _subscript, ast.Slice: _slice, ast.List: _list, ast.Tuple: _tuple, ast.Set: _set,
        ast.Dict: _dict, ast.ListComp: _listcomp, ast.GeneratorExp: _genexp, ast.SetComp: _setcomp,
        ast.DictComp: _dictcomp, ast.JoinedStr: _joinedstr, ast.FormattedValue: _formattedvalue,
        ast.Lambda: _lambda, ast.NamedExpr: _namedexpr, ast.Call: _call,
    }

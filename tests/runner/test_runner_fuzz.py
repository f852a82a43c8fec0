"""Property-based fuzzing: random source text and random ASTs (unparsed to source). ``run_program``
never raises anything but ``ProgramError``; every failure is a reported ``UserError``; the engine's
global state is restored after each run."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import limits
from engine import trace as trace_mod
from engine.runner import ProgramError, RunResult, Settings, UserError, run_program

FAST = Settings(timeout_s=2.0, max_loop_iterations=2_000, max_ops=300, max_recursion=20,
                max_tensor_elements=10_000, max_str_chars=10_000, max_list_items=10_000)
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))

NAMES = ["x", "y", "t", "w", "f", "torch", "nn", "F", "print", "len", "range", "sum", "list", "str", "int",
         "float", "abs", "max", "min", "isinstance", "enumerate", "zip", "sorted", "super", "object"]
ATTRS = ["ones", "zeros", "tensor", "sum", "mean", "backward", "grad", "shape", "item", "relu", "sigmoid",
         "exp", "view", "T", "numpy", "detach", "requires_grad", "append", "format", "join", "upper",
         "data", "Linear", "nn", "functional", "no_grad", "tolist", "__class__", "__dict__", "_data", "real"]
TOKENS = ["x", "=", "(", ")", "[", "]", "{", "}", ":", ",", ".", "+", "*", "**", "-", "/", "torch",
          "tensor", "ones", "1", "2.5", "'s'", "f'{x}'", "\n", "    ", "def", "return", "if", "for", "in",
          "range", "while", "lambda", "print", "class", "import", "__class__", "not", "and", "#", "\\",
          "@", "backward", "()", "with", "try", "except", "yield", "%", "'{0}'.format", "\t", "\x00"]


def _check(result_or_error) -> None:
    assert limits.ACTIVE is None
    assert trace_mod.ACTIVE is None
    assert engine.is_grad_enabled()
    if isinstance(result_or_error, RunResult):
        err = result_or_error.error
        if err is not None:
            assert isinstance(err, UserError) and isinstance(err.type, str) and isinstance(err.message, str)
            assert err.line is None or err.line >= 1
            assert err.col is None or err.col >= 1
    else:
        assert isinstance(result_or_error.error, UserError)


def _run(source: str, variables=None) -> None:
    try:
        res = run_program(source, variables, FAST)
    except ProgramError as e:
        res = e
    _check(res)


@FUZZ
@given(st.text(max_size=200))
def test_random_text(source):
    _run(source)


@FUZZ
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join))
def test_random_token_soup(source):
    _run(source)


# ---- random ASTs ------------------------------------------------------------------------------------
constants = st.one_of(st.integers(-5, 10**6), st.floats(allow_nan=True, allow_infinity=True, width=32),
                      st.text(max_size=5), st.booleans(), st.none(), st.just(10**30))
names = st.sampled_from(NAMES).map(lambda n: ast.Name(id=n, ctx=ast.Load()))
binops = st.sampled_from([ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift,
                          ast.MatMult, ast.BitAnd])
cmpops = st.sampled_from([ast.Lt, ast.Eq, ast.NotEq, ast.In, ast.Is, ast.GtE])


def _name(n: str) -> ast.Name:
    return ast.Name(id=n, ctx=ast.Load())


def _call(fn: str, *args) -> ast.Call:
    return ast.Call(_name(fn), list(args), [])


def _one_arg() -> ast.arguments:
    return ast.arguments([], [ast.arg("x")], None, [], [], None, [])


def _no_grad() -> ast.Call:
    return ast.Call(ast.Attribute(_name("torch"), "no_grad", ast.Load()), [], [])


def _extend(expr):
    return st.one_of(
        st.builds(lambda a, op, b: ast.BinOp(a, op(), b), expr, binops, expr),
        st.builds(lambda op, a: ast.UnaryOp(op(), a), st.sampled_from([ast.USub, ast.Not, ast.Invert]), expr),
        st.builds(lambda a, op, b: ast.Compare(a, [op()], [b]), expr, cmpops, expr),
        st.builds(lambda a, b: ast.BoolOp(ast.And(), [a, b]), expr, expr),
        st.builds(lambda f, args: ast.Call(f, args, []), st.one_of(names, _attr(expr)),
                  st.lists(expr, max_size=3)),
        _attr(expr),
        st.builds(lambda v, i: ast.Subscript(v, i, ast.Load()), expr, expr),
        st.builds(lambda xs: ast.List(xs, ast.Load()), st.lists(expr, max_size=4)),
        st.builds(lambda xs: ast.Tuple(xs, ast.Load()), st.lists(expr, max_size=3)),
        st.builds(lambda k, v: ast.Dict([k], [v]), expr, expr),
        st.builds(lambda a, b, c: ast.IfExp(a, b, c), expr, expr, expr),
        st.builds(lambda v, spec: ast.JoinedStr([ast.FormattedValue(v, -1, spec)]), expr,
                  st.one_of(st.none(), st.sampled_from([".2f", ">5", "d", "{x}", "!r"]).map(
                      lambda s: ast.JoinedStr([ast.Constant(s)])))),
        st.builds(lambda body: ast.Lambda(_one_arg(), body), expr),
        st.builds(lambda e, it: ast.ListComp(e, [ast.comprehension(ast.Name("x", ast.Store()), it, [], 0)]),
                  expr, expr),
    )


def _attr(expr):
    return st.builds(lambda v, a: ast.Attribute(v, a, ast.Load()), expr, st.sampled_from(ATTRS))


exprs = st.recursive(st.one_of(constants.map(ast.Constant), names), _extend, max_leaves=12)
targets = st.sampled_from(["x", "y", "t", "w"]).map(lambda n: ast.Name(id=n, ctx=ast.Store()))


def _stmts(stmt):
    block = st.lists(stmt, min_size=1, max_size=3)
    return st.one_of(
        st.builds(lambda t, v: ast.Assign([t], v), targets, exprs),
        st.builds(lambda t, op, v: ast.AugAssign(t, op(), v), targets, binops, exprs),
        st.builds(ast.Expr, exprs),
        st.builds(lambda c, b, o: ast.If(c, b, o), exprs, block, st.lists(stmt, max_size=2)),
        st.builds(lambda t, n, b: ast.For(t, _call("range", ast.Constant(n)), b, []),
                  targets, st.integers(0, 50), block),
        st.builds(lambda c, b: ast.While(c, b + [ast.Break()], []), exprs, block),
        st.builds(lambda b, r: ast.FunctionDef("f", _one_arg(), b + [ast.Return(r)], [], None), block, exprs),
        st.builds(lambda b, h: ast.Try(b, [ast.ExceptHandler(_name("Exception"), "e", h)], [], []),
                  block, block),
        st.builds(lambda b: ast.With([ast.withitem(_no_grad(), None)], b), block),
    )


simple_stmts = st.one_of(st.builds(lambda t, v: ast.Assign([t], v), targets, exprs),
                         st.builds(ast.Expr, exprs))
statements = st.recursive(simple_stmts, _stmts, max_leaves=8)
PREAMBLE = "x = torch.ones(3, requires_grad=True)\nt = torch.tensor([1.0, 2.0])\ny = 2\nw = 'ab'\n"


@FUZZ
@given(st.lists(statements, min_size=1, max_size=5))
def test_random_programs(body):
    module = ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))
    try:
        source = ast.unparse(module)
    except Exception:  # a tree unparse cannot render is not a program
        return
    _run(PREAMBLE + source)


@FUZZ
@given(exprs, st.floats(-3, 3, width=32))
def test_random_expressions(expr, value):
    try:
        source = ast.unparse(ast.fix_missing_locations(ast.Expression(expr)))
    except Exception:
        return
    variables = {"x": {"value": value}, "y": {"value": [value, 1.0]},
                 "w": {"value": 2.0, "requires_grad": False}}
    _run(source, variables)

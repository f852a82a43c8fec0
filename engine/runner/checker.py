"""Static checks before anything runs: source size, syntax, AST size and nesting, forbidden
constructs, imports, underscore names, and names that are never bound anywhere.

Every refusal is a ``ProgramError`` with a clear message and the position of the construct.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..errors import NOT_SUPPORTED
from .generators import PLACEMENT, misplaced_yield
from .libraries import LIBRARIES, library_has
from .policy import READABLE_DUNDERS, READABLE_PRIVATE, TORCH_MODULES, Policy
from .positions import Positions
from .results import ProgramError, Settings, UserError
from .safe_builtins import Builtins
from .torch_names import MODULES as TORCH_NAMES
from .unsupported import pytorch_has

_REFUSED = {
    ast.Global: "'global' statements are not supported by gradviz",
    ast.Nonlocal: "'nonlocal' statements are not supported by gradviz",
    ast.AsyncFunctionDef: "async functions are not supported by gradviz",
    ast.AsyncFor: "async for is not supported by gradviz",
    ast.AsyncWith: "async with is not supported by gradviz",
    ast.Await: "await is not supported by gradviz",
    ast.Match: "match statements are not supported by gradviz",
}
if hasattr(ast, "TryStar"):
    _REFUSED[ast.TryStar] = "except* is not supported by gradviz"

PRELUDE_NAMES = ("torch", "nn", "F", "optim", "__name__")


@dataclass
class CheckedProgram:
    """A parsed program that passed the static checks."""

    tree: ast.Module
    mode: str  # "expression" | "program"
    positions: Positions
    free_names: list[str] = field(default_factory=list)
    torch_functions: dict[str, object] = field(default_factory=dict)  # expression mode: sigmoid(...) etc.


def _fail(kind: str, message: str, pos=(None, None)) -> ProgramError:
    return ProgramError(UserError(kind, message, pos[0], pos[1]))


def parse(source: str, settings: Settings) -> ast.Module:
    """``ast.parse`` with the source limit; syntax errors and parser exhaustion as ProgramError."""
    if not isinstance(source, str):
        raise _fail("TypeError", "the source must be a string")
    if len(source) > settings.max_source_chars:
        raise _fail("LimitError", f"the source has {len(source):,} characters; the limit is "
                    f"{settings.max_source_chars:,} (limit: max_source_chars)")
    try:
        return ast.parse(source, mode="exec")
    except SyntaxError as e:
        line = e.lineno
        col = e.offset if e.offset and e.offset > 0 else None
        return _raise(_fail(type(e).__name__ if type(e).__name__ in ("IndentationError", "TabError")
                            else "SyntaxError", e.msg or "invalid syntax", (line, col)))
    except (RecursionError, MemoryError):
        raise _fail("LimitError", f"the code is nested too deeply (more than {settings.max_nesting} levels) "
                    "(limit: max_nesting)") from None
    except ValueError as e:  # null bytes
        raise _fail("SyntaxError", str(e)) from None


def _raise(err):
    raise err


def check(source: str, variables: dict, settings: Settings, policy: Policy) -> CheckedProgram:
    """Run every static check; return the program ready to interpret."""
    tree = parse(source, settings)
    pos = Positions(source)
    _walk(tree, settings, policy, pos)
    stray, in_function = misplaced_yield(tree)
    if stray is not None:
        if not in_function:
            raise _fail("SyntaxError", f"'{'yield' if type(stray) is ast.Yield else 'yield from'}' outside "
                        "function", pos.of(stray))
        raise _fail("ForbiddenError", PLACEMENT, pos.of(stray))
    mode = "expression" if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) else "program"
    prog = CheckedProgram(tree=tree, mode=mode, positions=pos)
    _names(prog, variables, policy)
    return prog


def _walk(tree: ast.Module, settings: Settings, policy: Policy, pos: Positions) -> None:
    """One iterative pass over the tree: size, depth, forbidden constructs, context rules."""
    count = 0
    # (node, depth, in_function, in_loop, in_class_body)
    stack = [(tree, 0, False, False, False)]
    while stack:
        node, depth, in_fn, in_loop, in_class = stack.pop()
        count += 1
        if count > settings.max_ast_nodes:
            raise _fail("LimitError", f"the program has more than {settings.max_ast_nodes:,} syntax nodes "
                        "(limit: max_ast_nodes)")
        if depth > settings.max_nesting:
            raise _fail("LimitError", f"the code is nested more than {settings.max_nesting} levels deep "
                        "(limit: max_nesting)", pos.of(node))
        _check_node(node, in_fn, in_loop, in_class, settings, policy, pos)
        kind = type(node)
        children = []
        for name, value in ast.iter_fields(node):
            if kind in (ast.FunctionDef, ast.Lambda) and name == "body":
                ctx = (True, False, False)  # a new function: no loop around it
            elif kind is ast.ClassDef and name == "body":
                ctx = (False, False, True)
            elif kind in (ast.For, ast.While) and name == "body":
                ctx = (in_fn, True, False)
            else:
                ctx = (in_fn, in_loop, False)
            for c in value if isinstance(value, list) else [value]:
                if isinstance(c, ast.AST):
                    children.append((c, *ctx))
        for c, f, lp, cl in reversed(children):
            stack.append((c, depth + 1, f, lp, cl))


def _dunder(name: str) -> bool:
    return name.startswith("__")


def _check_node(node, in_fn, in_loop, in_class, settings, policy, pos) -> None:
    kind = type(node)
    if kind in _REFUSED:
        raise _fail("ForbiddenError", _REFUSED[kind], pos.of(node))
    if kind is ast.Name:
        if _dunder(node.id) and not (node.id == "__name__" and isinstance(node.ctx, ast.Load)):
            raise _fail("ForbiddenError", f"the name '{node.id}' is not available in gradviz "
                        "(names starting with '__' are reserved)", pos.of(node))
    elif kind is ast.Attribute:
        if node.attr.startswith("_") and not _is_super_init(node) and not (
                (node.attr in READABLE_DUNDERS or node.attr in READABLE_PRIVATE)
                and isinstance(node.ctx, ast.Load)):
            raise _fail("ForbiddenError", f"attribute '{node.attr}' is not available in gradviz "
                        "(attributes starting with '_' are private)", pos.of(node))
    elif kind is ast.FunctionDef:
        if _dunder(node.name) and not (in_class and node.name == "__init__"):
            raise _fail("ForbiddenError", f"defining '{node.name}' is not supported by gradviz "
                        "(only __init__ among the special methods)", pos.of(node))
        _check_args(node.args, node.name, pos, node)
    elif kind is ast.Lambda:
        _check_args(node.args, "<lambda>", pos, node)
    elif kind is ast.ClassDef:
        if node.keywords:
            raise _fail("ForbiddenError", "class keywords (metaclass=...) are not supported by gradviz",
                        pos.of(node))
        if node.decorator_list:
            raise _fail("ForbiddenError", "class decorators are not supported by gradviz", pos.of(node))
        if _dunder(node.name):
            raise _fail("ForbiddenError", f"the class name '{node.name}' is not allowed", pos.of(node))
    elif kind is ast.keyword:
        if node.arg is not None and node.arg.startswith("_"):
            raise _fail("ForbiddenError", f"keyword argument '{node.arg}' is not available in gradviz",
                        pos.of(node))
    elif kind is ast.ExceptHandler:
        if node.name and _dunder(node.name):
            raise _fail("ForbiddenError", f"the name '{node.name}' is not allowed", pos.of(node))
    elif kind is ast.Constant:
        if isinstance(node.value, bytes):
            raise _fail("ForbiddenError", "bytes literals are not supported by gradviz", pos.of(node))
        if type(node.value) is int and node.value.bit_length() > settings.max_int_bits:
            raise _fail("LimitError", f"an integer literal of {node.value.bit_length():,} bits is over "
                        f"the limit of {settings.max_int_bits:,} bits (limit: max_int_bits)", pos.of(node))
    elif kind is ast.Return and not in_fn:
        raise _fail("SyntaxError", "'return' outside function", pos.of(node))
    elif kind is ast.Break and not in_loop:
        raise _fail("SyntaxError", "'break' outside loop", pos.of(node))
    elif kind is ast.Continue and not in_loop:
        raise _fail("SyntaxError", "'continue' not properly in loop", pos.of(node))
    elif kind in (ast.Import, ast.ImportFrom):
        _check_import(node, policy, pos)
    elif kind in (ast.Assign, ast.For, ast.comprehension):
        targets = node.targets if kind is ast.Assign else [node.target]
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)) and sum(isinstance(e, ast.Starred) for e in t.elts) > 1:
                raise _fail("SyntaxError", "multiple starred expressions in assignment", pos.of(t))


def _is_super_init(node: ast.Attribute) -> bool:
    """``super().__init__`` or ``Base.__init__`` (``nn.Module.__init__(self)``); the runtime check
    makes sure ``Base`` is a class of the program or of the engine."""
    v = node.value
    if node.attr != "__init__":
        return False
    if isinstance(v, ast.Call):
        return isinstance(v.func, ast.Name) and v.func.id == "super"
    return isinstance(v, (ast.Name, ast.Attribute))


def _check_args(args: ast.arguments, fname: str, pos, node) -> None:
    seen = set()
    every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
    for a in every:
        if _dunder(a.arg):
            raise _fail("ForbiddenError", f"the parameter name '{a.arg}' is not allowed", pos.of(a))
        if a.arg in seen:
            raise _fail("SyntaxError", f"duplicate argument '{a.arg}' in function definition", pos.of(node))
        seen.add(a.arg)


def _allowed_modules_text(policy: Policy) -> str:
    names = [name for name in TORCH_MODULES if policy.module_for(name) is not None] + list(LIBRARIES)
    return ", ".join(names)


def _check_import(node, policy: Policy, pos) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if policy.module_for(alias.name) is None:
                if pytorch_has(alias.name):
                    continue  # not supported where it is used (engine/runner/unsupported.py)
                raise _fail("ForbiddenError", f"import of '{alias.name}' is not allowed: gradviz runs "
                            f"PyTorch code only ({_allowed_modules_text(policy)} can be imported)",
                            pos.of(node))
        return
    if node.level or node.module is None:
        raise _fail("ForbiddenError", "relative imports are not allowed in gradviz", pos.of(node))
    mod = policy.module_for(node.module)
    if mod is None:
        if pytorch_has(node.module):
            return
        raise _fail("ForbiddenError", f"import from '{node.module}' is not allowed: gradviz runs PyTorch "
                    f"code only ({_allowed_modules_text(policy)} can be imported)", pos.of(node))
    for alias in node.names:
        if alias.name != "*" and alias.name not in policy.module_attrs[mod]:
            if alias.name in TORCH_NAMES.get(node.module, ()):
                continue
            if library_has(mod, alias.name):
                raise _fail("NotSupportedError", NOT_SUPPORTED + f"{node.module}.{alias.name}", pos.of(node))
            raise _fail("ImportError", f"cannot import name '{alias.name}' from '{node.module}'",
                        pos.of(node))


def _names(prog: CheckedProgram, variables: dict, policy: Policy) -> None:
    """Free names (expression mode) or names never bound anywhere (program mode: a ProgramError)."""
    bound: set[str] = set()
    loads: list[ast.Name] = []
    called: set[ast.Name] = set()
    for node in ast.walk(prog.tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.append(node)
            else:
                bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.Import):
            bound.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name == "*":
                    bound.update(policy.module_attrs[policy.module_for(node.module)])
                else:
                    bound.add(a.asname or a.name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func)

    known = bound | set(PRELUDE_NAMES) | set(Builtins(None, None).table()) | set(variables or {})
    torch_attrs = policy.module_attrs.get(policy.module_for("torch"), {})
    unknown = sorted((n for n in loads if n.id not in known), key=lambda n: (n.lineno, n.col_offset))
    if prog.mode == "expression":
        for n in unknown:
            if n in called:
                if callable(torch_attrs.get(n.id)):
                    prog.torch_functions[n.id] = torch_attrs[n.id]
                elif n.id not in (variables or {}):  # a function, not a value the page can ask for
                    raise _fail("NameError", f"name '{n.id}' is not defined", prog.positions.of(n))
        # Names given in `variables` that the expression uses are free names too.
        given = [n for n in sorted(loads, key=lambda n: (n.lineno, n.col_offset))
                 if n.id in (variables or {}) and n.id not in bound]
        first: dict[str, tuple[int, int]] = {}
        for n in sorted(list(unknown) + given, key=lambda n: (n.lineno, n.col_offset)):
            if n.id not in prog.torch_functions:
                first.setdefault(n.id, (n.lineno, n.col_offset))
        prog.free_names = list(first)
        return
    if unknown:
        n = unknown[0]
        hint = f" (did you mean torch.{n.id}?)" if n.id in torch_attrs else ""
        raise _fail("NameError", f"name '{n.id}' is not defined{hint}", prog.positions.of(n))

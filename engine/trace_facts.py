"""What the recorder (engine/trace.py) reads of an op table entry, worked out once per entry, and
the small tables ``Recorder.op_node`` reads for every op: it runs once per op of every program."""

from __future__ import annotations

import ast
from operator import itemgetter

import numpy as np

from .dtypes import from_numpy_dtype
from .ops.table import SAVED_INPUT, OpDef

_COMMUTED = ("add", "mul")  # ops a number written first runs with its operands swapped (__radd__, __rmul__)
NOWHERE = (None, None)  # (line, col) where the program's place is not known
first = itemgetter(0)
# A NumPy dtype -> the name of the engine's dtype for it (a tensor's ``.dtype.name``, looked up once)
DTYPE_NAMES = {np.dtype(t): from_numpy_dtype(np.dtype(t)).name
               for t in (np.float16, np.float32, np.float64, np.int64, np.int32, np.bool_)}
# id of an entry of the op table -> (the entry, what ``op_node`` reads of it): see ``op_facts``
OP_FACTS: dict[int, tuple] = {}
_SAVE_PLANS: dict[tuple, tuple] = {}  # an op's save keys -> ((key, tensor argument or None), ...)


def op_facts(op) -> tuple:
    """What ``Recorder.op_node`` reads of ``op``, in one tuple: the entry itself, its name, grad_fn
    name, description, formulas, save plan (``save_plan``), aux, variadic, whether a number written
    first swaps its operands, and whether it has several outputs. Kept for the op table's entries."""
    facts = (op, op.name, op.grad_fn, op.description, op.formulas, save_plan(op), op.aux, op.variadic,
             op.name in _COMMUTED, getattr(op, "multi", False))
    if type(op) is OpDef:
        OP_FACTS[id(op)] = facts
    return facts


def save_plan(op) -> tuple:
    """What ``op`` saves, as (key, index of the tensor argument it is, or None for the output)."""
    keys = op.save_keys
    plan = _SAVE_PLANS.get(keys)
    if plan is None:
        plan = _SAVE_PLANS[keys] = tuple((key, SAVED_INPUT.get(key)) for key in keys)
    return plan


def number_first(node) -> bool:
    """Whether AST ``node`` is a binary operation whose left operand is a number literal (``4 * x``)
    and whose right one is not."""
    return type(node) is ast.BinOp and _is_number(node.left) and not _is_number(node.right)


def _is_number(node) -> bool:
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) in (int, float)

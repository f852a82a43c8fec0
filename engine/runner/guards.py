"""Runtime limits of one run: loop iterations, call depth, wall time, and the size of integers,
strings, lists and tensor results, each checked *before* the value is built."""

from __future__ import annotations

import ast
import operator
import time

import numpy as np

from ..errors import LimitError
from ..tensor import Tensor
from .errors import ForbiddenError
from .results import Settings

_SEQ = (str, list, tuple)
_CONTAINERS = (list, tuple, str, dict, set, frozenset)


class Guard:
    """Counters and checks for one run."""

    def __init__(self, settings: Settings):
        self.s = settings
        self.iterations = 0
        self.depth = 0
        self.deadline = time.monotonic() + settings.timeout_s

    # ---- time, loops, calls ----------------------------------------------------------------------
    def tick(self, n: int = 1) -> None:
        """One (or ``n``) loop iterations."""
        self.iterations += n
        if self.iterations > self.s.max_loop_iterations:
            raise LimitError(f"the program ran more than {self.s.max_loop_iterations:,} loop iterations "
                             "(limit: max_loop_iterations)")
        if time.monotonic() > self.deadline:
            self.timeout()

    def timeout(self):
        raise LimitError(f"the program ran longer than {self.s.timeout_s:g} s (limit: timeout_s)")

    def enter_call(self) -> None:
        self.depth += 1
        if self.depth > self.s.max_recursion:
            self.depth -= 1
            raise LimitError(f"function calls nested more than {self.s.max_recursion} deep "
                             "(limit: max_recursion)")
        self.tick()

    def leave_call(self) -> None:
        self.depth -= 1

    # ---- sizes -----------------------------------------------------------------------------------
    def int_bits(self, bits: int) -> None:
        if bits > self.s.max_int_bits:
            raise LimitError(f"an integer of about {bits:,} bits is over the limit of "
                             f"{self.s.max_int_bits:,} bits (limit: max_int_bits)")

    def str_len(self, n: int) -> None:
        if n > self.s.max_str_chars:
            raise LimitError(f"a string of {n:,} characters is over the limit of {self.s.max_str_chars:,} "
                             "(limit: max_str_chars)")

    def list_len(self, n: int) -> None:
        if n > self.s.max_list_items:
            raise LimitError(f"a list of {n:,} items is over the limit of {self.s.max_list_items:,} "
                             "(limit: max_list_items)")

    def seq_len(self, seq, n: int) -> None:
        if isinstance(seq, str):
            self.str_len(n)
        else:
            self.list_len(n)

    def tensor_numel(self, n: int) -> None:
        if n > self.s.max_tensor_elements:
            raise LimitError(f"a tensor of {n:,} elements is over the limit of "
                             f"{self.s.max_tensor_elements:,} elements per tensor "
                             "(limit: max_tensor_elements)")

    def result(self, value):
        """Check a value just built (ints, strings, lists); returns it."""
        t = type(value)
        if t is int:
            if value.bit_length() > self.s.max_int_bits:
                self.int_bits(value.bit_length())
        elif t is str:
            if len(value) > self.s.max_str_chars:
                self.str_len(len(value))
        elif t is list or t is tuple:
            if len(value) > self.s.max_list_items:
                self.list_len(len(value))
        elif isinstance(value, Tensor):  # engine code that allocated outside the op table
            if value._data.size > self.s.max_tensor_elements:
                self.tensor_numel(value._data.size)
        elif t is np.ndarray:
            if value.size > self.s.max_tensor_elements:
                self.tensor_numel(value.size)
            if value.dtype.kind not in "biufc":  # object or string arrays escape every size limit
                raise ForbiddenError(f"NumPy arrays of dtype {value.dtype} are not supported by gradviz")
        return value

    # ---- operators -------------------------------------------------------------------------------
    def check_binop(self, op: type, a, b) -> None:
        """Refuse an operator whose result would be over a limit, before computing it."""
        if op is ast.Mult:
            if isinstance(a, _SEQ):
                self._repeat(a, b)
            elif isinstance(b, _SEQ):
                self._repeat(b, a)
            elif _is_int(a) and _is_int(b):
                self.int_bits(a.bit_length() + b.bit_length())
        elif op is ast.Add:
            if isinstance(a, _SEQ) and isinstance(b, _SEQ):
                self.seq_len(a, len(a) + len(b))
        elif op is ast.Pow:
            if _is_int(a) and _is_int(b) and b > 0 and a not in (0, 1, -1):
                self.int_bits(a.bit_length() * b if b < 10**9 else 10**18)
        elif op is ast.LShift:
            if _is_int(a) and _is_int(b) and a != 0 and b > 0:
                self.int_bits(a.bit_length() + b)
        if isinstance(a, (Tensor, np.ndarray)) or isinstance(b, (Tensor, np.ndarray)):
            self.check_broadcast(op, a, b)

    def _repeat(self, seq, n) -> None:
        if isinstance(n, (Tensor, np.ndarray)):
            arr = n._data if isinstance(n, Tensor) else n
            if arr.size != 1 or arr.dtype.kind not in "iub":
                return  # elementwise with a tensor, or an error of the op itself
            n = int(arr.reshape(()).item())
        n = operator.index(n)
        if n > 0:
            self.seq_len(seq, len(seq) * n)

    def check_broadcast(self, op: type, a, b) -> None:
        sa, sb = _shape(a), _shape(b)
        if sa is None or sb is None or sa == sb or not sa or not sb:
            return  # each operand is within the limits already, and so is the result
        if _prod(sa) * _prod(sb) <= self.s.max_tensor_elements:
            return  # a broadcast or matrix product is never bigger than that
        try:
            if op is ast.MatMult and len(sa) >= 2 and len(sb) >= 2:
                batch = np.broadcast_shapes(sa[:-2], sb[:-2])
                numel = _prod(batch) * sa[-2] * sb[-1]
            else:
                numel = _prod(np.broadcast_shapes(sa, sb))
        except ValueError:
            return  # the op raises its own shape error
        self.tensor_numel(numel)

    # ---- iteration -------------------------------------------------------------------------------
    def consume(self, iterable) -> list:
        """Materialize an iterable into a list, counting each item of a lazy one as an iteration."""
        if isinstance(iterable, _CONTAINERS):
            return list(iterable)
        if isinstance(iterable, range):
            self.list_len(len(iterable))
            self.tick(len(iterable))
            return list(iterable)
        out = []
        limit = self.s.max_list_items
        for item in iterable:
            self.tick()
            out.append(item)
            if len(out) > limit:
                self.list_len(len(out))
        return out

    def iterate(self, iterable):
        """Iterate lazily, counting each item of a lazy iterable as a loop iteration."""
        if isinstance(iterable, _CONTAINERS):
            yield from iterable
            return
        for item in iterable:
            self.tick()
            yield item

    def contains(self, item, container) -> bool:
        """``item in container`` without a C loop the limits cannot see."""
        if isinstance(container, _CONTAINERS) or isinstance(container, (Tensor, np.ndarray)):
            return item in container
        if isinstance(container, range):
            if type(item) in (int, bool):
                return item in container
            self.list_len(len(container))
            return item in container
        if not hasattr(container, "__next__"):
            return item in container
        for x in container:
            self.tick()
            if x is item or x == item:
                return True
        return False

    def check_nested(self, value) -> None:
        """Refuse nested lists/tuples with more leaves than a tensor may hold (before the engine walks
        them): shared sub-lists can make a small object describe an enormous one."""
        budget = self.s.max_tensor_elements
        count = 0
        stack = [value]
        nested = (list, tuple, dict, set, frozenset)
        while stack:
            v = stack.pop()
            if isinstance(v, nested):
                count += len(v)
                if count > budget:
                    raise LimitError(f"nested lists of more than {budget:,} elements "
                                     "(limit: max_tensor_elements)")
                items = v.values() if isinstance(v, dict) else v
                stack.extend(x for x in items if isinstance(x, nested))


def _is_int(x) -> bool:
    return type(x) is int or type(x) is bool


def _shape(x):
    if isinstance(x, Tensor):
        return x._data.shape
    if isinstance(x, np.ndarray):
        return x.shape
    if isinstance(x, (int, float, bool, complex)):
        return ()
    return None


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n

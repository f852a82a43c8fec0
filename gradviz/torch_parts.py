"""Real PyTorch objects as the trace's recorder reads them.

The recorder (engine/trace.py) is the only writer of a trace; it reads a few attributes of the
tensors, grad_fns and op table entries the engine hands it. These adapters give real torch
tensors, real autograd Nodes and torch's ops the same attributes, so a recording of real PyTorch is
written by the very same named methods as a run of gradviz's engine.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

REDUCTIONS = ("none", "mean", "sum")  # torch's Reduction enum, as the engine names it


def to_numpy(t) -> np.ndarray:
    """A torch tensor's value, as a NumPy array of its own."""
    import torch

    t = t.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    return np.array(t.numpy(), copy=True)


class Dtype:
    """What the recorder reads of a dtype: its name (``float32``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


def dtype_of(t) -> Dtype:
    return Dtype(str(t.dtype).removeprefix("torch."))


class TensorView:
    """A real torch tensor, as the recorder reads one. Its trace tag holds as long as the tensor is
    not changed in place (its version then moves on, and its next use records a new node, as the
    engine's in-place ops do)."""

    __slots__ = ("tensor", "_name", "_tag", "_tag_version", "fn_view", "snapshot", "snap_version",
                 "_is_param", "dtype", "requires_grad", "_nr", "__weakref__")

    def __init__(self, tensor, fn_view=None, snapshot: np.ndarray | None = None, nr: int = 0):
        import torch

        self.tensor = tensor
        self._nr = nr  # which output of its grad_fn it is (an output of unbind or split: its number)
        self._name = None
        self._tag = None
        self._tag_version = None
        self.fn_view = fn_view  # the grad_fn it had when it was read (None: a leaf)
        self.snapshot = snapshot  # its value when the op read it (None: read it now)
        self.snap_version = tensor._version
        self._is_param = isinstance(tensor, torch.nn.Parameter)
        self.dtype = dtype_of(tensor)
        self.requires_grad = bool(tensor.requires_grad)

    @property
    def _grad_fn(self):
        return self.fn_view

    @property
    def _data(self) -> np.ndarray:
        if self.snapshot is not None and self.snap_version == self.tensor._version:
            return self.snapshot
        return to_numpy(self.tensor)

    def keep(self, value: np.ndarray, version: int) -> None:
        """The value an op read (before an in-place op changed it), at the tensor's ``version``."""
        if self.snapshot is None or self.snap_version != self.tensor._version:
            self.snapshot, self.snap_version = value, version

    @property
    def _trace(self):
        if self._tag is not None and self.fn_view is None and self.tensor._version != self._tag_version:
            return None  # a leaf changed in place since its node was recorded
        return self._tag

    @_trace.setter
    def _trace(self, tag) -> None:
        self._tag = tag
        self._tag_version = self.tensor._version


class Constant:
    """A Python number an op took (``a - 1.0``): a leaf of its own, named by its literal."""

    __slots__ = ("_name", "_trace", "_data", "dtype", "_grad_fn", "requires_grad", "_is_param")

    def __init__(self, value, dtype: np.dtype):
        self._name = repr(value)
        self._trace = None
        self._data = np.array(value, dtype=dtype)
        self.dtype = Dtype(self._data.dtype.name)
        self._grad_fn = None
        self.requires_grad = False
        self._is_param = False


class FnView:
    """A real autograd Node (a grad_fn), tagged by the recorder like the engine's. ``multi``: a
    node of several outputs (unbind, split), whose consumers read one output each, as the
    ``(node, output number)`` pairs of their ``next_functions`` say."""

    __slots__ = ("fn", "_trace", "multi")

    def __init__(self, fn, multi: bool = False):
        self.fn = fn
        self._trace = None
        self.multi = multi


def op_entry(fn, kwargs: dict, n_inputs: int):
    """The op table entry for a torch grad_fn: the engine's own where it has one (its formulas
    and explanation then apply), else one that names torch's op and says no more."""
    name = type(fn).__name__ if not hasattr(fn, "name") else fn.name().rsplit("::", 1)[-1]
    from engine.ops.table import OPS as table

    by_name = _by_grad_fn(table)
    candidates = by_name.get(name, [])
    alpha = kwargs.get("alpha", 1)
    for op in candidates:
        if name in ("AddBackward0", "SubBackward0") and (op.name.endswith("_alpha") != (alpha != 1)):
            continue
        return op
    return SimpleNamespace(name=name, grad_fn=name, description="", formulas=("",) * n_inputs,
                           save_keys=(), variadic=False, aux=0)


def function_entry(name: str):
    """The op table entry of a program's own ``torch.autograd.Function`` named ``name``, as the
    engine writes the node of one (one rule for every tensor input: the program's backward)."""
    from engine.autograd import function

    grad_fn, description, formula = function.node_texts(name)
    return SimpleNamespace(name=function.OP_NAME, grad_fn=grad_fn, description=description,
                           formulas=(formula,), save_keys=(), variadic=True, aux=0)


_BY_GRAD_FN: dict = {}


def _by_grad_fn(table: dict) -> dict:
    if not _BY_GRAD_FN:
        for op in table.values():
            _BY_GRAD_FN.setdefault(op.grad_fn, []).append(op)
    return _BY_GRAD_FN


def param_value(name: str, value):
    """A non-tensor argument of an op as the trace keeps it (torch's reduction enum as a word)."""
    if name == "reduction" and type(value) is int and 0 <= value < len(REDUCTIONS):
        return REDUCTIONS[value]
    return value

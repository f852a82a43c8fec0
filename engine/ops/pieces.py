"""Pieces of a tensor and ops PyTorch composes from others: unbind, split and chunk (several
outputs), narrow (a slice), broadcast_to (an expand), outer (a view times a vector), the in-place
activations (relu_, sigmoid_, tanh_: their op run in place), and the tensor's strides.

unbind and split make one node with several outputs, as PyTorch does (``a, b, c = x`` gives three
tensors whose grad_fn is one ``UnbindBackward0``, output numbers 0, 1, 2): the op's forward gives
the whole input as a view, each piece is read from it, and the backward walk joins the pieces'
gradients into the whole's before the rule runs (engine/function.py ``MultiNode``).
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import dtypes
from .. import tangents as _tangents
from ..dispatch import apply, apply_inplace
from ..tensor import Tensor, _norm_dim
from .explain import G, vjp
from .shape import expand, reshape
from .table import OPS, public, register
from .wrappers import binary


def _multi_op(name: str, grad_fn: str, forward: str, description: str, about_zh: str) -> None:
    register(name, grad_fn, lambda a, dim, sizes: a.view(),
             [lambda g, s: g],
             ["each piece's gradient goes back where the piece was read (zeros for a piece none reached)"],
             view=True, multi=True, description=description, jvps=[lambda t, s: t],
             jvp_formulas=["ẋ, read as the pieces"], explain=vjp(forward, about_zh, G))


_multi_op("unbind", "UnbindBackward0", "{0}.unbind({dim})",
          "the slices of x along dim, one output each (a, b, c = x)",
          "沿 dim 拆成多个切片，每片一个输出（a, b, c = x）")
_multi_op("split", "SplitBackward0", "{0}.split(…, {dim})",
          "pieces of equal size along dim, one output each (split / chunk)",
          "沿 dim 切成等长的块，每块一个输出（split / chunk）")
_multi_op("split_with_sizes", "SplitWithSizesBackward0", "{0}.split({sizes}, {dim})",
          "pieces of the listed sizes along dim, one output each", "沿 dim 按所列长度切块，每块一个输出")


def piece_keys(shape: tuple, dim: int, sizes: list[int] | None) -> list[tuple]:
    """The index of each output in the whole of a multi-output op (``sizes`` None: unbind's slices
    along ``dim``; else split's pieces of those sizes): output ``k`` is ``whole[keys[k]]``."""
    if sizes is None:
        return [(slice(None),) * dim + (k,) for k in range(shape[dim])]
    starts = np.cumsum([0, *sizes])
    return [(slice(None),) * dim + (slice(int(a), int(b)),) for a, b in zip(starts, starts[1:])]


def _pieces(input: Tensor, op: str, dim: int, sizes: list[int] | None) -> tuple:
    """The outputs of a multi-output op: views of ``input`` read from its whole (one node for all,
    each piece its output number), or plain views where no gradient is needed."""
    whole = apply(OPS[op], (input,), {"dim": dim, "sizes": sizes})
    data, fn = whole._data, whole._grad_fn
    keys = piece_keys(data.shape, dim, sizes)
    out = []
    for nr, key in enumerate(keys):
        piece = Tensor._make(data[key], whole._requires_grad, whole._vc)
        piece._base = whole._base
        piece._gv = whole._vc[0]
        if fn is not None:
            piece._grad_fn = fn
            piece._nr = nr
        level = _tangents.ACTIVE
        if level is not None and level.get(whole) is not None:
            level.set(piece, level.get(whole)[key])
        out.append(piece)
    if fn is not None:
        fn.n_out = len(out)
        fn.hooks, fn.retained = {}, {}
    return tuple(out)


@public("torch", "Tensor")
def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices of ``input`` along ``dim``, one output each (UnbindBackward0); iterating over a
    tensor unbinds it, as in PyTorch."""
    input = A.tensor(input, "unbind", "input", 1)
    if not input.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _pieces(input, "unbind", _norm_dim(A.integer(dim, "unbind", "dim", 2), input.ndim), None)


@public("Tensor", name="output_nr")
@property
def output_nr(self) -> int:
    """Which output of its grad_fn this tensor is (0 but for a piece of unbind, split, chunk)."""
    fn = self._grad_fn
    return self._nr if fn is not None and fn.multi else 0


@public("torch", "Tensor")
def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of ``split_size_or_sections`` along ``dim`` (the last may be shorter), or pieces of the
    listed sizes (SplitBackward0 / SplitWithSizesBackward0)."""
    tensor = A.tensor(tensor, "split", "tensor", 1)
    if not tensor.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = _norm_dim(A.integer(dim, "split", "dim", 3), tensor.ndim)
    size = tensor._data.shape[dim]
    if type(split_size_or_sections) in (list, tuple):
        sizes = list(A.ints(split_size_or_sections, "split", "split_size", 2))
        if any(n < 0 for n in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                f"dimension {dim}), but got split_sizes={list(sizes)}")
        return _pieces(tensor, "split_with_sizes", dim, sizes)
    n = A.integer(split_size_or_sections, "split", "split_size", 2)
    if n < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={n}")
    if n == 0 and size:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    sizes = [min(n, size - s) for s in range(0, size, n)] if n else [0]
    return _pieces(tensor, "split", dim, sizes)


@public("torch", "Tensor")
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` pieces of equal size along ``dim`` (the last may be shorter)
    (SplitBackward0)."""
    input = A.tensor(input, "chunk", "input", 1)
    chunks = A.integer(chunks, "chunk", "chunks", 2)
    if not input.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = _norm_dim(A.integer(dim, "chunk", "dim", 3), input.ndim)
    size = input._data.shape[dim]
    return split(input, max(-(-size // chunks), 1) if size else 1, dim)


@public("torch", "Tensor")
def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` entries from ``start`` along ``dim``, a view (SliceBackward0)."""
    input = A.tensor(input, "narrow", "input", 1)
    if not input.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = _norm_dim(A.integer(dim, "narrow", "dim", 2), input.ndim)
    start = A.integer(start, "narrow", "start", 3)
    length = A.integer(length, "narrow", "length", 4)
    size = input._data.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start %= size if size else 1
    if length < 0 or start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    params = {"dim": dim, "start": start, "stop": start + length, "step": 1,
              "in_shape": tuple(input._data.shape)}
    return apply(OPS["slice"], (input,), params)


@public("torch", "Tensor")
def broadcast_to(input: Tensor, *size) -> Tensor:
    """``input`` broadcast to ``size`` (ExpandBackward0)."""
    input = A.tensor(input, "broadcast_to", "input", 1)
    return expand(input, *A.shape_args(size, "broadcast_to", "size"))


@public("torch", "Tensor")
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors, composed as PyTorch composes it: ``input`` viewed as a
    column times ``vec2`` (MulBackward0 over ViewBackward0)."""
    input = A.tensor(input, "outer", "input", 1)
    vec2 = A.tensor(vec2, "outer", "vec2", 2)
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return binary("mul", reshape(input, input._data.shape[0], 1), vec2)


def _in_place(name: str, floats: bool):
    """``torch.<name>_`` and ``Tensor.<name>_``: the op's entry run in place (an integer tensor cannot hold
    the float result of a function of floats, as in torch)."""
    op = OPS[name]

    def function(input: Tensor) -> Tensor:
        input = A.tensor(input, name + "_", "input", 1)
        if floats and not input.dtype.is_floating_point:
            result = dtypes.scalar_name(dtypes.get_default_dtype())
            raise RuntimeError(f"result type {result} can't be cast to the desired output type "
                               f"{dtypes.scalar_name(input.dtype)}")
        return apply_inplace(op, input, ())

    function.__name__ = function.__qualname__ = name + "_"
    function.__doc__ = f"``{name}`` in place ({op.grad_fn})."
    return public("torch", "Tensor")(function)


relu_ = _in_place("relu", floats=False)
sigmoid_ = _in_place("sigmoid", floats=True)
tanh_ = _in_place("tanh", floats=True)
exp_ = _in_place("exp", floats=True)
log_ = _in_place("log", floats=True)
sqrt_ = _in_place("sqrt", floats=True)
sin_ = _in_place("sin", floats=True)
cos_ = _in_place("cos", floats=True)
abs_ = _in_place("abs", floats=False)
neg_ = _in_place("neg", floats=False)


@public("F", name="relu_")
def functional_relu_(input: Tensor) -> Tensor:
    """``F.relu_``: ReLU in place (ReluBackward0)."""
    return relu_(input)


@public("Tensor")
def stride(input: Tensor, dim=None):
    """The step in elements between neighbours along each dim (or along ``dim``), as PyTorch counts it."""
    input = A.tensor(input, "stride", "input", 1)
    a = input._data
    steps = tuple(_stride(a, d) for d in range(a.ndim))
    if dim is None:
        return steps
    return steps[_norm_dim(A.integer(dim, "stride", "dim", 1), a.ndim)] if a.ndim else 1


def _stride(a: np.ndarray, d: int) -> int:
    if a.shape[d] <= 1:  # NumPy keeps any stride on a dim of size 1; PyTorch the contiguous one
        return int(np.prod(a.shape[d + 1:], dtype=np.int64)) if a.flags.c_contiguous else max(
            a.strides[d] // a.itemsize, 1)
    return a.strides[d] // a.itemsize


@public("torch", "Tensor")
def is_inference(input: Tensor) -> bool:
    """Whether ``input`` is an inference tensor: made inside ``torch.inference_mode``, or a view of
    such a tensor (the version counter it shares says so)."""
    input = A.tensor(input, "is_inference", "input", 1)
    return type(input._vc) is not list

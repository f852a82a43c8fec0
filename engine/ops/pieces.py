"""Pieces of a tensor and ops PyTorch composes from others: split and chunk (each piece a view with
its own entry here), narrow (a slice), broadcast_to (an expand), outer (a view times a vector), the
in-place activations (relu_, sigmoid_, tanh_: their op run in place), and the tensor's strides.

A piece of ``split`` is read at a slice key kept in its params, so its backward and its explanation
are indexing's (put the gradient back where the piece was read).
"""

from __future__ import annotations

import numpy as np

from .. import arguments as A
from .. import dtypes
from ..dispatch import apply, apply_inplace
from ..tensor import Tensor, _norm_dim
from .explain import G, place, vjp
from .keys import decode_key, encode_key
from .shape import expand, reshape
from .table import OPS, public, register
from .wrappers import binary


def _piece_op(name: str, grad_fn: str, description: str, about_zh: str) -> None:
    register(name, grad_fn, lambda a, key, in_shape, dim: a[decode_key(key)],
             [lambda g, s: s.xp.scatter_add(g, s.p["in_shape"], decode_key(s.p["key"]))],
             ["∂piece/∂x = 1 inside the piece, 0 outside"], view=True, description=description,
             jvps=[lambda t, s: s.xp.getitem(t, decode_key(s.p["key"]))], jvp_formulas=["ẋ inside the piece"],
             explain=vjp("{0}[{key}]", about_zh, place(G)))


_piece_op("split", "SplitBackward0", "one piece of split / chunk (equal sizes)",
          "split / chunk 切出的一块（等长）")
_piece_op("split_with_sizes", "SplitWithSizesBackward0", "one piece of split with a list of sizes",
          "按所列长度 split 切出的一块")


def _pieces(input: Tensor, op: str, dim: int, sizes: list[int]) -> tuple:
    shape = tuple(input._data.shape)
    out, start = [], 0
    for n in sizes:
        key = encode_key((slice(None),) * dim + (slice(start, start + n, None),))
        out.append(apply(OPS[op], (input,), {"key": key, "in_shape": shape, "dim": dim}))
        start += n
    return tuple(out)


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

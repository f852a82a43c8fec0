"""Tensors printed exactly as PyTorch prints them (a port of ``torch/_tensor_str.py`` to NumPy).

The rules, all torch's: one formatter per tensor decides integer mode (``2.``), fixed mode
(``2.5000``) or scientific mode (``2.5000e-05``) and one column width from the nonzero finite values;
rows wrap at ``linewidth``; tensors above ``threshold`` elements show ``edgeitems`` per side around
``...``; suffixes follow in torch's order (size, dtype, grad_fn or requires_grad).
Big tensors are cut down to their edges before anything is formatted.
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes
from .printing_options import PRINT_OPTS
from .tangents import tangent_of

_PREFIX = "tensor("


class _Formatter:
    """Torch's ``_Formatter``: the mode and column width shared by every element of one tensor."""

    __slots__ = ("floating", "int_mode", "sci_mode", "max_width", "precision")

    def __init__(self, arr: np.ndarray):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        self.precision = PRINT_OPTS.precision
        flat = arr.reshape(-1)
        if not self.floating:
            self.max_width = max([1, *(len(f"{v}") for v in _extremes(flat))])
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        absd = np.abs(vals).astype(np.float64)
        lo, hi = float(absd.min()), float(absd.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        p = self.precision
        for v in _extremes(vals):
            if self.sci_mode:
                w = len(f"{v:.{p}e}")
            elif self.int_mode:
                w = len(f"{v:.0f}") + 1  # the "." that marks a float
            else:
                w = len(f"{v:.{p}f}")
            self.max_width = max(self.max_width, w)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        """One element (a Python number) as torch writes it, right-aligned to the column width."""
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{self.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{self.precision}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _extremes(vals: np.ndarray) -> list:
    """The values whose printed form is widest, as Python numbers.

    Rounding is monotone in the magnitude, so for each sign the longest text (integer digits,
    exponent digits) belongs to the smallest or the largest magnitude: four values stand for all.
    """
    if vals.size == 0:
        return []
    if vals.dtype.kind == "b":
        return sorted(set(vals.tolist()))
    out = []
    for part in (vals[vals > 0], vals[vals < 0], vals[vals == 0]):
        if part.size:
            out.append(part.min())
            out.append(part.max())
    return [v.item() for v in out]


def summarized_data(arr: np.ndarray) -> np.ndarray:
    """Torch's ``get_summarized_data``: only the elements a summarized print shows."""
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        # torch slices self[-0:] when edgeitems is 0, i.e. keeps everything
        if arr.shape[0] > 2 * e:
            return np.concatenate((arr[:e], arr[-e:]))
        return arr
    if not e:
        return np.empty((0,) * arr.ndim, dtype=arr.dtype)
    index = []
    for n in arr.shape:
        index.append(np.r_[0:e, n - e:n] if n > 2 * e else np.arange(n))
    return arr[np.ix_(*index)]


def _vector_str(arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.width() + 2  # with ", "
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = ([fmt.format(v) for v in arr[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in arr[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    # Recursion over the dimensions of one array (depth = ndim), as in torch.
    dim = arr.ndim
    if dim == 0:
        return fmt.format(arr.item())
    if dim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * e:
        slices = ([_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt) for i in range(e)]
                  + ["..."]
                  + [_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt)
                     for i in range(n - e, n)])
    else:
        slices = [_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_str(arr: np.ndarray, indent: int) -> str:
    """The bracketed body torch prints for an array whose first line starts at column ``indent``."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    fmt = _Formatter(summarized_data(arr) if summarize else arr)
    return _tensor_str_with_formatter(arr, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1  # torch's count (2 too many on one line)
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def grad_fn_name(grad_fn) -> str:
    """The name torch prints in ``grad_fn=<...>`` (the class name, without any C++ namespace)."""
    return grad_fn.name().rsplit("::", 1)[-1]


def tensor_repr(t) -> str:
    """``repr(t)`` exactly as PyTorch 2.13 writes it, e.g. ``tensor([2.], requires_grad=True)``."""
    arr = np.asarray(t._data)
    indent = len(_PREFIX)
    suffixes = []
    dt = dtypes.from_numpy_dtype(arr.dtype)
    default = dtypes.get_default_dtype()
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        # an empty tensor shows no values to tell its dtype by, so only the default float is implied
        if dt is not default:
            suffixes.append(f"dtype={dt!r}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(arr.shape)}")
        if dt not in (default, dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dt!r}")
        body = array_str(arr, indent)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name(t._grad_fn)}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = tangent_of(t)
    if tangent is not None:  # a dual tensor (forward mode): torch shows its tangent too
        suffixes.append("tangent=" + tensor_repr(type(t)._make(tangent)))
    return _add_suffixes(_PREFIX + body, suffixes, indent)


def tensor_format(t, spec: str, is_plain: bool) -> str:
    """``format(t, spec)`` as torch does it: a 0-d plain tensor formats its Python number.

    ``is_plain`` is False for parameters (torch formats only exact ``Tensor`` objects as numbers);
    anything else takes ``object.__format__``: its ``str`` when ``spec`` is empty, else a TypeError.
    """
    if is_plain and np.ndim(t._data) == 0:
        return format(np.asarray(t._data).item(), spec)
    if spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return str(t)

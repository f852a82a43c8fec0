"""``torch.linalg``: the vector norms (``vector_norm``, and ``norm`` of vectors or, by its
Frobenius default, of matrices)."""

from __future__ import annotations

from . import arguments as A
from .errors import not_supported
from .ops.norm import vector_norm
from .tensor import Tensor

__all__ = ["norm", "vector_norm"]


def norm(input: Tensor, ord=None, dim=None, keepdim: bool = False, *, out=None, dtype=None) -> Tensor:
    """The 2-norm of a vector (or of all elements: the Frobenius norm of a matrix), or the vector
    ``ord``-norm along ``dim``."""
    input = A.tensor(input, "linalg.norm", "input", 1)
    if out is not None:
        raise not_supported("linalg.norm(out=...)")
    if ord is None or ord == "fro":
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if dim is None and input.ndim != 1:
        raise not_supported(f"matrix norms (linalg.norm with ord={ord!r}); use linalg.vector_norm")
    return vector_norm(input, ord, dim, keepdim, dtype=dtype)

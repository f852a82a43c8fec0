"""The public face of the ops, built from what the op modules publish next to their table
entries (``table.public``): ``torch``'s functions (this module's namespace, which ``engine``
re-exports) and the Tensor's methods, properties and operators.

Importing this module loads every op module, which fills the op table and ``table.PUBLIC``.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import (  # noqa: F401  (each fills the table and publishes its functions)
    activations,
    arithmetic,
    combine,
    compare,
    convert,
    draws,
    elementwise,
    fill,
    gathering,
    indexing,
    linalg,
    losses,
    losses_binary,
    masked,
    norm,
    pieces,
    reduce,
    sampling,
    scans,
    shape,
)
from .table import PUBLIC

for _name, _value in PUBLIC["Tensor"].items():
    setattr(Tensor, _name, _value)

globals().update(PUBLIC["torch"])
__all__ = sorted(PUBLIC["torch"])

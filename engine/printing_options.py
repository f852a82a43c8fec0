"""Print options for tensors, as ``torch.set_printoptions`` keeps them (precision, threshold, ...)."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any

from . import arguments as A


@dataclasses.dataclass
class PrinterOptions:
    """The options torch's printer reads: the same names and defaults as ``torch._tensor_str``."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = PrinterOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    """Set options for printing tensors, with torch's semantics.

    A ``profile`` (``default``, ``short``, ``full``) is applied first, then the explicit options.
    As in torch, ``sci_mode`` is always assigned: leaving it out resets it to automatic (None).
    """

    fn = "set_printoptions"
    precision = A.optional_integer(precision, fn, "precision", 1)
    threshold = None if threshold is None else A.real(threshold, fn, "threshold", 2)
    edgeitems = A.optional_integer(edgeitems, fn, "edgeitems", 3)
    linewidth = A.optional_integer(linewidth, fn, "linewidth", 4)
    profile = None if profile is None else A.string(profile, fn, "profile", 5)
    sci_mode = None if sci_mode is None else A.flag(sci_mode, fn, "sci_mode", 6, strict=False)
    if profile is not None:
        for key, value in _PROFILES.get(profile, {}).items():
            setattr(PRINT_OPTS, key, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options as a dict that ``set_printoptions(**...)`` accepts."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Change the print options for the duration of a ``with`` block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)

"""How the server and the worker write a number in text (formulas, the check by hand, a wrapped
number's label). One formatter; where two places differ, the difference is one of its options."""

from __future__ import annotations

MINUS = "−"


def number_text(x, digits: int = 4, whole: bool = False, minus: str = MINUS) -> str:
    """``x`` in ``digits`` significant digits (``format``'s ``g``): 0.5, 1.235e+04, 1e−12.

    ``whole``: a whole number below 1e15 written out in full (12345, not 1.234e+04), as a formula
    shows its constants. ``minus``: the sign written for "-" (a minus sign in text the page shows,
    a hyphen where a label must stay ASCII). None and booleans are written as Python writes them.
    """
    if x is None or isinstance(x, bool):
        return str(x)
    if whole and (isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15)):
        text = str(int(x))
    else:
        text = f"{float(x):.{digits}g}"
    return text.replace("-", minus)

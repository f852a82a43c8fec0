"""What a run's answer leaves for the page to ask when it shows it (``POST /api/run/extras``): the
check by hand of each kept backward pass and every course view but the gradient heat. Runs are
deterministic, so a fresh worker runs the program again for them (the fingerprint says it recorded
the same graph); the offline page and the notebooks get them in the answer itself."""

from __future__ import annotations

import time

from .course import hand_formulas
from .gradcheck import check_passes
from .lenses import later_lenses
from .serialize import kept_of

GRAD_CHECK_S = 1.0  # the most a run's finite-difference check may take (less when the run took long)


def check_by_hand(trace, kept_passes: list[int], source: str, started: float) -> list[dict]:
    """The answer's ``grad_check``: each of ``kept_passes`` checked by hand, within what is left of
    the run's time limit since ``started`` (``time.perf_counter``) and never more than
    ``GRAD_CHECK_S``."""
    from engine.runner import Settings

    budget = min(GRAD_CHECK_S, Settings().timeout_s - (time.perf_counter() - started))
    return check_passes(trace, kept_passes, budget, hand_formulas(source))


def extras_of(trace, source: str, started: float) -> dict:
    """``grad_check`` and the ``lenses`` but the heat of a run's trace (an ``ExtrasResponse``
    without its fingerprint and timings): the same data a whole answer holds."""
    _, _, kept_views, kept_nodes, kept_pass = kept_of(trace)
    lenses = later_lenses(trace, kept_views, kept_nodes, kept_pass)
    kept = [bp.index for bp in trace.passes if bp.index in kept_pass]
    return {"grad_check": check_by_hand(trace, kept, source, started), "lenses": lenses}

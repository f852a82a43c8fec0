"""What the course texts teach, read off one trace: five lenses on the same run.

- ``modes``: forward mode (one pass per input element, the op table's forward-mode rules)
  beside reverse mode (the backward pass), with what each counted;
- ``orders``: the nodes a ``create_graph=True`` backward pass recorded (higher-order gradients);
- ``compare``: two forward passes: the same leaf objects, new op nodes, structural differences;
- ``heat``: the size of every gradient, edge by edge, and the gradient reaching each parameter;
- ``memory``: the bytes the graphs hold for backward, over the timeline.

Every number comes from the trace (or from the op table's rules run on the trace's arrays).
"""

from __future__ import annotations

from .compare import compare_forwards
from .heat import gradient_heat
from .memory import memory_timeline
from .modes import forward_vs_reverse
from .orders import backward_made


def build_lenses(trace, kept_views: list, kept_nodes: set[int], kept_pass: set[int],
                 shown_edges: set[int], whole: bool = True) -> dict:
    """The ``lenses`` of a RunResponse (see app/schemas/lenses.py); ``whole`` False: the heat
    alone (a part opened later brings its own; the others come from ``later_lenses``). The heat
    covers the edges the answer draws (``shown_edges``: edges and the links of closed boxes; those
    inside a closed part come with the part when it is opened)."""
    heat = gradient_heat(trace, kept_pass, shown_edges)
    if not whole:
        return {"heat": heat}
    return {**later_lenses(trace, kept_views, kept_nodes, kept_pass), "heat": heat}


def later_lenses(trace, kept_views: list, kept_nodes: set[int], kept_pass: set[int]) -> dict:
    """Every lens but the heat: what the page asks for when a view is opened (``POST
    /api/run/extras``). None of them depends on what the drawing shows, only on the views kept."""
    modes = []
    for bp in trace.passes:
        if bp.index in kept_pass and len(modes) < 2:
            m = forward_vs_reverse(trace, bp)
            if m is not None:
                modes.append(m)
    return {
        "modes": modes,
        "orders": backward_made(trace, kept_nodes),
        "compare": compare_forwards(trace, kept_views),
        "memory": memory_timeline(trace),
    }

"""The backward step of a CopySlices that wraps an op (``v = h[1:3]; v.mul_(10)``), run as torch runs
it: one node. The gradient reaching the base is split at the written part: outside it, it goes to
the base's history as it came; inside it, the wrapped op's own rules run on that part, their
gradient for the view goes back into the base's gradient at that place, and their gradients for
the op's other inputs go to those inputs."""

from __future__ import annotations

from ..ops.keys import decode_key


def evaluate(cs, g, world, needed, evaluate_node) -> list:
    """What CopySlices ``cs`` sends to each of its inputs (the base's grad_fn, then the wrapped op's
    other inputs), given ``g``, the gradient of the base after the write; ``evaluate_node`` runs a
    node's own rules (the walk's ``_evaluate``)."""
    fn = cs.wrapped()
    if fn is None:  # x[key] = v: the table's rules of copy_slices, on the base and v
        return evaluate_node(cs, g, world, needed)
    op, s = cs.op, world.saved(cs)
    s.i = 1
    part = op.vjps[1](g, s)  # the gradient at the written part: the gradient of the op's result
    inner = evaluate_node(fn, part, world, None)  # every input of the op: the view's is the base's part
    out = [None] * len(cs._next)
    base = cs._next[0]
    if base is not None and (needed is None or base in needed):
        s.i = 0
        rest = op.vjps[0](g, s)  # zeros at the written part, the gradient as it came elsewhere
        if inner[0] is not None:
            shape = cs._meta[0]
            rest = rest + s.xp.scatter_add(inner[0], shape, decode_key(cs.params["key"]))
        out[0] = world.fit(rest, cs._meta[0], cs._meta[1])
    for i in range(1, len(out)):
        nxt = cs._next[i]
        if nxt is not None and (needed is None or nxt in needed):
            out[i] = inner[i]
    return out

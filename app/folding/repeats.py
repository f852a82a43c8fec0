"""Runs of identical sibling module calls (the layers of a deep ``nn.Sequential``) folded into
loops of their repetitions, so that they fold, chunk and open the way a program's loop does (a part
of app/folding/parts.py)."""

from __future__ import annotations

import bisect
import hashlib

from .tree import Item, post_order, walk

# a run of identical module calls folds when they repeat this many times or more: fewer read well as
# boxes side by side (a five-layer net shows, layer by layer, its gradient vanishing)
REPEAT_MIN = 8
REPEAT_PERIOD = 8  # the most calls one repetition holds


def fold_repeats(root: Item, nodes) -> None:
    """Turn each run of identical sibling module calls into a loop of its repetitions (an
    ``iteration`` item per repetition), so that it folds, chunks and opens the way a loop does."""
    prints: dict[int, str] = {}
    for it in list(post_order(root)):
        if it.kind == "module":
            prints[id(it)] = _print(it, nodes, prints)
    for it in list(walk(root)):
        # (a run needs REPEAT_MIN module calls: a loop's thousands of iterations have none to fold)
        if len(it.children) >= REPEAT_MIN and sum(c.kind == "module" for c in it.children) >= REPEAT_MIN:
            _repeat_runs(it, nodes, prints)


def _print(it: Item, nodes, prints: dict) -> str:
    """What a module call computes, without ids or values: its class, its members' ops and
    shapes, its inner calls' prints (two layers of the same size, called on the same shapes,
    print the same)."""
    text = [it.kind, it.type_name or ""]
    for n in it.nodes:
        node = nodes[n]
        head = node.op if node.kind == "op" else f"leaf:{node.requires_grad}"
        text.append(f"{head}{tuple(node.shape)}")
    text.extend(prints.get(id(c)) or f"{c.kind}:{len(c.children)}:{len(c.nodes)}" for c in it.children)
    return hashlib.sha1("|".join(text).encode()).hexdigest()


def _repeat_runs(parent: Item, nodes, prints: dict) -> None:
    """Fold the runs of ``parent``'s module calls, in the order they ran, that repeat one block
    of calls at least ``REPEAT_MIN`` times with nothing of ``parent``'s own ran between them."""
    ran = {id(c): _op_range(c, nodes) for c in parent.children}
    own_ops = [n for n in parent.nodes if nodes[n].kind == "op"]
    stretches: list[list[Item]] = [[]]
    last = None
    for c in sorted(parent.children, key=lambda c: ran[id(c)]):
        start, end = ran[id(c)]
        between = last is not None and bisect.bisect_left(own_ops, start) != bisect.bisect_left(own_ops, last)
        if c.kind != "module" or between:
            stretches.append([])
        if c.kind == "module":
            stretches[-1].append(c)
        last = end
    loops = []
    for calls in stretches:
        i = 0
        while i < len(calls):
            period, times = _longest_run([prints[id(c)] for c in calls[i:]])
            if times >= REPEAT_MIN:
                loops.append(_repeat_loop(parent, calls[i:i + period * times], period))
                i += period * times
            else:
                i += 1
    if loops:
        parent.children.sort(key=Item.first)


def _op_range(it: Item, nodes) -> tuple[int, int]:
    """The smallest and largest op node id inside (when it ran: its parameters may be older)."""
    ops = [n for x in walk(it) for n in x.nodes if nodes[n].kind == "op"]
    return (min(ops), max(ops)) if ops else (-1, -1)


def _longest_run(prints: list[str]) -> tuple[int, int]:
    """The block of the first ``period`` prints that repeats at least ``REPEAT_MIN`` times and
    covers the most calls from the start, and how many times (the shortest block of those covering
    as many); (1, 1) when none does."""
    best = (1, 1)
    for period in range(1, min(REPEAT_PERIOD, len(prints) // REPEAT_MIN) + 1):
        block = prints[:period]
        times = 1
        while prints[times * period:(times + 1) * period] == block:
            times += 1
        if times >= REPEAT_MIN and period * times > best[0] * best[1]:
            best = (period, times)
    return best


def _repeat_loop(parent: Item, calls: list[Item], period: int) -> Item:
    """A loop item in ``parent`` standing for ``calls``: ``period`` calls per iteration."""
    names = " → ".join(c.type_name or c.label for c in calls[:period])
    loop = Item("loop", label=names, line=calls[0].line, col=calls[0].col, type_name=names)
    loop.parent = parent
    for k in range(0, len(calls), period):
        one = Item("iteration", index=k // period)
        one.parent = loop
        one.children = sorted(calls[k:k + period], key=Item.first)
        for c in one.children:
            c.parent = one
        loop.children.append(one)
    gone = {id(c) for c in calls}
    parent.children = [c for c in parent.children if id(c) not in gone] + [loop]
    return loop

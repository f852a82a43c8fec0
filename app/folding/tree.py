"""The tree of a view's parts while app/folding/parts.py builds it: ``Item`` (a scope, an iteration,
a chunk or a segment, with its direct members and children) and the walks over it."""

from __future__ import annotations


class Item:
    """A node of the tree while it is being built: a scope, an iteration, a chunk or a segment."""

    __slots__ = ("kind", "scope", "label", "line", "col", "type_name", "index", "nodes", "children",
                 "parent", "iterations", "count", "reads")

    def __init__(self, kind, scope=None, label="", line=None, col=None, type_name=None, index=None):
        self.kind, self.scope, self.label, self.line, self.col = kind, scope, label, line, col
        self.type_name, self.index = type_name, index
        self.nodes: list[int] = []
        self.children: list[Item] = []
        self.parent: Item | None = None
        self.iterations: list[tuple[int, int]] = []  # a loop: (first node id, number) per iteration
        self.count = 0  # a chunk: its iterations
        self.reads = 0  # an iteration: its reads of shared leaves from outside (a ghost beside each)

    def size(self) -> int:
        return len(self.nodes) + len(self.children)

    def first(self) -> int:
        """The smallest node id inside (for ordering)."""
        best = self.nodes[0] if self.nodes else None
        for c in self.children:
            f = c.first()
            if best is None or f < best:
                best = f
        return best if best is not None else -1


def walk(it: Item):
    """``it`` and every item inside it, parents before their children."""
    stack = [it]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(x.children)


def post_order(it: Item):
    """``it`` and every item inside it, children before their parents."""
    out, stack = [], [it]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(x.children)
    return reversed(out)


def all_nodes(it: Item) -> list[int]:
    """The node ids inside ``it``, at any depth."""
    out = []
    for x in walk(it):
        out.extend(x.nodes)
    return out

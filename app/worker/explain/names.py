"""What the page calls each node, the same in every sentence and on the drawing.

- ``label``: a node's distinct name: ``MulBackward0 #2`` when several op nodes of one drawing
  share a grad_fn name (numbered in the order they ran), else the grad_fn name; a leaf's label is
  its tensor's name.
- ``sym``: the name of the tensor a node holds, as the rules write it: the program's variable
  (``z``), numbered when one variable names several nodes of a drawing (``h₁``, ``h₂`` in a loop
  rebinding ``h``); a wrapped Python number is its literal (``2``); a tensor the program never
  named gets a short letter (``u``, ``v``, ...; ``u₁``, ``u₂``... when there are many), defined by
  the op that made it (``u = a + b``).
"""

from __future__ import annotations

import keyword
import math
from bisect import bisect_left
from collections import defaultdict

from engine.trace import LeafNode, OpNode

SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
LETTERS = ("u", "v", "p", "q", "r", "s", "m", "k")
FEW_LETTERS = len(LETTERS)


def subscript(n: int) -> str:
    return str(n).translate(SUBSCRIPT)


def literal(name: str) -> str:
    """A wrapped number's literal as the rules write it: ``2.0`` → ``2``, ``-3.0`` → ``(−3)``."""
    try:
        x = float(name)
    except ValueError:
        return name
    text = _shortest(x) if x == x and abs(x) != float("inf") else name
    return f"({text.replace('-', '−')})" if text.startswith("-") else text


def _shortest(x: float) -> str:
    """The number as the program wrote it, without a whole number's ``.0`` (``0.123456789``, ``2``)."""
    text = repr(x)
    return text[:-2] if text.endswith(".0") else text


class Names:
    """``(label, sym)`` of each node of a run's kept views (``nodes``, in id order), numbered
    within each drawing (``view_of``: node id → view index), worked out for the ids asked for: an
    answer names every node the same whether it is drawn or hidden in a closed part, but spells out
    only the names of the nodes it holds. ``constant``: ids of wrapped Python numbers;
    ``sources(op id)``: an op's input nodes (a drawing's fresh letters avoid the names of inputs
    drawn elsewhere)."""

    def __init__(self, nodes: list[LeafNode | OpNode], view_of: dict[int, int | None], constant: set[int],
                 sources):
        by_view: dict[int | None, list] = defaultdict(list)
        for n in nodes:
            by_view[view_of.get(n.id)].append(n)
        self._cache: dict[int, tuple[str, str]] = {}
        self._views = [_ViewNames(members, constant) for members in by_view.values()]
        self._view_of = {n.id: k for k, members in enumerate(by_view.values()) for n in members}
        for k, view in enumerate(self._views[1:], 1):
            ids = {n.id for n in view.members}
            view.taken |= {self[s][1] for n in view.members if n.kind == "op" for s in sources(n.id)
                           if s not in ids and self._view_of.get(s, k) < k}

    def __getitem__(self, nid: int) -> tuple[str, str]:
        hit = self._cache.get(nid)
        if hit is None:
            hit = self._cache[nid] = self._views[self._view_of[nid]].name(nid)
        return hit

    def sym(self, nid: int, default: str | None = None) -> str | None:
        return self[nid][1] if nid in self._view_of else default


class Syms:
    """The ``sym`` of each named node, read like a dict (``syms.get(node id, default)``)."""

    def __init__(self, names: Names):
        self.get = names.sym


class _ViewNames:
    """The names of one drawing's nodes: each node's place among the nodes of its grad_fn name, of
    its variable, or among the unnamed ones gives its number or its fresh letter."""

    def __init__(self, members: list, constant: set[int]):
        self.members = members
        self.nodes = {n.id: n for n in members}
        self.constant = constant
        self.by_op: dict[str, list[int]] = defaultdict(list)
        self.by_var: dict[str, list[int]] = defaultdict(list)
        self.unnamed: list[int] = []
        for n in members:
            if n.kind == "op":
                self.by_op[n.grad_fn].append(n.id)
            if n.id in constant:
                continue
            if n.name:
                self.by_var[n.name].append(n.id)
            else:
                self.unnamed.append(n.id)
        self.taken = set(self.by_var)

    def name(self, nid: int) -> tuple[str, str]:
        n = self.nodes[nid]
        if nid in self.constant:
            sym = literal(n.name or "")
        elif n.name:
            same = self.by_var[n.name]
            sym = n.name + subscript(bisect_left(same, nid) + 1) if len(same) > 1 else n.name
        else:
            sym = _letter(len(self.unnamed), self.taken, bisect_left(self.unnamed, nid))
        if n.kind != "op":
            return sym, sym
        same = self.by_op[n.grad_fn]
        return (f"{n.grad_fn} #{bisect_left(same, nid) + 1}" if len(same) > 1 else n.grad_fn), sym


def _letter(count: int, taken: set[str], k: int) -> str:
    """The ``k``-th of ``count`` fresh names none of ``taken`` uses: single letters while few are
    needed."""
    free = [c for c in LETTERS if c not in taken]
    if count <= len(free):
        return free[k]
    stem = free[0] if free else "t"
    return stem + subscript(k + 1)


def is_constant(leaf: LeafNode) -> bool:
    """A Python number the engine wrapped into a tensor: its name is the literal (``1.0``), never a
    name the user could bind (``inf`` and ``nan`` are literals only when the value says so)."""
    name = leaf.name
    if name is None or leaf.requires_grad or leaf.shape != ():
        return False
    if not name.isidentifier() or keyword.iskeyword(name):
        return True
    v = float(leaf.value) if leaf.value.dtype.kind in "fiub" else 0.0
    return (name == "inf" and math.isinf(v)) or (name == "nan" and v != v)

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

from collections import Counter, defaultdict

from ..package import from_engine

LeafNode, OpNode = from_engine("trace", "LeafNode", "OpNode")

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
    text = f"{x:g}" if x == x and abs(x) != float("inf") else name
    return f"({text.replace('-', '−')})" if text.startswith("-") else text


def name_nodes(nodes: list[LeafNode | OpNode], view_of: dict[int, int | None], constant: set[int],
               sources: dict[int, list[int]]) -> dict[int, tuple[str, str]]:
    """``{node id: (label, sym)}`` for ``nodes`` (in id order), numbered within each drawing
    (``view_of``: node id → view index). ``constant``: ids of wrapped Python numbers; ``sources``:
    each op's input nodes (a drawing's fresh letters avoid the names of inputs drawn elsewhere)."""
    by_view: dict[int | None, list] = defaultdict(list)
    for n in nodes:
        by_view[view_of.get(n.id)].append(n)
    out: dict[int, tuple[str, str]] = {}
    for members in by_view.values():
        ids = {n.id for n in members}
        outside = {out[s][1] for n in members for s in sources.get(n.id, ()) if s not in ids and s in out}
        out.update(_name_view(members, constant, outside))
    return out


def _name_view(nodes: list, constant: set[int], outside: set[str]) -> dict[int, tuple[str, str]]:
    ops = Counter(n.grad_fn for n in nodes if n.kind == "op")
    bound = Counter(n.name for n in nodes if n.name and n.id not in constant)
    taken = set(bound) | outside
    unnamed = [n for n in nodes if n.id not in constant and not n.name]
    letters = _letters(len(unnamed), taken)
    seen_op: Counter = Counter()
    seen_var: Counter = Counter()
    out = {}
    fresh = iter(letters)
    for n in nodes:
        if n.id in constant:
            sym = literal(n.name or "")
        elif n.name:
            seen_var[n.name] += 1
            sym = n.name + subscript(seen_var[n.name]) if bound[n.name] > 1 else n.name
        else:
            sym = next(fresh)
        if n.kind == "op":
            seen_op[n.grad_fn] += 1
            label = f"{n.grad_fn} #{seen_op[n.grad_fn]}" if ops[n.grad_fn] > 1 else n.grad_fn
        else:
            label = sym
        out[n.id] = (label, sym)
    return out


def _letters(count: int, taken: set[str]) -> list[str]:
    """``count`` fresh names none of ``taken`` uses: single letters while few are needed."""
    free = [c for c in LETTERS if c not in taken]
    if count <= len(free):
        return free[:count]
    stem = next((c for c in LETTERS if c not in taken), "t")
    return [stem + subscript(i) for i in range(1, count + 1)]

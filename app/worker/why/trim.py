"""A diagnosis in a bounded number of words and marks, however deep the model: a long path keeps its
two ends (the tensor's and the cause's), a long list of layers or links its first and last ones
and, for a scale chain, the links around where the gradient crossed its threshold; each item that
follows a gap says how many were left out (``gap``), which the sentences say too."""

from __future__ import annotations

ENDS = 16  # the items kept at each end of a long path, list of layers or scale chain
AROUND = 4  # the links kept on each side of where a scale chain crossed its threshold


def ends(n: int, also: range = range(0)) -> list[int]:
    """The indices kept of ``n`` items: the first and last ``ENDS`` and those of ``also``."""
    if n <= 2 * ENDS:
        return list(range(n))
    return sorted({*range(ENDS), *range(n - ENDS, n), *(i for i in also if 0 <= i < n)})


def gapped(items, kept: list[int]) -> list[dict]:
    """``items`` (a list, or a dict by index) at the indices ``kept`` (ascending); one that follows
    left-out items is a copy saying how many (``gap``)."""
    out, last = [], -1
    for i in kept:
        item = items[i]
        out.append(item if i == last + 1 else dict(item, gap=i - last - 1))
        last = i
    return out


def path(trace, nodes: list[int], edges: list[int], must: tuple = ()) -> tuple[list[int], list[int]]:
    """A path to mark: its first and last ``ENDS`` nodes and those of ``must``, with the edges
    between kept nodes."""
    if len(nodes) <= 2 * ENDS:
        return nodes, edges
    keep = {nodes[i] for i in ends(len(nodes))} | (set(must) & set(nodes))
    return ([n for n in nodes if n in keep],
            [e for e in edges if trace.edges[e].source in keep and trace.edges[e].target in keep])

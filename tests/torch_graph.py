"""Real PyTorch's backward graph as tests read it: every Node below a root, through
``next_functions`` alone."""

from __future__ import annotations


def torch_nodes(root) -> list:
    """Each autograd Node reachable from ``root`` (a ``grad_fn``, or None), once, depth first."""
    nodes, seen, stack = [], set(), [root]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        nodes.append(fn)
        stack.extend(n for n, _ in fn.next_functions)
    return nodes

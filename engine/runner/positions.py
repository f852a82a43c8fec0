"""1-based (line, column) of AST nodes, in characters (``ast`` gives UTF-8 byte offsets)."""

from __future__ import annotations


class Positions:
    """Converts ``ast`` positions of one source to what users see."""

    def __init__(self, source: str):
        self.lines = source.splitlines()
        self._cache: dict = {}
        # Per AST node, worked out once: ``starts[node]`` is ``of(node)``, ``ends[node]`` is
        # ``end_of(node)`` (the recorder asks for them at every op; a hit is one dict lookup).
        self.starts = _PerNode(self.of)
        self.ends = _PerNode(self.end_of)

    def of(self, node) -> tuple[int | None, int | None]:
        """(line, col) of ``node``, both 1-based; (None, None) for nodes without a position."""
        line = getattr(node, "lineno", None)
        if line is None:
            return (None, None)
        off = getattr(node, "col_offset", 0) or 0
        key = (line, off)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            col = off + 1
        else:
            col = len(text.encode("utf-8")[:off].decode("utf-8", errors="ignore")) + 1
        self._cache[key] = (line, col)
        return (line, col)

    def end_of(self, node) -> tuple[int | None, int | None]:
        """(line, col) just after ``node``'s last character, 1-based; (None, None) if unknown."""
        line = getattr(node, "end_lineno", None)
        off = getattr(node, "end_col_offset", None)
        if line is None or off is None:
            return (None, None)
        hit = self._cache.get((line, off))
        return hit if hit is not None else self.of(_At(line, off))


class _PerNode(dict):
    """``compute(node)`` for each node asked for, kept (AST nodes hash by identity)."""

    __slots__ = ("compute",)

    def __init__(self, compute):
        super().__init__()
        self.compute = compute

    def __missing__(self, node):
        value = self[node] = self.compute(node)
        return value


class _At:
    """A bare position, read by ``Positions.of``."""

    __slots__ = ("lineno", "col_offset")

    def __init__(self, lineno: int, col_offset: int):
        self.lineno = lineno
        self.col_offset = col_offset


def tag_error(exc: BaseException, node) -> None:
    """Remember the innermost AST node an exception left (the first tag wins), for its position."""
    if getattr(exc, "_gv_node", None) is None:
        try:
            exc._gv_node = node
        except AttributeError:  # exceptions that take no attributes keep no position
            pass


def tagged_node(exc: BaseException):
    """The node ``tag_error`` recorded on ``exc``, or None."""
    return getattr(exc, "_gv_node", None)

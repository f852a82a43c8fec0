"""Where the program is, for the Trace's recorder (engine/trace.py): the expression running now (its
line and column), the ``nn.Module`` calls and the loops and iterations open around it, as the
program runner and ``nn.Module`` tell it. ``ProgramPlace`` is the part of the ``Recorder`` that
keeps them; every node and step the recorder writes reads them."""

from __future__ import annotations

from .trace_records import Scope, ScopeFrame


class ProgramPlace:
    """The recorder's place in the program: ``location`` (line, col), ``module_stack`` and
    ``frames`` (the scopes open now, outermost first). The ``Recorder`` sets up its state."""

    @property
    def location(self) -> tuple[int, int] | None:
        """(line, col) of the expression running now: what nodes and steps recorded now carry."""
        if self._pending is not None:
            self._location = self.position_of(self._pending)
            self._pending = None
        return self._location

    @location.setter
    def location(self, where: tuple[int, int] | None) -> None:
        self._location = where
        self._pending = None

    def at_node(self, node) -> None:
        """The program runner evaluates AST ``node`` now (its position is worked out only if
        something asks for it: most expressions record nothing)."""
        self._pending = node
        self.location_node = node

    @property
    def module(self) -> str | None:
        return self.module_stack[-1] if self.module_stack else None

    def push_module(self, path: str, type_name: str | None = None) -> None:
        """An ``nn.Module`` call starts (``type_name``: its class): ops recorded until
        ``pop_module`` ran inside it."""
        self.module_stack.append(path)
        line, col = self._loc()
        self.frames.append(ScopeFrame("module", path, line, col, None, type_name))

    def pop_module(self) -> None:
        self.module_stack.pop()
        self.frames.pop()

    def open_scope(self, kind: str, label: str, line: int | None = None, col: int | None = None,
                   index: int | None = None, frame: ScopeFrame | None = None) -> ScopeFrame:
        """A loop (``kind="loop"``) or one of its iterations (``"iteration"``, ``index`` its
        number) starts; pass an earlier ``frame`` to open the same scope again. Close it with
        ``close_scope``."""
        if frame is None:
            frame = ScopeFrame(kind, label, line, col, index)
        self.frames.append(frame)
        return frame

    def close_scope(self, frame: ScopeFrame) -> None:
        """The scope ``frame`` (and any scope a failure left open inside it) is over."""
        frames = self.frames
        while frames:
            if frames.pop() is frame:
                return

    def _scope(self, depth: int | None = None) -> int | None:
        """The innermost open scope (or the ``depth``-th, from 1) as a ``Scope`` id, making
        ``Scope``s of the open frames that have recorded nothing yet; None outside every scope."""
        frames = self.frames if depth is None else self.frames[:depth]
        if not frames:
            return None
        last = frames[-1]
        if last.id is not None:
            return last.id
        scopes = self.trace.scopes
        parent = None
        for f in frames:
            if f.id is None:
                f.id = len(scopes)
                scopes.append(Scope(id=f.id, kind=f.kind, label=f.label, parent=parent, line=f.line,
                                    col=f.col, index=f.index, type_name=f.type_name))
            parent = f.id
        return last.id

    def _loc(self) -> tuple[int | None, int | None]:
        loc = self.location
        return loc if loc is not None else (None, None)

    def _leaf_scope(self, tensor) -> int | None:
        """The scope a new leaf node belongs to: where the program bound it to a name, while that
        scope is still open (a tensor made before a loop and read in it), else where it is read."""
        if not self.frames:
            return None
        entry = self._bound.pop(id(tensor), None)
        if entry is not None and entry[0]() is tensor:
            frame = entry[1]
            if frame is None:
                return None
            for depth, f in enumerate(self.frames, 1):
                if f is frame:
                    return self._scope(depth)
        return self._scope()

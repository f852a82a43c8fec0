"""Loops as scopes of the trace: each loop a program runs, and each of its iterations, is opened
on the recorder around the ops it records (``Recorder.open_scope``), so the drawing can fold a loop
into one box and the step player can name the iteration it is in. Without a recorder (or while
nothing is recorded) every method costs one attribute test."""

from __future__ import annotations

import ast

from .positions import Positions

LABEL_CHARS = 48


def loop_label(node) -> str:
    """The loop's header as the program wrote it: ``for t in range(250)``, ``while loss > 0.1``."""
    try:
        if isinstance(node, (ast.For, ast.comprehension)):
            text = f"for {ast.unparse(node.target)} in {ast.unparse(node.iter)}"
        elif isinstance(node, ast.While):
            text = f"while {ast.unparse(node.test)}"
        else:
            text = "loop"
    except (ValueError, RecursionError):  # a tree ast.unparse cannot write back
        text = "loop"
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


class LoopScopes:
    """Opens and closes loop and iteration scopes on ``rec`` (None: nothing is recorded)."""

    def __init__(self, rec, positions: Positions):
        self.rec = rec
        self.positions = positions
        self._labels: dict[int, str] = {}

    def start(self, node, at=None):
        """A loop starts (``at``: the AST node whose position it takes, default ``node``)."""
        rec = self.rec
        if rec is None:
            return None
        label = self._labels.get(id(node))
        if label is None:
            label = self._labels[id(node)] = loop_label(node)
        line, col = self.positions.of(at if at is not None else node)
        return rec.open_scope("loop", label, line, col)

    def iteration(self, loop, k: int):
        """Iteration ``k`` (from 0) of ``loop`` starts."""
        if loop is None:
            return None
        return self.rec.open_scope("iteration", "", loop.line, loop.col, index=k)

    def resume(self, loop):
        """Open ``loop`` again (a generator expression computes its next element)."""
        if loop is not None:
            self.rec.open_scope(loop.kind, loop.label, frame=loop)

    def end(self, frame) -> None:
        """The loop or iteration ``frame`` is over."""
        if frame is not None:
            self.rec.close_scope(frame)

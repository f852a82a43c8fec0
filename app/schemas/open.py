"""``POST /api/open``: a folded part of a drawing opened (or an open one closed)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from .graph import Graph, PartId, PartOut, ViewOut
from .lenses import Heat
from .run import VariableIn
from .steps import BackwardPassOut


# ---- a part opened (POST /api/open) ---------------------------------------------------------------
class OpenRequest(BaseModel):
    """Open parts of one view of a run: the program runs again (runs are deterministic) and the
    answer holds that view at the new open set, with the values of every node it shows."""

    source: str
    variables: dict[str, VariableIn] | None = None
    view: int = Field(ge=0, le=10_000, description="index into the run's views")
    open: list[PartId] = Field(max_length=1000, description="the parts to draw open, the most recently "
                                                            "opened last (the oldest stay closed when "
                                                            "all of them would show too much)")
    direction: Literal["auto", "down"] = "auto"
    fingerprint: str | None = Field(default=None, max_length=64,
                                    description="the run's fingerprint: a different run answers 409")
    had: list[PartId] | None = Field(default=None, max_length=1000,
                                     description="the parts the page's drawing of this view has open: the "
                                                 "nodes it shows and their steps are left out of the "
                                                 "answer (the page holds them); null: everything")


class OpenResponse(BaseModel):
    """One view of a run again: its drawing, the nodes and edges it shows, its backward passes and
    its parts (replacing what the run's answer had for that view)."""

    views: list[ViewOut] = Field(description="the one view, drawn at the new open set")
    graph: Graph
    backward: list[BackwardPassOut]
    parts: list[PartOut]
    heat: list[Heat] = Field(default_factory=list,
                             description="the gradient heat of the view's passes, for the edges it shows")
    fingerprint: str
    timings: dict[str, float] = Field(default_factory=dict)

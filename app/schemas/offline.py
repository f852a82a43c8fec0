"""``POST /api/offline/opened``: the boxes a page saved as one HTML file opens, answered ahead."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .graph import PartId
from .open import OpenResponse
from .run import VariableIn

MOST_IDS = 50_000  # the request body limit (256 KB) binds before this


class HeldPart(BaseModel):
    """A part of the run the page shows: which view it lies in and the part around it."""

    id: PartId
    view: int = Field(ge=0, le=10_000)
    parent: PartId | None = None


class HeldView(BaseModel):
    """A view of the run the page shows, by the parts its drawing has open."""

    open: list[PartId] | None = Field(default=None, max_length=1000)


class HeldPass(BaseModel):
    """A backward pass of the run the page shows, by the indices of the steps it holds."""

    index: int = Field(ge=0)
    steps: list[int] = Field(default_factory=list, max_length=MOST_IDS)


class OpenedRequest(BaseModel):
    """The run a page is about to save (the program and inputs as ``POST /api/run`` takes them) and
    what of it the page holds: its views' open sets, its parts, and the ids of its nodes, edges and
    backward steps (the answers leave those out: the saved file holds them already)."""

    source: str
    variables: dict[str, VariableIn] | None = None
    fingerprint: str = Field(max_length=64, description="the run's fingerprint: a different run answers 409")
    views: list[HeldView] = Field(min_length=1, max_length=64)
    parts: list[HeldPart] = Field(default_factory=list, max_length=MOST_IDS)
    nodes: list[int] = Field(default_factory=list, max_length=MOST_IDS)
    edges: list[int] = Field(default_factory=list, max_length=MOST_IDS)
    backward: list[HeldPass] = Field(default_factory=list, max_length=1000)


class OpenedResponse(BaseModel):
    """What ``POST /api/open`` answers for each box the saved page may open or close, one at a time,
    without what the page holds: ``answers`` by the key app/offline.py's ``open_key`` writes, and
    how many open sets were ``left`` out (past the file's budget)."""

    answers: dict[str, OpenResponse]
    left: int = Field(ge=0)

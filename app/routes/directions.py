"""The layout settings of a drawing direction."""

from __future__ import annotations

from dataclasses import replace

from ..drawing.layout import LayoutSettings


def direction_settings(layout: LayoutSettings, direction: str) -> LayoutSettings:
    """The layout settings for a direction ("down": every piece top to bottom, for a phone)."""
    if direction == "down":
        return replace(layout, max_lr_depth=-1)  # no graph is short enough to lie on its side
    return layout

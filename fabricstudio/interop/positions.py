"""Positions for drawing formats: a design whose devices share positions (a hand-written file
without x/y) is laid out, on a copy, by the canvas's automatic layout before it is drawn."""

from __future__ import annotations

from fabricstudio.model import Design
from fabricstudio.topology.layout import design_layout, needs_layout


def positioned(design: Design) -> Design:
    """``design`` itself when its devices have distinct positions, else a laid-out copy."""
    if not needs_layout(design):
        return design
    copy = design.copy()
    copy.move_devices(design_layout(copy))
    return copy

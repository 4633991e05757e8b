"""Hover highlighting shared by canvas items."""

from __future__ import annotations


class HoverHighlight:
    """Mixin for QGraphicsItems: ``_hovered`` follows the mouse and the item repaints."""

    _hovered = False

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._hovered = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._hovered = False
        self.update()
        super().hoverLeaveEvent(event)

"""Zoomed-out link drawing: one item paints every plain link with a few ``drawLines`` calls
(one per colour) instead of thousands of Python ``paint`` calls.

The scene switches it on below :data:`THIN_BELOW_LOD`: plain links then get
``ItemHasNoContents`` (still visible, selectable and in ``link_items``; Qt just skips their
paint) and the batch draws them as 1-px lines.  Selected links and bundles keep painting
themselves.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

WORLD = QRectF(-1e7, -1e7, 2e7, 2e7)


class LinkBatchItem(QGraphicsItem):
    """Paints the plain links of its scene, grouped by colour; ``invalidate`` after changes."""

    def __init__(self, scene) -> None:
        super().__init__()
        self._scene = scene
        self._groups: list[tuple[QPen, list]] | None = None
        self.setZValue(1)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.setAcceptedMouseButtons(self.acceptedMouseButtons().NoButton)

    def invalidate(self) -> None:
        """The links changed: rebuild the colour groups at the next paint."""
        self._groups = None
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return WORLD

    def _build(self) -> list[tuple[QPen, list]]:
        groups: dict[int, tuple[QColor, list]] = {}
        for item in self._scene.link_items.values():
            if item.bundle_size != 1 or item.isSelected() or not item.isVisible():
                continue
            colour = item.pen().color()
            key = colour.rgba()
            if key not in groups:
                groups[key] = (colour, [])
            groups[key][1].append(item.line())
        return [(QPen(colour, 0), lines) for colour, lines in groups.values()]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        if self._groups is None:
            self._groups = self._build()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for pen, lines in self._groups:
            painter.setPen(pen)
            painter.drawLines(lines)

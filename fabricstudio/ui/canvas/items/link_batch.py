"""Zoomed-out link drawing: one item paints every plain link with a few ``drawLines`` calls
(one per colour) instead of thousands of Python ``paint`` calls.

The scene switches it on below :data:`THIN_BELOW_LOD`: plain links then get
``ItemHasNoContents`` (still visible, selectable and in ``link_items``; Qt just skips their
paint) and the batch draws them as 1-px lines.  Selected links keep painting themselves;
bundles are drawn narrower, with their counts in their tooltips.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

WORLD = QRectF(-1e7, -1e7, 2e7, 2e7)


class LinkBatchItem(QGraphicsItem):
    """Paints the plain links of a LinkLayer, grouped by colour; ``invalidate`` after changes."""

    def __init__(self, layer) -> None:
        super().__init__()
        self._layer = layer
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
        groups: dict[tuple[int, int], tuple[QPen, list]] = {}
        for item in self._layer.all_items():
            if item.isSelected() or not item.isVisible():
                continue
            colour = item.colour()
            # Bundles keep a (narrower) width; aliased lines with flat caps are the raster
            # engine's cheap path (round caps and antialiasing cost 10-50x more).
            width = 0 if item.bundle_size == 1 else min(round(item.line_width() * 0.6), 5)
            key = (colour.rgba(), width)
            if key not in groups:
                pen = QPen(colour, width)
                pen.setCosmetic(True)
                pen.setCapStyle(Qt.PenCapStyle.FlatCap)
                groups[key] = (pen, [])
            groups[key][1].append(item.line())
        return sorted(groups.values(), key=lambda group: group[0].widthF())

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        if self._groups is None:
            self._groups = self._build()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for pen, lines in self._groups:
            painter.setPen(pen)
            painter.drawLines(lines)

"""Batched link drawing: one item paints many links with a few ``drawLines`` calls (one per
pen) instead of a Python ``paint`` call per link.

Coarse (zoomed out, below :data:`THIN_BELOW_LOD`): every link but the selected ones is drawn
as an aliased 1-px line; bundles narrower, with their counts in their tooltips.  Fine (zoomed
in, on a large design): plain links and bundles that show no count (not selected, not under
the mouse) are drawn exactly as they would draw themselves (their own antialiased pen,
clipped to the repainted area): a pan at 100 % on a 32k-GPU fabric repaints a strip crossed
by some 300 lines (mostly bundles to the folded pods off screen), each a Python call.
Batched links get ``ItemHasNoContents`` (still visible, selectable, hoverable and in
``link_items``; Qt just skips their paint).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

WORLD = QRectF(-1e7, -1e7, 2e7, 2e7)
#: A fine batch clips lines to the repainted area grown by this much (as LinkItem does).
CLIP_MARGIN = 4.0


class LinkBatchItem(QGraphicsItem):
    """Paints the plain links of a LinkLayer, grouped by colour; ``invalidate`` after changes."""

    def __init__(self, layer) -> None:
        super().__init__()
        self._layer = layer
        self._groups: list[tuple[QPen, list]] | None = None
        self._fine: list[tuple[QPen, np.ndarray]] | None = None
        self.setZValue(1)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self.setAcceptedMouseButtons(self.acceptedMouseButtons().NoButton)

    def invalidate(self) -> None:
        """The links changed: rebuild the colour groups at the next paint."""
        self._groups = None
        self._fine = None
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return WORLD

    def _build(self) -> list[tuple[QPen, list]]:
        groups: dict[tuple[int, int], tuple[QPen, list]] = {}
        for item in self._layer.all_items():
            if not self._layer.batched(item) or not item.isVisible():
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

    def _build_fine(self) -> list[tuple[QPen, np.ndarray]]:
        groups: dict[tuple[int, float], tuple[QPen, list]] = {}
        for item in self._layer.all_items():
            if not self._layer.batched(item) or not item.isVisible():
                continue
            pen = item.pen()
            key = (pen.color().rgba(), pen.widthF())
            if key not in groups:
                groups[key] = (pen, [])
            line = item.line()
            groups[key][1].append((line.x1(), line.y1(), line.x2(), line.y2()))
        return [(pen, np.array(lines, dtype=float).reshape(-1, 4))
                for pen, lines in groups.values()]

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        if not self._layer.batching:
            self._paint_fine(painter, option.exposedRect)
            return
        if self._groups is None:
            self._groups = self._build()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        for pen, lines in self._groups:
            painter.setPen(pen)
            painter.drawLines(lines)

    def _paint_fine(self, painter: QPainter, exposed: QRectF) -> None:
        if self._fine is None:
            self._fine = self._build_fine()
        area = exposed.adjusted(-CLIP_MARGIN, -CLIP_MARGIN, CLIP_MARGIN, CLIP_MARGIN)
        box = (area.left(), area.top(), area.right(), area.bottom())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        for pen, lines in self._fine:
            visible = clip_lines(lines, box)
            if len(visible):
                painter.setPen(pen)
                painter.drawLines([QLineF(*row) for row in visible.tolist()])


def clip_lines(lines: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """The parts of ``lines`` (rows x0, y0, x1, y1) inside ``box`` (left, top, right, bottom),
    Liang-Barsky on every row at once; lines that miss it are left out."""
    x0, y0, x1, y1 = lines.T
    dx, dy = x1 - x0, y1 - y0
    start = np.zeros(len(lines))
    end = np.ones(len(lines))
    keep = np.ones(len(lines), dtype=bool)
    left, top, right, bottom = box
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
            keep &= ~((p == 0) & (q < 0))  # parallel to this edge, and outside it
            ratio = q / p
            start = np.where(p < 0, np.maximum(start, ratio), start)
            end = np.where(p > 0, np.minimum(end, ratio), end)
    keep &= start <= end
    s, e = start[keep, None], end[keep, None]
    a, d = lines[keep, :2], lines[keep, 2:] - lines[keep, :2]
    return np.hstack([a + s * d, a + e * d])

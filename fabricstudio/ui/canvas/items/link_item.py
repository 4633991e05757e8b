"""A link between two device items.  Parallel links fan out; a bundle of many parallel links
is drawn by its first member as one thick line with a count ("8 x 400G"), the others hidden."""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QStyleOptionGraphicsItem, QWidget

from fabricstudio.model import Link
from fabricstudio.ui.theme import DARK, PLANE_COLOURS, Theme, speed_colour, speed_text

_COUNT_FONT = QFont()
_COUNT_FONT.setPixelSize(10)
_COUNT_FONT.setBold(True)


class LinkItem(QGraphicsLineItem):
    """Canvas item of one link.

    ``link`` is the model value; ``line()`` is the drawn centre line (shifted by ``offset``
    for fanned parallel links); ``bundle_size`` > 1 marks the member that draws a bundle.
    """

    def __init__(self, link: Link) -> None:
        super().__init__()
        self.link_id = link.id
        self.link = link
        self.offset = 0.0
        self.bundle_size = 1
        self.colour_by = "speed"
        #: Draw the bundle count permanently (the scene turns it off when bundles crowd).
        self.show_count = True
        self._hovered = False
        self.setAcceptHoverEvents(True)
        self.setZValue(1)
        self.setFlag(QGraphicsLineItem.GraphicsItemFlag.ItemIsSelectable)
        self._apply_style()

    def set_link(self, link: Link) -> None:
        """Show a new value of the link."""
        if link != self.link:
            self.link = link
            self._apply_style()

    def set_colour_mode(self, mode: str) -> None:
        """'speed' or 'plane'."""
        if mode != self.colour_by:
            self.colour_by = mode
            self._apply_style()

    def set_bundle_size(self, size: int) -> None:
        """How many parallel links this item stands for (1 = itself only)."""
        if size != self.bundle_size:
            self.prepareGeometryChange()
            self.bundle_size = size
            self._apply_style()

    def colour(self):
        """The link's colour in the current mode."""
        if self.colour_by == "plane":
            return PLANE_COLOURS[self.link.plane]
        return speed_colour(self.link.speed_gbps)

    def _apply_style(self) -> None:
        width = 1.2 + min(self.link.speed_gbps, 800.0) / 400.0
        if self.bundle_size > 1:
            width = min(3.0 + self.bundle_size ** 0.5 * 1.2, 12.0)
        pen = QPen(self.colour(), width)
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        lk = self.link
        count = f"{self.bundle_size} parallel links, " if self.bundle_size > 1 else ""
        self.setToolTip(f"<b>{lk.id}</b>: {lk.a}:{lk.a_port} &harr; {lk.b}:{lk.b_port}<br>"
                        f"{count}{lk.speed_gbps:g} Gb/s, {lk.length_m:g} m {lk.reach_class}, "
                        f"{lk.plane.value} network")

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        """Place the line between two points, shifted by ``offset`` perpendicular to it."""
        line = QLineF(a, b)
        if self.offset and line.length() > 0:
            normal = line.normalVector().unitVector()
            shift = QPointF(normal.dx() * self.offset, normal.dy() * self.offset)
            line = QLineF(a + shift, b + shift)
        if line != self.line():
            self.setLine(line)

    def bundle_label(self) -> str:
        """'8 x 400G' for a bundle, '' otherwise."""
        if self.bundle_size <= 1:
            return ""
        return f"{self.bundle_size} x {speed_text(self.link.speed_gbps)}"

    # ------------------------------------------------------------------- Qt API
    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        rect = super().boundingRect()
        return rect.adjusted(-80, -20, 80, 20) if self.bundle_size > 1 else rect.adjusted(-3, -3, 3, 3)

    def shape(self) -> QPainterPath:
        path = QPainterPath(self.line().p1())
        path.lineTo(self.line().p2())
        stroker = QPainterPathStroker()
        stroker.setWidth(8)
        return stroker.createStroke(path)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        theme: Theme = getattr(self.scene(), "theme", DARK)
        pen = QPen(self.pen())
        if self.isSelected():
            pen.setColor(theme.highlight)
            pen.setWidthF(pen.widthF() + 1.5)
        painter.setPen(pen)
        painter.drawLine(self.line())
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if self.bundle_size > 1 and lod > 0.45 and (self.show_count or self.isSelected()
                                                    or self._hovered):
            self._paint_count(painter, theme, lod)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._hovered = True
        self.update()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._hovered = False
        self.update()
        super().hoverLeaveEvent(event)

    def _paint_count(self, painter: QPainter, theme: Theme, lod: float) -> None:
        text = self.bundle_label()
        painter.save()
        centre = self.line().pointAt(0.5)
        painter.translate(centre)
        if lod < 1:  # zoomed out: keep the label readable; zoomed in: it grows with the canvas
            painter.scale(1 / lod, 1 / lod)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(_COUNT_FONT)
        width = QFontMetricsF(_COUNT_FONT).horizontalAdvance(text) + 10
        rect = QRectF(-width / 2, -8, width, 16)
        painter.setPen(QPen(self.colour(), 1.2))
        painter.setBrush(theme.panel)
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(theme.text)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

"""A link drawn between two device items; parallel links fan out."""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsLineItem

from fabricstudio.model import Link, Plane

PLANE_COLOURS = {
    Plane.COMPUTE: QColor("#4D4D4D"),
    Plane.STORAGE: QColor("#AA4499"),
    Plane.MANAGEMENT: QColor("#A0A0A0"),
}


class LinkItem(QGraphicsLineItem):
    """Canvas item of one link; ``offset`` shifts it sideways to fan parallel links."""

    def __init__(self, link: Link) -> None:
        super().__init__()
        self.link_id = link.id
        self.link = link
        self.offset = 0.0
        self.setZValue(1)
        self.setFlag(QGraphicsLineItem.GraphicsItemFlag.ItemIsSelectable)
        self._apply_style()

    def set_link(self, link: Link) -> None:
        """Show a new value of the link."""
        self.link = link
        self._apply_style()

    def _apply_style(self) -> None:
        width = 1.0 + min(self.link.speed_gbps, 800.0) / 400.0
        pen = QPen(PLANE_COLOURS[self.link.plane], width)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setToolTip(f"{self.link.id}: {self.link.a}:{self.link.a_port} - "
                        f"{self.link.b}:{self.link.b_port}, {self.link.speed_gbps:g} Gb/s, "
                        f"{self.link.length_m:g} m ({self.link.plane.value})")

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        """Place the line between two points, shifted by ``offset`` perpendicular to it."""
        line = QLineF(a, b)
        if self.offset and line.length() > 0:
            normal = line.normalVector().unitVector()
            shift = QPointF(normal.dx() * self.offset, normal.dy() * self.offset)
            line = QLineF(a + shift, b + shift)
        if line != self.line():
            self.setLine(line)

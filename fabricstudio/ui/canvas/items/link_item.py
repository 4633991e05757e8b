"""A link on the canvas.  Parallel links fan out; a *strand* of many parallel links, or of links
ending at a collapsed group, is drawn by one item as one thick line with a count ("8 x 400G").

``members`` are the ids of the links an item draws (one, or the whole strand); ``link`` is the
first of them (its ends give the line's direction: ``line().p1()`` is at ``link.a``'s end).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
)
from PySide6.QtWidgets import QGraphicsLineItem, QStyleOptionGraphicsItem, QWidget

from fabricstudio.model import Link
from fabricstudio.topology.geometry import clip_segment
from fabricstudio.ui.canvas.items.host import item_scene, item_theme
from fabricstudio.ui.canvas.items.hover import HoverHighlight
from fabricstudio.ui.theme import Theme, speed_colour, speed_text

#: Zoomed out below this, plain links are drawn as 1-px aliased lines (cheap for thousands).
THIN_BELOW_LOD = 0.5
#: Where along a bundle (from end a) its count sits; off-centre so crossing bundles'
#: labels do not land on one another.
LABEL_AT = 0.38
_COUNT_FONT = QFont()
_COUNT_FONT.setPixelSize(10)
_COUNT_FONT.setBold(True)


class LinkItem(HoverHighlight, QGraphicsLineItem):
    """Canvas item of one link (:class:`BundleItem`: of a bundle standing for ``members``).

    The bounding rectangle is Qt's own (no Python call per item when the view collects what
    to paint); only bundles, whose count label reaches beyond the line, compute their own.
    """

    def __init__(self, link: Link, members: Sequence[str] | None = None,
                 colour: QColor | None = None) -> None:
        super().__init__()
        self.link_id = link.id
        self.link = link
        self.members: list[str] = list(members) if members else [link.id]
        self.offset = 0.0
        self.bundle_size = 1
        #: Names of the ends when they are collapsed groups (for the tooltip).
        self.end_labels: tuple[str, str] | None = None
        #: Draw the bundle count permanently (the scene turns it off when bundles crowd).
        self.show_count = True
        self._colour = QColor(colour) if colour is not None else speed_colour(link.speed_gbps)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)
        self.setFlag(QGraphicsLineItem.GraphicsItemFlag.ItemIsSelectable)
        # exposedRect lets paint() clip long lines to the repainted strip
        self.setFlag(QGraphicsLineItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self._apply_style()

    # ----------------------------------------------------------------- setters
    def set_link(self, link: Link) -> None:
        """Show a new value of the link."""
        if link != self.link:
            self.link = link
            self.setToolTip("")
            self._apply_style()

    def set_members(self, members: Sequence[str], bundle: bool) -> None:
        """The links this item draws; ``bundle`` = drawn as one line with a count."""
        self.members = list(members)
        self.set_bundle_size(len(self.members) if bundle else 1)
        self.setToolTip("")

    def set_colour(self, colour: QColor) -> None:
        """Colour of the line (the scene's colouring mode picks it)."""
        if colour != self._colour:
            self._colour = QColor(colour)
            self._apply_style()

    def set_bundle_size(self, size: int) -> None:
        """How many parallel links this item stands for (1 = itself only)."""
        if size != self.bundle_size:
            self.bundle_size = size
            self._apply_style()

    def colour(self) -> QColor:
        """The line's colour."""
        return QColor(self._colour)

    def line_width(self) -> float:
        """Screen width of the line: 1 px for a link, wider the more links a bundle holds."""
        if self.bundle_size > 1:
            return min(3.0 + self.bundle_size ** 0.5 * 1.2, 12.0)
        return 1.0

    def _apply_style(self) -> None:
        # Flat caps: the raster engine draws a wide antialiased line with flat caps on its fast
        # path; with round caps it strokes a path, 10-200x slower (a 12-px bundle across the
        # view: ~13 ms, and a zoomed-in 32k-GPU fabric shows dozens).  The ends sit under
        # the devices or tiles they join, so the caps are not seen.  Speed shows as colour,
        # bundles as width.
        pen = QPen(self._colour, self.line_width())
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.setPen(pen)
        self._thin_pen = QPen(self._colour, 0)
        self.update()

    def tooltip_text(self) -> str:
        """Ends, speed, length, network and (on a scene with a design) what the cable is made
        of, from THE cable-class function; a bundle names its count and ends."""
        lk = self.link
        if self.bundle_size > 1:
            a, b = self.end_labels or (lk.a, lk.b)
            text = (f"<b>{self.bundle_size} links</b> {html.escape(a)} &harr; "
                    f"{html.escape(b)}<br>{lk.speed_gbps:g} Gb/s each, {lk.plane.value} "
                    f"network<br>first: {lk.id} ({lk.a}:{lk.a_port} &harr; {lk.b}:{lk.b_port})")
        else:
            text = (f"<b>{lk.id}</b>: {lk.a}:{lk.a_port} &harr; {lk.b}:{lk.b_port}<br>"
                    f"{lk.speed_gbps:g} Gb/s, {lk.length_m:g} m, {lk.plane.value} network")
        scene = item_scene(self)
        design = scene.design if scene is not None else None
        if design is not None and lk.a in design.devices and lk.b in design.devices:
            from fabricstudio.model.cabling import cable_for

            text += "<br>" + html.escape(cable_for(design, lk).label)
        return text

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        # Built on hover (thousands of links open faster); the technology may have changed.
        self.setToolTip(self.tooltip_text())
        super().hoverEnterEvent(event)
        scene = item_scene(self)
        if scene is not None:
            scene.link_hovered(self)

    def hoverLeaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().hoverLeaveEvent(event)
        scene = item_scene(self)
        if scene is not None:
            scene.link_hovered(self)

    @property
    def hovered(self) -> bool:
        """True while the mouse is over the item."""
        return self._hovered

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
    def shape(self) -> QPainterPath:
        path = QPainterPath(self.line().p1())
        path.lineTo(self.line().p2())
        stroker = QPainterPathStroker()
        stroker.setWidth(8)
        return stroker.createStroke(path)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        # The hot path of a zoomed-out fabric: keep it to a few calls per link.
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        selected = self.isSelected()
        thin = lod < THIN_BELOW_LOD and self.bundle_size == 1 and not selected
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, not thin)
        if thin:
            painter.setPen(self._thin_pen)
        elif selected:
            pen = QPen(self.pen())
            pen.setColor(item_theme(self).highlight)
            pen.setWidthF(pen.widthF() + 1.5)
            painter.setPen(pen)
        else:
            painter.setPen(self.pen())
        exposed = option.exposedRect
        line = self.line()
        visible = line if exposed.contains(self.boundingRect()) else \
            clip_line(line, exposed.adjusted(-4, -4, 4, 4))
        if visible is not None:
            painter.drawLine(visible)
        if self.bundle_size > 1 and (self.show_count or selected or self._hovered) \
                and line.length() * lod > 90:
            self._paint_count(painter, item_theme(self), lod)

    def _paint_count(self, painter: QPainter, theme: Theme, lod: float) -> None:
        text = self.bundle_label()
        painter.save()
        centre = self.line().pointAt(LABEL_AT)
        if lod < 1:  # zoomed out: keep the label readable (device pixels, glyph cache)
            origin = painter.worldTransform().map(centre)
            painter.resetTransform()
            painter.translate(origin)
        else:  # zoomed in: it grows with the canvas
            painter.translate(centre)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setFont(_COUNT_FONT)
        width = QFontMetricsF(_COUNT_FONT).horizontalAdvance(text) + 10
        rect = QRectF(-width / 2, -8, width, 16)
        painter.setPen(QPen(self._colour, 1.2))
        painter.setBrush(theme.panel)
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(theme.text)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class BundleItem(LinkItem):
    """A bundle: one thick line with a count ("32 x 400G") for a strand of links; its bounds
    take in the count label."""

    #: Its bounds (a class default: the base class's __init__ already asks for them).
    _bounds = QRectF()

    def __init__(self, link: Link, members: Sequence[str], colour: QColor | None = None) -> None:
        super().__init__(link, members, colour)
        self.set_members(members, True)

    def set_members(self, members: Sequence[str], bundle: bool = True) -> None:
        """The links this bundle draws (always drawn as a bundle)."""
        super().set_members(members, True)
        self._update_bounds()

    def set_ends(self, a: QPointF, b: QPointF) -> None:
        super().set_ends(a, b)
        self._update_bounds()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def _update_bounds(self) -> None:
        line = self.line()
        rect = QRectF(line.p1(), line.p2()).normalized().adjusted(-80.0, -20.0, 80.0, 20.0)
        if rect != self._bounds:
            self.prepareGeometryChange()
            self._bounds = rect


def clip_line(line: QLineF, rect: QRectF | None) -> QLineF | None:
    """The part of ``line`` inside ``rect`` (Liang-Barsky), None when it misses.

    The raster engine rasterises a long antialiased line in full even when only a strip of it
    is exposed (a pan repaints a 12-px strip crossed by thousands of links), so links clip
    themselves first.
    """
    if rect is None or rect.isEmpty():
        return line
    x0, y0, x1, y1 = line.x1(), line.y1(), line.x2(), line.y2()
    inside = clip_segment((x0, y0), (x1, y1),
                          (rect.left(), rect.top(), rect.right(), rect.bottom()))
    if inside is None:
        return None
    t0, t1 = inside
    dx, dy = x1 - x0, y1 - y0
    if t0 == 0.0 and t1 == 1.0:
        return line
    return QLineF(x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy)

"""Groups on the canvas: a collapsed group is one tile (its name and counts, bundled links end
at it); an expanded group is a faint frame around its devices with a header tab.

Both are moved as one: dragging a tile moves the tile (the scene turns the displacement into
one move of every device of the group); pressing a frame's header selects the group's items,
so dragging it moves them together.  Double-click either to fold or unfold the group in place.
Text is drawn at a fixed size on screen, and only where it fits.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from fabricstudio.model import DeviceKind, Group, GroupKind
from fabricstudio.topology.folding import GroupCounts
from fabricstudio.ui.canvas.items.host import item_scene, item_theme
from fabricstudio.ui.canvas.items.hover import HoverHighlight
from fabricstudio.ui.theme import KIND_COLOURS

_TITLE = QFont()
_TITLE.setPixelSize(12)
_TITLE.setBold(True)
_BODY = QFont()
_BODY.setPixelSize(11)
_TITLE_METRICS = QFontMetricsF(_TITLE)
_BODY_METRICS = QFontMetricsF(_BODY)
#: Header tab of an expanded group's frame (screen px).
HEADER_H = 18.0
#: Free screen room a tab outside its frame keeps to what lies above it (px).
TAB_CLEARANCE = 2.0
RADIUS = 14.0
#: A tile larger than this on screen (px) is drawn without an item cache (see set_lod).
LARGE_TILE_PX = 200.0
#: An outline longer than this on screen (px) is cut to the view before it is drawn.
CUT_OUTLINE_ABOVE_PX = 4096.0
#: Corners rounder than this on screen (px) are drawn round (and antialiased); below it a
#: plain rectangle looks the same.
ROUND_FROM_PX = 1.5


_FONTS: dict[int, tuple[QFont, QFont]] = {}


def _fonts(size: int) -> tuple[QFont, QFont]:
    """Title and body fonts of a tile's text at ``size`` px."""
    if size not in _FONTS:
        title = QFont()
        title.setPixelSize(size)
        title.setBold(True)
        body = QFont()
        body.setPixelSize(max(11, round(size * 0.85)))
        _FONTS[size] = (title, body)
    return _FONTS[size]


def _to_device(painter: QPainter, point: QPointF) -> None:
    """Put the painter in device pixels with the origin at ``point`` (item coordinates): text
    is then drawn at its own size from the glyph cache, not as paths under a huge scale."""
    origin = painter.worldTransform().map(point)
    painter.resetTransform()
    painter.translate(origin)


def on_screen_part(painter: QPainter, rect: QRectF, widget: QWidget | None,
                   radius: float) -> QRectF:
    """``rect`` (item coordinates) cut down to what the view shows plus a margin in which
    any corner the cut makes stays off screen.  Zoomed in, a group's outline is tens of
    thousands of pixels long; the raster engine strokes all of it (an antialiased rounded
    rectangle: milliseconds), so the part on screen is drawn instead, which looks the same."""
    if widget is None:
        return rect
    transform, invertible = painter.worldTransform().inverted()
    if not invertible:
        return rect
    view = transform.mapRect(QRectF(widget.rect()))
    if view.contains(rect):
        return rect
    margin = 2 * radius + 8 * max(view.width() / max(widget.width(), 1), 1e-9)
    return rect.intersected(view.adjusted(-margin, -margin, margin, margin))


def _fill_outline(painter: QPainter, rect: QRectF, colour: QColor, width: float) -> None:
    """A rectangle's outline, ``width`` thick inside it, as four fills (an outlined
    rectangle under a zoomed-out transform is stroked as a path, ~50x slower)."""
    width = min(width, rect.width() / 2, rect.height() / 2)
    painter.fillRect(QRectF(rect.left(), rect.top(), rect.width(), width), colour)
    painter.fillRect(QRectF(rect.left(), rect.bottom() - width, rect.width(), width), colour)
    side = rect.height() - 2 * width  # the sides between them (no corner drawn twice)
    painter.fillRect(QRectF(rect.left(), rect.top() + width, width, side), colour)
    painter.fillRect(QRectF(rect.right() - width, rect.top() + width, width, side), colour)


def counts_text(counts: GroupCounts) -> str:
    """'256 GPUs · 32 servers · 8 switches'."""
    return " · ".join(counts_parts(counts))


def counts_parts(counts: GroupCounts) -> list[str]:
    """['256 GPUs', '32 servers', '8 switches']: the counts a tile says, most telling first."""
    parts = []
    if counts.servers:
        parts.append(f"{counts.gpus:,} GPUs")
        parts.append(f"{counts.servers:,} server{'s' * (counts.servers != 1)}")
    if counts.storage:
        parts.append(f"{counts.storage:,} storage")
    if counts.switches:
        parts.append(f"{counts.switches:,} switch{'es' * (counts.switches != 1)}")
    return parts


def fitting_counts(parts: list[str], metrics: QFontMetricsF, width: float) -> str:
    """As many whole counts as fit in ``width`` px ("256 GPUs · 32 servers", never
    "256 GPUs · …"); the first one elided when even it does not fit."""
    text = ""
    for part in parts:
        longer = f"{text} · {part}" if text else part
        if metrics.horizontalAdvance(longer) > width:
            break
        text = longer
    if not text and parts:
        text = metrics.elidedText(parts[0], Qt.TextElideMode.ElideRight, width)
    return text


def tile_colour(counts: GroupCounts) -> QColor:
    """A tile takes the colour of what it mostly holds: GPU servers, storage or switches."""
    if counts.servers:
        return KIND_COLOURS[DeviceKind.GPU_SERVER]
    if counts.storage:
        return KIND_COLOURS[DeviceKind.STORAGE_SERVER]
    return KIND_COLOURS[DeviceKind.LEAF]


class GroupTile(HoverHighlight, QGraphicsRectItem):
    """A collapsed group: a rounded tile over the place its devices take.

    ``pos()`` is the tile's centre; ``home`` is where the design puts it (the scene compares
    the two to see a drag).  ``group_id`` names the group.
    """

    def __init__(self, group: Group, rect: QRectF, counts: GroupCounts) -> None:
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.group_id = group.id
        self.group = group
        self.counts = counts
        self._body = counts_text(counts)
        self._parts = counts_parts(counts)
        self._style()
        self._rect = QRectF()
        self.home = QPointF()
        self._placing = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setZValue(8)
        # Text on hundreds of tiles is the cost of a zoomed-out repaint: each tile keeps its
        # picture at the current zoom (redrawn when the zoom changes), so pans just blit.
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.set_geometry(rect)

    def set_lod(self, scale: float) -> None:
        """Follow the view's zoom: a tile larger than LARGE_TILE_PX on screen is drawn
        without a cache, so that its text can stay in the part of it that is on screen."""
        rect = self._rect
        large = max(rect.width(), rect.height()) * scale > LARGE_TILE_PX
        mode = (QGraphicsItem.CacheMode.NoCache if large
                else QGraphicsItem.CacheMode.DeviceCoordinateCache)
        if self.cacheMode() != mode:
            self.setCacheMode(mode)

    def set_geometry(self, rect: QRectF) -> None:
        """Cover ``rect`` (scene coordinates)."""
        local = QRectF(-rect.width() / 2, -rect.height() / 2, rect.width(), rect.height())
        if local != self._rect:
            self._rect = local
            self.setRect(local.adjusted(-4, -4, 4, 4))
        self.home = rect.center()
        self._placing = True
        try:
            self.setPos(self.home)
        finally:
            self._placing = False

    def set_group(self, group: Group, counts: GroupCounts) -> None:
        """Show a new value of the group."""
        self.group, self.counts = group, counts
        self._body = counts_text(counts)
        self._parts = counts_parts(counts)
        self._style()
        self.setToolTip("")
        self.update()

    def tile_rect(self) -> QRectF:
        """The tile in local coordinates."""
        return QRectF(self._rect)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self._rect)
        return path

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self.toolTip():
            self.setToolTip(f"<b>{self.group.label}</b> &middot; {self.group.kind.label}, "
                            f"collapsed<br>{counts_text(self.counts)}<br>"
                            "Double-click to expand in place")
        super().hoverEnterEvent(event)

    def itemChange(self, change, value):  # noqa: N802 - Qt override
        scene = item_scene(self)
        if scene is not None and not self._placing:
            if change == QGraphicsItem.GraphicsItemChange.ItemPositionChange:
                return scene.snap_delta(self.home, value)
            if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
                scene.node_moved(self.group_id)
        return super().itemChange(change, value)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt override
        scene = item_scene(self)
        if scene is not None:
            scene.toggle_group(self.group_id)
        event.accept()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        rect = self._rect
        selected = self.isSelected()
        on_screen_w, on_screen_h = rect.width() * lod, rect.height() * lod
        if on_screen_w < 6 or on_screen_h < 6:
            painter.fillRect(rect, self._highlight() if selected else self._fill)
            return
        radius = min(RADIUS, rect.width() / 4, rect.height() / 4)
        if selected or self._hovered:
            pen = QPen(self._highlight(), 3 if selected else 1.5)
            pen.setCosmetic(True)
        else:
            pen = self._border
        shown = on_screen_part(painter, rect, widget, radius) \
            if self.cacheMode() == QGraphicsItem.CacheMode.NoCache else rect
        if radius * lod < ROUND_FROM_PX:  # zoomed out: the corners are not seen; fills are
            # many times cheaper than an outlined rectangle (the raster engine strokes it)
            painter.fillRect(shown, pen.color())
            inset = pen.widthF() / lod
            painter.fillRect(shown.adjusted(inset, inset, -inset, -inset), self._fill)
        elif not shown.isEmpty():
            painter.setPen(pen)
            painter.setBrush(self._fill)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.drawRoundedRect(shown, radius, radius)
        self._paint_text(painter, lod, on_screen_w, on_screen_h, widget)

    def _highlight(self) -> QColor:
        theme = item_theme(self)
        return theme.highlight

    def _measures(self, painter: QPainter, size: int) -> tuple[float, list[str], list[float]]:
        """The title's advance and the counts' prefixes ("256 GPUs", "256 GPUs · 32
        servers", ...) with theirs, in the metrics of the device drawn on (a high-DPI cache
        differs from the screen), measured once per text size: a zoom step redraws hundreds
        of tiles, and measuring text is most of a tile's cost."""
        key = (size, painter.device().devicePixelRatioF())
        measures = self._measured.get(key)
        if measures is None:
            title_font, body_font = _fonts(size)
            painter.save()
            painter.setFont(title_font)
            title = painter.fontMetrics().horizontalAdvance(self.group.label)
            painter.setFont(body_font)
            metrics = QFontMetricsF(painter.fontMetrics())
            painter.restore()
            prefixes = [" · ".join(self._parts[:n]) for n in range(1, len(self._parts) + 1)]
            measures = (title, prefixes, [metrics.horizontalAdvance(p) for p in prefixes])
            self._measured[key] = measures
        return measures

    def _title_text(self, painter: QPainter, size: int, width: float) -> str:
        """The title, elided when it does not fit in ``width`` (painter in the title font)."""
        if self._measures(painter, size)[0] <= int(width):
            return self.group.label
        return painter.fontMetrics().elidedText(self.group.label, Qt.TextElideMode.ElideRight,
                                                int(width))

    def _counts_text(self, painter: QPainter, size: int, width: float) -> str:
        """As many whole counts as fit (:func:`fitting_counts`; painter in the body font)."""
        _title, prefixes, advances = self._measures(painter, size)
        fitting = [p for p, a in zip(prefixes, advances, strict=True) if a <= width]
        if fitting:
            return fitting[-1]
        return fitting_counts(self._parts, QFontMetricsF(painter.fontMetrics()), width)

    def _style(self) -> None:
        self._measured: dict[tuple[int, float], tuple[float, list[str], list[float]]] = {}
        colour = tile_colour(self.counts)
        self._fill = QColor(colour)
        self._border = QPen(colour.darker(140), 1.5)
        self._border.setCosmetic(True)

    def _paint_text(self, painter: QPainter, lod: float, width: float, height: float,
                    widget: QWidget | None = None) -> None:
        """Title and counts at a fixed screen size, where they fit: centred on the tile, or
        on its part on screen when the tile is larger than the view (uncached then)."""
        if height < 16 or width < 40:
            return
        size = int(min(22, max(12, height * 0.14)))  # larger tiles get larger text
        painter.save()
        on_device = painter.worldTransform().mapRect(self._rect)
        shown = on_device
        if widget is not None and self.cacheMode() == QGraphicsItem.CacheMode.NoCache:
            shown = on_device.intersected(QRectF(widget.rect()))
            if shown.width() < 40 or shown.height() < 16:
                painter.restore()
                return
            width, height = shown.width(), shown.height()
        painter.resetTransform()
        painter.translate(shown.center())
        box = QRectF(-width / 2 + 6, -height / 2 + 2, width - 12, height - 4)
        painter.setClipRect(box)  # never spill over the neighbours
        box = box.adjusted(2, 0, -2, 0)
        painter.setPen(QColor("white"))
        title_font, body_font = _fonts(size)
        painter.setFont(title_font)
        title = self._title_text(painter, size, box.width())
        body = self._body
        line = size * 1.4
        if height >= 3 * size and body:
            painter.drawText(QRectF(box.left(), -line, box.width(), line),
                             Qt.AlignmentFlag.AlignCenter, title)
            painter.setFont(body_font)
            text = self._counts_text(painter, size, box.width())
            painter.drawText(QRectF(box.left(), 1, box.width(), line),
                             Qt.AlignmentFlag.AlignCenter, text)
        else:
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, title)
        painter.restore()


class GroupFrame(QGraphicsRectItem):
    """An expanded group: a faint outline around its devices and a header tab with its name.

    The tab sits on the outline's top edge, outside, when the room above the group
    (``room_above``, scene units) holds it at the current zoom; else inside the top-left
    corner, over the group's own drawing rather than over the tiles or devices above it.
    Only the header takes the mouse (the canvas inside stays free for rubber-band selection).
    """

    def __init__(self, group: Group, rect: QRectF, depth: int = 0,
                 room_above: float = math.inf) -> None:
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.group_id = group.id
        self.group = group
        self.depth = depth
        self._rect = QRectF(rect)
        self._room_above = room_above
        self._lod = 1.0
        self._title_width: float | None = None
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable)
        self.setZValue(9 + depth * 0.01)  # over tiles (z 8): headers stay readable
        self._update_bounds()

    def set_geometry(self, rect: QRectF, room_above: float | None = None) -> None:
        """Surround ``rect`` (scene coordinates), with ``room_above`` free above it."""
        self.setPos(0, 0)
        room = self._room_above if room_above is None else room_above
        if rect != self._rect or room != self._room_above:
            self._rect = QRectF(rect)
            self._room_above = room
            self._update_bounds()

    def set_group(self, group: Group) -> None:
        """Show a new value of the group."""
        self.group = group
        self._title_width = None
        self._update_bounds()
        self.update()

    def set_lod(self, lod: float) -> None:
        """The view's scale: the header keeps its size on screen."""
        if abs(lod - self._lod) > 1e-9:
            self._lod = lod
            self._update_bounds()

    def frame_rect(self) -> QRectF:
        """The outline (scene coordinates when the frame is not being dragged)."""
        return QRectF(self._rect)

    def _header(self, lod: float | None = None) -> QRectF:
        lod = lod or self._lod
        if self._title_width is None:
            self._title_width = _TITLE_METRICS.horizontalAdvance(self.group.label) + 16
        width = self._title_width / lod
        height = HEADER_H / lod
        outside = (HEADER_H + TAB_CLEARANCE) / lod <= self._room_above
        top = self._rect.top() - height if outside else self._rect.top()
        return QRectF(self._rect.left(), top, width, height)

    def tab_inside(self, lod: float | None = None) -> bool:
        """True when the name tab is drawn inside the outline (no room above it)."""
        return self._header(lod).top() >= self._rect.top()

    def _update_bounds(self) -> None:
        self.setRect(self._rect.united(self._header()).adjusted(-3, -3, 3, 3))

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self._header())
        return path

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().mousePressEvent(event)
        scene = item_scene(self)
        if scene is not None and event.button() == Qt.MouseButton.LeftButton:
            scene.select_group_items(self.group_id)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt override
        scene = item_scene(self)
        if scene is not None:
            scene.toggle_group(self.group_id)
        event.accept()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        theme = item_theme(self)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        selected = self.isSelected()
        colour = QColor(theme.highlight if selected else theme.muted)
        colour.setAlpha(230 if selected else 110)
        pen = QPen(colour, 1.6 if selected else 1.0,
                   Qt.PenStyle.SolidLine if self.group.kind is not GroupKind.RACK
                   else Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, lod > 0.2)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        radius = min(RADIUS, self._rect.width() / 6, self._rect.height() / 6)
        outline = self._rect
        if max(outline.width(), outline.height()) * lod > CUT_OUTLINE_ABOVE_PX:
            outline = on_screen_part(painter, outline, widget, radius)
        if outline.isEmpty():
            pass
        elif radius * lod < ROUND_FROM_PX and pen.style() == Qt.PenStyle.SolidLine:
            _fill_outline(painter, outline, colour, pen.widthF() / lod)
        elif radius * lod < ROUND_FROM_PX:
            painter.drawRect(outline)
        else:
            painter.drawRoundedRect(outline, radius, radius)
        header = self._header(lod)
        if header.width() * lod > self._rect.width() * lod + 40:
            return
        painter.save()
        _to_device(painter, header.topLeft())
        tab = QRectF(0, 0, header.width() * lod, HEADER_H)
        fill = QColor(theme.highlight if selected else theme.panel)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(tab, 5, 5)
        painter.setFont(_TITLE)
        painter.setPen(QColor("white") if selected else theme.text)
        painter.drawText(tab, Qt.AlignmentFlag.AlignCenter, self.group.label)
        painter.restore()

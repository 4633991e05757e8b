"""A device on the canvas: a coloured tile with the kind's SVG glyph, a label below and a
port-usage badge; level of detail drops the label, badge and glyph when small on screen."""

from __future__ import annotations

import html

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPaintEngine,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from fabricstudio.model import Device, DeviceKind
from fabricstudio.model.footprint import LABEL_GAP, LABEL_HEIGHT, LABEL_WIDTH, TILE
from fabricstudio.ui.canvas.items.host import item_scene, item_theme
from fabricstudio.ui.canvas.items.hover import HoverHighlight
from fabricstudio.ui.icons import glyph_pixmap, kind_glyph
from fabricstudio.ui.theme import DARK, INVALID, KIND_COLOURS, VALID, WARNING, Theme

HANDLE_RADIUS = 5.5
BOUNDS = QRectF(-LABEL_WIDTH / 2 - 2, -TILE / 2 - 10, LABEL_WIDTH + 4, TILE + 36)
#: On-screen tile size (px) below which only a flat tile is drawn, and below which labels go.
FLAT_BELOW_PX = 14.0
LABEL_BELOW_PX = 26.0

_VECTOR_ENGINES = (QPaintEngine.Type.SVG, QPaintEngine.Type.Pdf, QPaintEngine.Type.Picture)
_LABEL_FONT = QFont()
_LABEL_FONT.setPixelSize(11)
_BADGE_FONT = QFont()
_BADGE_FONT.setPixelSize(9)
_BADGE_FONT.setBold(True)


class DeviceItem(HoverHighlight, QGraphicsRectItem):
    """Canvas item of one device; knows only its device value and port usage, never the Design.

    ``device_id`` is stable; the scene calls :meth:`set_device`, :meth:`set_port_usage` and
    :meth:`set_feedback` (link-drawing highlight), each a no-op when nothing changed.
    """

    def __init__(self, device: Device) -> None:
        super().__init__(BOUNDS)  # Qt's own boundingRect: no Python call per item per paint
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.device_id = device.id
        self._device = device
        self._used = 0
        self._warn = False
        self._total = device.port_count()
        self._feedback: str | None = None
        self._placing = False
        self.setFlags(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setZValue(10)
        self._apply(device)

    # ----------------------------------------------------------------- setters
    def set_device(self, device: Device) -> None:
        """Show a new value of the device (no-op if unchanged)."""
        if device == self._device:
            return
        self._apply(device)

    def _apply(self, device: Device) -> None:
        self._device = device
        self._total = device.port_count()
        if self.pos() != QPointF(device.x, device.y):
            self._placing = True  # the design's position is exact: no snapping
            try:
                self.setPos(device.x, device.y)
            finally:
                self._placing = False
        self.setToolTip("")
        self.update()

    def set_port_usage(self, used: int, warn: bool = False) -> None:
        """Number of connected ports (shown in the badge); ``warn`` = a data NIC is unconnected."""
        if (used, warn) != (self._used, self._warn):
            self._used, self._warn = used, warn
            self.update()

    def set_feedback(self, state: str | None) -> None:
        """Link-drawing highlight: 'valid', 'invalid', 'source' or None."""
        if state != self._feedback:
            self._feedback = state
            self.update()

    @property
    def device(self) -> Device:
        """The device value currently shown."""
        return self._device

    def handle_pos(self) -> QPointF:
        """Scene position of the connector handle (drag from it to draw a link)."""
        return self.mapToScene(QPointF(TILE / 2, 0))

    # ------------------------------------------------------------------- Qt API
    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(_tile_rect().adjusted(-3, -3, 3 + HANDLE_RADIUS, 3), 9, 9)
        return path

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self.toolTip():  # built on first hover: thousands of devices open faster
            self.setToolTip(device_tooltip(self._device))
        super().hoverEnterEvent(event)

    def itemChange(self, change, value):  # noqa: N802 - Qt override
        scene = item_scene(self)
        if (change == QGraphicsItem.GraphicsItemChange.ItemPositionChange and scene is not None
                and not self._placing):
            return scene.snap_point(value)
        if change == QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged and scene is not None:
            scene.device_item_moved(self)
        return super().itemChange(change, value)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        scene = item_scene(self)
        theme = scene.theme if scene is not None else DARK
        kind = DeviceKind(self._device.kind)
        colour = KIND_COLOURS[kind]
        tile = _tile_rect()
        on_screen = TILE * option.levelOfDetailFromTransform(painter.worldTransform())
        if on_screen < FLAT_BELOW_PX:
            painter.fillRect(tile, theme.highlight if self.isSelected() else colour)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        self._paint_ring(painter, tile)
        painter.setPen(QPen(colour.darker(130), 1))
        painter.setBrush(colour)
        painter.drawRoundedRect(tile, 9, 9)
        inset = TILE * 0.2
        glyph = tile.adjusted(inset, inset, -inset, -inset)
        if painter.paintEngine().type() in _VECTOR_ENGINES:
            kind_glyph(kind).render(painter, glyph)  # SVG/PDF exports stay vector
        else:
            pixmap = glyph_pixmap(kind, glyph.width() * on_screen / TILE)
            painter.drawPixmap(glyph, pixmap, QRectF(pixmap.rect()))
        if on_screen < LABEL_BELOW_PX:
            return
        if scene is None or scene.port_badges:
            self._paint_badge(painter, tile, theme)
        self._paint_label(painter, tile, theme)
        if self._hovered:
            self._paint_handle(painter, theme)

    # ---------------------------------------------------------------- painting
    def _paint_ring(self, painter: QPainter, tile: QRectF) -> None:
        ring = None
        if self._feedback == "valid":
            ring = VALID
        elif self._feedback == "invalid":
            ring = INVALID
        elif self.isSelected() or self._feedback == "source":
            ring = item_theme(self).highlight
        if ring is None:
            return
        painter.setPen(QPen(ring, 2.5))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(tile.adjusted(-4, -4, 4, 4), 12, 12)

    def _paint_badge(self, painter: QPainter, tile: QRectF, theme: Theme) -> None:
        text = f"{self._used}/{self._total}"
        painter.setFont(_BADGE_FONT)
        width = QFontMetricsF(_BADGE_FONT).horizontalAdvance(text) + 8
        rect = QRectF(tile.right() - width + 8, tile.top() - 7, width, 13)
        spare_nics = self._warn
        fill = WARNING if spare_nics else (theme.panel if theme.dark else QColor("#FFFFFF"))
        painter.setPen(QPen(theme.border, 1))
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 6.5, 6.5)
        painter.setPen(QColor("#1F2328") if spare_nics else theme.text)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_label(self, painter: QPainter, tile: QRectF, theme: Theme) -> None:
        painter.setFont(_LABEL_FONT)
        metrics = QFontMetricsF(_LABEL_FONT)
        text = metrics.elidedText(self._device.label, Qt.TextElideMode.ElideMiddle, LABEL_WIDTH)
        width = metrics.horizontalAdvance(text) + 8
        rect = QRectF(-width / 2, tile.bottom() + LABEL_GAP, width, LABEL_HEIGHT)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.highlight if self.isSelected() else theme.label_bg)
        painter.drawRoundedRect(rect, 4, 4)
        painter.setPen(QColor("white") if self.isSelected() else theme.text)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_handle(self, painter: QPainter, theme: Theme) -> None:
        painter.setPen(QPen(theme.canvas, 2))
        painter.setBrush(theme.highlight)
        painter.drawEllipse(QPointF(TILE / 2, 0), HANDLE_RADIUS, HANDLE_RADIUS)


def _tile_rect() -> QRectF:
    return QRectF(-TILE / 2, -TILE / 2, TILE, TILE)


def device_tooltip(device: Device) -> str:
    """Rich-text summary of a device."""
    kind = DeviceKind(device.kind)
    lines = [f"<b>{html.escape(device.label)}</b> &middot; {DeviceKind(kind).label}"]
    if kind is DeviceKind.GPU_SERVER:
        lines.append(f"{device.gpus} GPUs, {device.nics} x {device.nic_speed_gbps:g} Gb/s NICs")
    elif kind is DeviceKind.STORAGE_SERVER:
        lines.append(f"{device.storage_nics} x {device.storage_nic_speed_gbps:g} Gb/s, "
                     f"{device.capacity_tb:g} TB")
    else:
        lines.append(f"{device.radix} ports x {device.port_speed_gbps:g} Gb/s")
    lines.append("networks: " + ", ".join(p.value for p in device.planes))
    return "<br>".join(lines)

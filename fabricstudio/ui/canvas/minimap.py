"""The minimap: the whole design in a corner of the canvas, with the part on screen outlined.
Click or drag in it to move the view there.

It is painted by the view in viewport coordinates (like the legend), not as a child widget:
a widget over the viewport would switch off Qt's accelerated scrolling.  The picture of the
design is cached and redrawn only when the design, its filters or the theme change.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap

from fabricstudio.model import DeviceKind
from fabricstudio.ui.theme import KIND_COLOURS

#: Largest size of the minimap (px) and its distance from the view's corner.
MAX_SIZE = QSizeF(200.0, 130.0)
MARGIN = 14.0
PAD = 6.0
#: Smallest size of the mark of the part on screen (px).
MIN_MARK = 8.0


class Minimap:
    """Minimap state and drawing for a FabricView (``view``)."""

    def __init__(self, view) -> None:
        self.view = view
        self.visible = True
        self.dragging = False
        self._key: tuple | None = None
        self._pixmap: QPixmap | None = None
        self._world = QRectF()

    # ------------------------------------------------------------- geometry
    def world(self) -> QRectF:
        """The scene area the minimap shows: every device, with a margin."""
        self._refresh()
        return self._world

    def rect(self) -> QRectF:
        """Where the minimap sits in the viewport; empty when hidden, or when the whole design
        is on screen anyway (it appears once you zoom in)."""
        if not self.visible or not self.view.scene().design.devices:
            return QRectF()
        world = self.world()
        if world.isEmpty() or self.view.visible_scene_rect().contains(
                world.adjusted(40, 40, -40, -40)):
            return QRectF()
        scale = min((MAX_SIZE.width() - 2 * PAD) / world.width(),
                     (MAX_SIZE.height() - 2 * PAD) / world.height())
        size = QSizeF(world.width() * scale + 2 * PAD, world.height() * scale + 2 * PAD)
        width = self.view.viewport().width()
        box = QRectF(QPointF(width - size.width() - MARGIN, MARGIN), size)  # top right
        if box.intersects(self.view.legend_rect()):
            return QRectF()  # a small canvas keeps its room for the drawing and the legend
        return box

    def to_scene(self, point: QPointF) -> QPointF:
        """Scene point under a viewport point inside the minimap."""
        box = self.rect()
        world = self.world()
        inner = box.adjusted(PAD, PAD, -PAD, -PAD)
        fx = (point.x() - inner.left()) / max(inner.width(), 1e-9)
        fy = (point.y() - inner.top()) / max(inner.height(), 1e-9)
        return QPointF(world.left() + fx * world.width(), world.top() + fy * world.height())

    def _to_map(self, rect: QRectF) -> QRectF:
        box = self.rect().adjusted(PAD, PAD, -PAD, -PAD)
        world = self.world()
        sx = box.width() / world.width()
        sy = box.height() / world.height()
        return QRectF(box.left() + (rect.left() - world.left()) * sx,
                      box.top() + (rect.top() - world.top()) * sy,
                      rect.width() * sx, rect.height() * sy)

    # -------------------------------------------------------------- picture
    def _refresh(self) -> None:
        scene = self.view.scene()
        design = scene.design
        key = (id(design), design.revision, scene.theme.name, frozenset(scene.hidden_planes),
               frozenset(scene.hidden_tiers), None if scene.focus is None else len(scene.focus))
        if key == self._key:
            return
        self._key = key
        self._pixmap = None
        xs = [d.x for d in design.devices.values()]
        ys = [d.y for d in design.devices.values()]
        if not xs:
            self._world = QRectF()
            return
        self._world = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(
            -60, -60, 60, 60)

    def _picture(self, size: QSizeF, ratio: float) -> QPixmap:
        """The panel and the design's dots (redrawn when the design, its filters, the theme
        or the size changed: a pan repaints the minimap at each step)."""
        if self._pixmap is not None and self._pixmap.size() == (size * ratio).toSize():
            return self._pixmap
        scene = self.view.scene()
        pixmap = QPixmap((size * ratio).toSize())
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(QColor(0, 0, 0, 0))
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(scene.theme.border, 1))
        painter.setBrush(QColor(scene.theme.panel))  # opaque: the view draws no scene under it
        painter.drawRoundedRect(QRectF(QPointF(0.5, 0.5), size).adjusted(0, 0, -1, -1), 6, 6)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        world = self._world
        sx = (size.width() - 2 * PAD) / world.width()
        sy = (size.height() - 2 * PAD) / world.height()
        dots: dict[str, list[QPointF]] = {}
        filtered = bool(scene.hidden_planes or scene.hidden_tiers or scene.focus is not None)
        left, top = PAD - world.left() * sx, PAD - world.top() * sy
        for device in scene.design.devices.values():  # 6,656 at 32k GPUs: kept lean
            if filtered and not scene.device_passes(device.id):
                continue
            points = dots.get(device.kind)
            if points is None:
                points = dots[device.kind] = []
            points.append(QPointF(left + device.x * sx, top + device.y * sy))
        for kind, points in dots.items():
            pen = QPen(KIND_COLOURS[DeviceKind(kind)], 2.0)
            pen.setCapStyle(Qt.PenCapStyle.SquareCap)
            painter.setPen(pen)
            painter.drawPoints(points)
        painter.end()
        self._pixmap = pixmap
        return pixmap

    def paint(self, painter: QPainter) -> None:
        """Draw in viewport coordinates (the painter's transform already reset)."""
        box = self.rect()
        if box.isEmpty():
            return
        theme = self.view.scene().theme
        ratio = self.view.viewport().devicePixelRatioF()
        painter.drawPixmap(box.topLeft(), self._picture(box.size(), ratio))
        shown = self._to_map(self.view.visible_scene_rect())
        if shown.width() < MIN_MARK or shown.height() < MIN_MARK:  # zoomed far in: keep
            centre = shown.center()  # the view's mark findable (at 100 % on 32k GPUs it
            shown.setSize(QSizeF(max(shown.width(), MIN_MARK),  # was under a pixel)
                                 max(shown.height(), MIN_MARK)))
            shown.moveCenter(centre)
        shown = shown.intersected(box)
        if shown.isEmpty():
            return
        fill = QColor(theme.highlight)
        fill.setAlpha(40)
        pen = QPen(theme.highlight, 1.5)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRect(shown)

    # ---------------------------------------------------------------- mouse
    def press(self, point: QPointF) -> bool:
        """A press at ``point`` (viewport): True when the minimap took it."""
        if not self.rect().contains(point):
            return False
        self.dragging = True
        self.view.centerOn(self.to_scene(point))
        return True

    def move(self, point: QPointF) -> bool:
        """Drag on: True while the minimap has the mouse."""
        if not self.dragging:
            return False
        self.view.centerOn(self.to_scene(point))
        return True

    def release(self) -> bool:
        """End a drag: True when the minimap had the mouse."""
        was, self.dragging = self.dragging, False
        return was

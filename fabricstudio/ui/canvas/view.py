"""The canvas view: zoom under the mouse, pan (middle button or Space+drag), rubber band,
palette drops (Shift+drop asks how many), link drawing, and the legend overlay."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QPainter, QPaintEvent, QPen, QPixmap, QRegion
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QInputDialog

from fabricstudio.ui.canvas.interactions import NewLinkInteraction
from fabricstudio.ui.canvas.items.device_item import HANDLE_RADIUS, TILE, DeviceItem
from fabricstudio.ui.canvas.items.link_item import LinkItem
from fabricstudio.ui.canvas.minimap import Minimap
from fabricstudio.ui.canvas.scene import GRID, design_extent
from fabricstudio.ui.canvas.zoom_preview import ZoomPreview
from fabricstudio.ui.legend import legend_entries, legend_size, paint_legend

DEVICE_MIME = "application/x-fabricstudio-device"
#: A 32,768-GPU fabric fits a 1,366-px screen at about 1 %.
MIN_ZOOM, MAX_ZOOM = 0.002, 6.0
MAX_DROP_COUNT = 1024
#: The overlays' corner radius and rim the scene still draws under them (px).
OVERLAY_CORNER = 9
NUDGE_STEPS = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, -1),
               Qt.Key.Key_Down: (0, 1)}
EMPTY_TITLE = "Start a fabric"
EMPTY_BODY = ("Drag devices from the palette (Shift+drop places several), or let the Fabric "
              "wizard (Ctrl+Shift+N) build a leaf-spine, fat-tree or rail-optimised fabric.")


class FabricView(QGraphicsView):
    """The interactive view of a FabricScene; ``editor`` performs the edits."""

    #: Emitted with the new zoom factor (1.0 = 100 %).
    zoom_changed = Signal(float)
    #: Emitted with a status-bar message.
    message = Signal(str)
    #: Emitted when the link tool is switched on or off.
    link_mode_changed = Signal(bool)
    #: Emitted with the global position of a right click (after selecting what is under it).
    context_menu_requested = Signal(object)

    def __init__(self, scene, editor, parent=None) -> None:
        self._zooming = True  # until built: no scroll reaches the scene
        self._fitted = False
        self._legend_key = None
        self._legend_sections: list = []
        self._legend_pixmap: tuple[tuple, QPixmap] | None = None
        super().__init__(scene, parent)
        #: Zoom gestures on a slow canvas show a scaled picture until they pause.
        self.zoom_preview = ZoomPreview(self, self._tell_scene)
        self.editor = editor
        self.link_mode = False
        self.show_legend = True
        #: True while another legend (the simulation's) stands in for the design legend.
        self.legend_suppressed = False
        #: Callables returning the viewport rectangles floating overlays cover (fit avoids them).
        self.covers: list[Callable[[], list[QRectF]]] = []
        self._interaction: NewLinkInteraction | None = None
        self._pan_from: QPointF | None = None
        self._space_down = False
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.SmoothPixmapTransform
                            | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState
                                  | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setAcceptDrops(True)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setMouseTracking(True)
        self.minimap = Minimap(self)
        self._scene_timer = QTimer(self)
        self._scene_timer.setSingleShot(True)
        self._scene_timer.setInterval(0)
        self._scene_timer.timeout.connect(self._tell_scene)
        self._extent_timer = QTimer(self)
        self._extent_timer.setSingleShot(True)
        self._extent_timer.setInterval(200)
        self._extent_timer.timeout.connect(self.update_extent)
        scene.extent_changed.connect(self._extent_timer.start)
        self.update_extent()
        self._zooming = False

    # ------------------------------------------------------------------ zoom
    def zoom(self) -> float:
        """Current scale factor."""
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Scale by ``factor`` (clamped), keeping ``anchor`` (viewport pos) fixed; the scene
        folds for the new zoom at once."""
        self.zoom_preview.cancel()
        self._zoom(factor, anchor)

    def zoom_step(self, factor: float, anchor: QPointF | None = None) -> None:
        """One step of a zoom gesture (a wheel notch, Zoom in / out): as :meth:`zoom_by`, but
        on a canvas slower to draw than a frame the step shows the last sharp frame scaled,
        and the scene folds and draws sharply once the steps pause (:mod:`zoom_preview`)."""
        if self.zoom_preview.wanted():
            self.zoom_preview.begin()
        self._zoom(factor, anchor)

    def _zoom(self, factor: float, anchor: QPointF | None) -> None:
        target = min(max(self.zoom() * factor, MIN_ZOOM), MAX_ZOOM)
        factor = target / self.zoom()
        if math.isclose(factor, 1.0):
            return
        self._zooming = True
        try:
            if anchor is not None:
                before = self.mapToScene(anchor.toPoint())
                self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
                self.scale(factor, factor)
                after = self.mapToScene(anchor.toPoint())
                delta = after - before
                self.translate(delta.x(), delta.y())
                self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
            else:
                self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
                self.scale(factor, factor)
                self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        finally:
            self._zooming = False
        self._zoomed()

    def _zoomed(self) -> None:
        self._fitted = True  # a zoom (or the first fit) makes the view live for the scene
        self._tell_scene()
        self.zoom_changed.emit(self.zoom())

    def update_extent(self) -> None:
        """Scroll range: the design with room around it (the scroll bars show where the view
        is; they appear when the design does not fit)."""
        design = self.scene().design
        if not design.devices:
            rect = QRectF(-2000, -1500, 4000, 3000)
        else:
            xs = [d.x for d in design.devices.values()]
            ys = [d.y for d in design.devices.values()]
            rect = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys)))
            room = max(rect.width(), rect.height()) * 0.6 + 1500
            rect = rect.adjusted(-room, -room, room, room)
        if rect != self.sceneRect():
            self.setSceneRect(rect)
        self.viewport().update(self.minimap.rect().toAlignedRect().adjusted(-2, -2, 2, 2))

    def set_minimap_visible(self, visible: bool) -> None:
        """Show or hide the minimap."""
        self.minimap.visible = visible
        self.viewport().update()

    def visible_scene_rect(self) -> QRectF:
        """The scene area on screen."""
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def _tell_scene(self) -> None:
        """The scene folds groups by what is on screen, and how large (from the first fit
        on: before it, the view shows nothing the user will see)."""
        if not self._zooming and self._fitted and not self.zoom_preview.active:
            self._scene_timer.stop()
            self.scene().set_view(self.zoom(), self.visible_scene_rect())

    def _tell_scene_soon(self) -> None:
        """After a scroll or resize: tell the scene once the event is handled (folding may
        add or remove items and change the selection, which must not happen inside Qt's
        scroll-area layout)."""
        if self._fitted:
            self._scene_timer.start()

    def set_zoom(self, zoom: float) -> None:
        """Set an absolute zoom about the view centre."""
        self.zoom_by(zoom / self.zoom())

    def predicted_fit_zoom(self) -> float:
        """The zoom :meth:`fit` will choose, from the design alone (the scene may have no
        items yet): its devices' extent with the room their items take."""
        rect = design_extent(self.scene().design)
        if rect.isEmpty():
            return 1.0
        rect = rect.adjusted(-40, -40, 40, 40)
        area = self.free_area(rect)
        zoom = min(area.width() / rect.width(), area.height() / rect.height(), 1.5)
        return min(max(zoom, MIN_ZOOM), MAX_ZOOM)

    @contextmanager
    def fitting_after_reset(self) -> Iterator[None]:
        """For a design replaced inside (File > Open, a generated fabric) and then fitted: the
        scene's rebuild folds for the zoom that fit will have, not for the old design's zoom
        (else a 32k-GPU fabric is folded twice)."""
        scene = self.scene()
        scene.rebuild_scale = self.predicted_fit_zoom
        try:
            yield
        finally:
            scene.rebuild_scale = None

    def fit(self, rect: QRectF | None = None) -> None:
        """Show ``rect`` (default: every visible device) with a margin, clear of the legend
        and of the floating overlays listed in :attr:`covers`."""
        self.zoom_preview.cancel()
        if rect is None:
            rect = self.scene().content_rect()
        if rect.isEmpty():
            rect = QRectF(-300, -200, 600, 400)
        rect = rect.adjusted(-40, -40, 40, 40)
        area = self.free_area(rect)
        zoom = min(area.width() / rect.width(), area.height() / rect.height(), 1.5)
        zoom = min(max(zoom, MIN_ZOOM), MAX_ZOOM)
        self._zooming = True
        try:
            self.resetTransform()
            self.scale(zoom, zoom)
            offset = QPointF(self.viewport().rect().center()) - area.center()
            self.centerOn(rect.center() + offset / zoom)
        finally:
            self._zooming = False
        self._zoomed()

    def obstacles(self) -> list[QRectF]:
        """Viewport rectangles covered by the legend and the floating overlays."""
        found = []
        if self.show_legend and not self.legend_suppressed:
            legend = self._legend_rect()
            if legend.isValid():
                found.append(legend.adjusted(-10, -10, 10, 10))
        for cover in self.covers:
            found += [r for r in cover() if r.isValid()]
        return found

    def free_area(self, rect: QRectF) -> QRectF:
        """The part of the viewport clear of :meth:`obstacles` that ``rect`` fits largest
        into (see :func:`largest_free_area`)."""
        return largest_free_area(QRectF(self.viewport().rect()), self.obstacles(), rect)

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt override
        delta = event.angleDelta().y() or event.angleDelta().x()
        if not delta:
            return
        self.zoom_step(2 ** (delta / 480), event.position())
        event.accept()

    # -------------------------------------------------------------- link mode
    def set_link_mode(self, on: bool) -> None:
        """Link tool: dragging from any device draws a link instead of moving it."""
        if on != self.link_mode:
            self.link_mode = on
            cursor = Qt.CursorShape.CrossCursor if on else Qt.CursorShape.ArrowCursor
            self.viewport().setCursor(cursor)
            self.link_mode_changed.emit(on)

    def notify(self, text: str) -> None:
        """Show a status message."""
        self.message.emit(text)

    @property
    def interaction(self) -> NewLinkInteraction | None:
        """The gesture in progress, if any."""
        return self._interaction

    def _link_source_at(self, scene_pos: QPointF) -> DeviceItem | None:
        for item in self.scene().items(scene_pos):
            if isinstance(item, DeviceItem):
                if self.link_mode:
                    return item
                local = item.mapFromScene(scene_pos)
                if (local - QPointF(TILE / 2, 0)).manhattanLength() <= HANDLE_RADIUS * 2:
                    return item
                return None
        return None

    # ----------------------------------------------------------------- mouse
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.zoom_preview.end()  # the sharp frame before anything is picked
        if event.button() == Qt.MouseButton.LeftButton and self.minimap.press(event.position()):
            event.accept()
            return
        if event.button() == Qt.MouseButton.MiddleButton or (
                event.button() == Qt.MouseButton.LeftButton and self._space_down):
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            source = self._link_source_at(self.mapToScene(event.position().toPoint()))
            if source is not None:
                self._interaction = NewLinkInteraction(self, source,
                                                       self.mapToScene(event.position().toPoint()))
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.minimap.move(event.position()):
            event.accept()
            return
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            event.accept()
            return
        if self._interaction is not None:
            self._interaction.move(self.mapToScene(event.position().toPoint()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton and self.minimap.release():
            event.accept()
            return
        if self._pan_from is not None and event.button() in (Qt.MouseButton.MiddleButton,
                                                             Qt.MouseButton.LeftButton):
            self._pan_from = None
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor if self._space_down
                                      else Qt.CursorShape.ArrowCursor)
            event.accept()
            return
        if self._interaction is not None and event.button() == Qt.MouseButton.LeftButton:
            interaction, self._interaction = self._interaction, None
            interaction.finish(self.mapToScene(event.position().toPoint()))
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802 - Qt override
        item = self._element_at(event.pos())
        if item is not None and not item.isSelected():
            self.scene().clearSelection()
            item.setSelected(True)
        self.context_menu_requested.emit(event.globalPos())
        event.accept()

    def _element_at(self, pos):
        """The topmost device or link item under viewport point ``pos`` (through overlays
        such as the zoomed-out link batch or the simulation's drawing), or None."""
        for item in self.items(pos):
            while item is not None and not isinstance(item, (DeviceItem, LinkItem)):
                item = item.parentItem()
            if item is not None:
                return item
        return None

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape:
            if self._interaction is not None:
                self._interaction.cancel()
                self._interaction = None
            elif self.link_mode:
                self.set_link_mode(False)
            else:
                self.scene().clearSelection()
            event.accept()
            return
        step = NUDGE_STEPS.get(event.key())
        if step is not None and self.editor.selected_device_ids():
            self.editor.nudge(step[0] * GRID, step[1] * GRID)
            event.accept()
            return
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space_down = False
            self._pan_from = None
            self.viewport().setCursor(Qt.CursorShape.CrossCursor if self.link_mode
                                      else Qt.CursorShape.ArrowCursor)
            event.accept()
            return
        super().keyReleaseEvent(event)

    # ------------------------------------------------------------ drag & drop
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasFormat(DEVICE_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasFormat(DEVICE_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        mime = event.mimeData()
        if not mime.hasFormat(DEVICE_MIME):
            super().dropEvent(event)
            return
        entry = json.loads(bytes(mime.data(DEVICE_MIME)).decode())
        pos = self.mapToScene(event.position().toPoint())
        count = 1
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            count, ok = QInputDialog.getInt(self, "Place several",
                                            f"How many {entry.get('title', 'devices')}?",
                                            8, 1, MAX_DROP_COUNT)
            if not ok:
                event.ignore()
                return
        self.editor.place_devices(entry["kind"], entry.get("fields", {}), pos, count)
        event.acceptProposedAction()
        self.setFocus()

    # ----------------------------------------------------------------- legend
    # The legend is painted in drawForeground in viewport coordinates.  A floating child
    # widget would overlap the viewport and disable Qt's accelerated scrolling (every pan frame
    # would repaint everything); instead a scroll repaints only the legend's two rectangles.
    def set_legend_visible(self, visible: bool) -> None:
        """Show or hide the legend."""
        self.show_legend = visible
        self.viewport().update()

    def refresh_legend(self) -> None:
        """Re-read the design's kinds and speeds (after edits or a colour-mode change); read
        again only when one of them changed (the design's revision, the colouring mode or
        the hidden networks: at 32k GPUs each reading walks 98,304 links)."""
        if self.show_legend and self.isVisible():  # else the first paint reads it
            self.viewport().update(self._legend_rect().toAlignedRect().adjusted(-300, -300, 2, 2))

    def _legend(self):
        scene = self.scene()
        hidden = frozenset(scene.hidden_planes)
        key = (scene.design.revision, scene.colour_by, id(scene.design), hidden)
        if self._legend_key != key:
            self._legend_key = key
            rails = scene.rails() if scene.colour_by == "rail" else None
            self._legend_sections = legend_entries(scene.design, scene.colour_by, hidden, rails)
        return self._legend_sections

    def legend_sections(self):
        """What the on-canvas legend shows: ('Devices' / 'Links', entries) sections."""
        return self._legend()

    def legend_rect(self) -> QRectF:
        """Where the legend sits in the viewport (empty when hidden)."""
        return self._legend_rect() if self.show_legend else QRectF()

    def _legend_rect(self) -> QRectF:
        sections = self._legend()
        if not sections:
            return QRectF()
        size = legend_size(sections)
        return QRectF(QPointF(self.viewport().width() - size.width() - 14,
                              self.viewport().height() - size.height() - 14), size)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.zoom_preview.active:
            painter = QPainter(self.viewport())
            self.zoom_preview.paint(painter)
            self.drawForeground(painter, QRectF(event.rect()))
            painter.end()
            return
        full = event.rect().contains(self.viewport().rect())
        region = event.region()
        covered = self._overlay_interiors() & region
        if not covered.isEmpty():
            # The minimap and the legend are opaque: the scene's items under them are not
            # looked for nor drawn (a pan repaints both, and every long link crossing them,
            # at each step); drawForeground paints them over what the view draws.
            event = QPaintEvent(region - covered)
        self.zoom_preview.timed(lambda: super(FabricView, self).paintEvent(event), full)

    def _overlay_interiors(self) -> QRegion:
        """The viewport area the opaque overlays cover whole (their rims and rounded corners
        are left to the scene, and painted over it)."""
        interiors = QRegion()
        if not self.scene().design.devices:
            return interiors
        boxes = [self.minimap.rect() if self.minimap.visible else QRectF()]
        if self.show_legend and not self.legend_suppressed:
            boxes.append(self.legend_rect())
        for box in boxes:
            if box.isEmpty():
                continue
            rect = box.toAlignedRect()
            interiors |= QRegion(rect.adjusted(OVERLAY_CORNER, 2, -OVERLAY_CORNER, -2))
            interiors |= QRegion(rect.adjusted(2, OVERLAY_CORNER, -2, -OVERLAY_CORNER))
        return interiors

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        if self.zoom_preview.grabbing:  # the preview's picture: overlays stay put, unscaled
            return
        if not self.scene().design.devices:
            self._paint_empty_hint(painter)
            return
        painter.save()
        painter.resetTransform()
        self._paint_overlays(painter)
        painter.restore()

    def _paint_overlays(self, painter: QPainter) -> None:
        """The minimap and the legend, in viewport coordinates."""
        if self.minimap.visible:
            self.minimap.paint(painter)
        sections = self._legend() if self.show_legend and not self.legend_suppressed else []
        if sections:
            painter.drawPixmap(self._legend_rect().topLeft(), self._legend_picture(sections))

    def _legend_picture(self, sections) -> QPixmap:
        """The legend drawn once per content, theme and pixel ratio (a pan repaints it at
        each step: its text took a few milliseconds)."""
        theme = self.scene().theme
        ratio = self.viewport().devicePixelRatioF()
        key = (id(sections), theme.name, ratio)
        if self._legend_pixmap is None or self._legend_pixmap[0] != key:
            size = legend_size(sections)
            pixmap = QPixmap((size * ratio).toSize())
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            paint_legend(painter, QPointF(0, 0), sections, theme)
            painter.end()
            self._legend_pixmap = (key, pixmap)
        return self._legend_pixmap[1]

    def _paint_empty_hint(self, painter: QPainter) -> None:
        """What to do on an empty canvas (the first minute matters)."""
        theme = self.scene().theme
        painter.save()
        painter.resetTransform()
        box = QRectF(0, 0, 460, 150)
        box.moveCenter(QPointF(self.viewport().rect().center()))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(theme.border, 1.5, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(box, 12, 12)
        title = QFont()
        title.setPixelSize(17)
        title.setBold(True)
        painter.setFont(title)
        painter.setPen(theme.text)
        painter.drawText(box.adjusted(0, 22, 0, 0), Qt.AlignmentFlag.AlignHCenter, EMPTY_TITLE)
        body = QFont()
        body.setPixelSize(13)
        painter.setFont(body)
        painter.setPen(theme.muted)
        painter.drawText(box.adjusted(24, 58, -24, -10),
                         Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap, EMPTY_BODY)
        painter.restore()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.zoom_preview.end()
        super().resizeEvent(event)
        self._tell_scene_soon()

    def _update_large_tiles(self) -> None:
        """Tiles larger than the view keep their text in their part on screen: after a
        scroll that part moved, so they are repainted whole, not blitted."""
        if self.zoom_preview.active:  # the whole view shows the preview's picture
            return
        view = self.viewport().rect()
        for tile in self.scene().group_items.values():
            if tile.cacheMode() == QGraphicsItem.CacheMode.NoCache and tile.isVisible():
                shown = self.mapFromScene(tile.sceneBoundingRect()).boundingRect() & view
                if not shown.isEmpty():
                    self.viewport().update(shown)

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 - Qt override
        super().scrollContentsBy(dx, dy)
        self._tell_scene_soon()
        self._update_large_tiles()
        if self.minimap.visible:  # its view rectangle moved; the rest scrolls by blitting
            rect = self.minimap.rect().toAlignedRect().adjusted(-2, -2, 2, 2)
            self.viewport().update(rect)
            self.viewport().update(rect.translated(dx, dy))  # where the blit moved its copy
        if self.show_legend:
            rect = self._legend_rect().toAlignedRect().adjusted(-2, -2, 2, 2)
            self.viewport().update(rect)
            self.viewport().update(rect.translated(dx, dy))


#: Fit may give up this share of the largest zoom to centre the fabric in the view.
CENTRING_SHARE = 0.08


def largest_free_area(view: QRectF, obstacles: list[QRectF], rect: QRectF) -> QRectF:
    """The rectangle of ``view`` clear of ``obstacles`` into which ``rect`` fits largest:
    every rectangle bounded by the view's and the obstacles' edges is tried.  Of those that
    fit it within :data:`CENTRING_SHARE` of the largest zoom, the one centred nearest the view's
    centre (a fabric squeezed beside an overlay it would barely reach looks misplaced).  The
    whole view when the obstacles leave too little (less than 35 % of a side)."""
    found = [r.intersected(view) for r in obstacles]
    found = [r for r in found if not r.isEmpty()]
    if not found or rect.isEmpty():
        return view
    lefts = {view.left(), *(r.right() for r in found)}
    rights = {view.right(), *(r.left() for r in found)}
    tops = {view.top(), *(r.bottom() for r in found)}
    bottoms = {view.bottom(), *(r.top() for r in found)}
    candidates: list[tuple[float, QRectF]] = []
    for left in lefts:
        for right in rights:
            if right - left < 0.35 * view.width():
                continue
            for top in tops:
                for bottom in bottoms:
                    if bottom - top < 0.35 * view.height():
                        continue
                    area = QRectF(left, top, right - left, bottom - top)
                    if any(area.intersects(r) for r in found):
                        continue
                    zoom = min(area.width() / rect.width(), area.height() / rect.height())
                    candidates.append((zoom, area))
    if not candidates:
        return view
    largest = max(zoom for zoom, _area in candidates)
    centre = view.center()

    def off_centre(candidate: tuple[float, QRectF]) -> tuple[float, float]:
        zoom, area = candidate
        return (area.center() - centre).manhattanLength(), -zoom

    return min((c for c in candidates if c[0] >= (1 - CENTRING_SHARE) * largest),
               key=off_centre)[1]

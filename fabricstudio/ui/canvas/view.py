"""The canvas view: zoom under the mouse, pan (middle button or Space+drag), rubber band,
palette drops (Shift+drop asks how many), link drawing, and the legend overlay."""

from __future__ import annotations

import json
import math

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsView, QInputDialog, QWidget

from fabricstudio.ui.canvas.interactions import NewLinkInteraction
from fabricstudio.ui.canvas.items.device_item import HANDLE_RADIUS, TILE, DeviceItem
from fabricstudio.ui.legend import legend_entries, legend_size, paint_legend

DEVICE_MIME = "application/x-fabricstudio-device"
MIN_ZOOM, MAX_ZOOM = 0.02, 6.0
MAX_DROP_COUNT = 1024


class FabricView(QGraphicsView):
    """The interactive view of a FabricScene; ``editor`` performs the edits."""

    #: Emitted with the new zoom factor (1.0 = 100 %).
    zoom_changed = Signal(float)
    #: Emitted with a status-bar message.
    message = Signal(str)
    #: Emitted when the link tool is switched on or off.
    link_mode_changed = Signal(bool)

    def __init__(self, scene, editor, parent=None) -> None:
        super().__init__(scene, parent)
        self.editor = editor
        self.link_mode = False
        self.show_legend = True
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
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheNone)
        self.setAcceptDrops(True)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setSceneRect(QRectF(-50_000, -50_000, 100_000, 100_000))
        self.setMouseTracking(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend = LegendOverlay(self)

    # ------------------------------------------------------------------ zoom
    def zoom(self) -> float:
        """Current scale factor."""
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Scale by ``factor`` (clamped), keeping ``anchor`` (viewport pos) fixed."""
        target = min(max(self.zoom() * factor, MIN_ZOOM), MAX_ZOOM)
        factor = target / self.zoom()
        if math.isclose(factor, 1.0):
            return
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
        self.zoom_changed.emit(self.zoom())

    def set_zoom(self, zoom: float) -> None:
        """Set an absolute zoom about the view centre."""
        self.zoom_by(zoom / self.zoom())

    def fit(self, rect: QRectF | None = None) -> None:
        """Show ``rect`` (default: every visible device) with a margin."""
        if rect is None:
            rect = QRectF()
            for item in self.scene().device_items.values():
                if item.isVisible():
                    rect = rect.united(item.sceneBoundingRect())
        if rect.isEmpty():
            rect = QRectF(-300, -200, 600, 400)
        rect = rect.adjusted(-60, -60, 60, 60)
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.5:
            self.resetTransform()
            self.scale(1.5, 1.5)
            self.centerOn(rect.center())
        self.zoom_changed.emit(self.zoom())

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt override
        delta = event.angleDelta().y() or event.angleDelta().x()
        if not delta:
            return
        self.zoom_by(2 ** (delta / 480), event.position())
        event.accept()

    # -------------------------------------------------------------- link mode
    def set_link_mode(self, on: bool) -> None:
        """Link tool: dragging from any device draws a link instead of moving it."""
        if on != self.link_mode:
            self.link_mode = on
            self.viewport().setCursor(Qt.CursorShape.CrossCursor if on else Qt.CursorShape.ArrowCursor)
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
    def set_legend_visible(self, visible: bool) -> None:
        """Show or hide the legend overlay."""
        self.show_legend = visible
        self.legend.setVisible(visible)
        self._place_legend()

    def _place_legend(self) -> None:
        size = self.legend.sizeHint()
        self.legend.resize(size)
        self.legend.move(self.viewport().width() - size.width() - 14,
                         self.viewport().height() - size.height() - 14)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._place_legend()


class LegendOverlay(QWidget):
    """The legend floating over the canvas (a child of the view, so panning does not repaint
    it); it reads the design when painted, so ``update()`` after edits is enough."""

    def __init__(self, view: FabricView) -> None:
        super().__init__(view)
        self.view = view
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)

    def _sections(self):
        scene = self.view.scene()
        return legend_entries(scene.design, scene.colour_by)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        sections = self._sections()
        if not sections:
            return QSize(0, 0)
        return legend_size(sections).toSize() + QSize(2, 2)

    def refresh(self) -> None:
        """Re-read the design (after edits or a colour-mode change)."""
        self.view._place_legend()
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        sections = self._sections()
        if sections:
            painter = QPainter(self)
            paint_legend(painter, QPointF(0.5, 0.5), sections, self.view.scene().theme)
            painter.end()

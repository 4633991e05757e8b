"""The legend floating in the top-right corner of the canvas view while a run is shown."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsView, QWidget

from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.simview.style import LEGEND_SIZE, paint_legend


class LegendOverlay(QWidget):
    """Paints the utilisation ramp and marker legend above the view, with a caption."""

    def __init__(self, view: QGraphicsView, scene: FabricScene) -> None:
        super().__init__(view)
        self._view = view
        self._scene = scene
        self.caption = ""
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.resize(int(LEGEND_SIZE[0]) + 2, int(LEGEND_SIZE[1]) + 2)
        view.installEventFilter(self)
        self._place()
        self.hide()

    def set_caption(self, caption: str) -> None:
        """Text at the top of the legend (no-op if unchanged)."""
        if caption != self.caption:
            self.caption = caption
            self.update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self._view and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    def _place(self) -> None:
        bar = self._view.verticalScrollBar()
        right = self._view.width() - (bar.width() if bar.isVisible() else 0)
        self.move(max(0, right - self.width() - 12), 12)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        paint_legend(painter, QRectF(0.5, 0.5, *LEGEND_SIZE), self.caption,
                     dark=self._scene.theme.dark)
        painter.end()

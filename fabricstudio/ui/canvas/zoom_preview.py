"""Zoom gestures on a canvas that is slow to draw: a scaled picture while the wheel turns.

Drawing a 32,768-GPU fabric at a new scale takes longer than a frame (every visible tile and
its text, hundreds of link bundles).  While a zoom gesture runs, :class:`ZoomPreview` shows
the last sharp frame scaled to the new zoom (as map viewers do) and lets the scene refold
and redraw once the gesture pauses for :data:`SETTLE_MS`.  It is used only when the last
full repaint of the view took longer than :data:`PREVIEW_ABOVE_S`: a small design redraws
sharply at every notch.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QPoint, QRectF, QTimer
from PySide6.QtGui import QPainter, QPixmap, QRegion, QTransform
from PySide6.QtWidgets import QGraphicsView, QWidget

#: A full repaint slower than this (seconds) makes zoom gestures preview (about two frames
#: at 60 Hz: slower, the wheel feels sticky).
PREVIEW_ABOVE_S = 0.030
#: The gesture has ended when no zoom step came for this long (ms): then the sharp frame.
SETTLE_MS = 150


class ZoomPreview:
    """The preview state of one view; ``settle`` is called when a gesture ends."""

    def __init__(self, view: QGraphicsView, settle: Callable[[], None]) -> None:
        self.view = view
        #: Seconds the last full repaint took (None: none measured yet).
        self.full_paint_s: float | None = None
        self._picture: QPixmap | None = None
        self._picture_map = QTransform()
        #: True while the foreground overlays (legend, minimap) stay out of the picture.
        self.grabbing = False
        self._settle = settle
        self.timer = QTimer(view)
        self.timer.setSingleShot(True)
        self.timer.setInterval(SETTLE_MS)
        self.timer.timeout.connect(self.end)

    @property
    def active(self) -> bool:
        """True while a gesture shows the scaled picture."""
        return self._picture is not None

    def wanted(self) -> bool:
        """True when the view draws too slowly for a sharp frame at every notch."""
        return self.active or (self.full_paint_s is not None
                               and self.full_paint_s > PREVIEW_ABOVE_S)

    def begin(self) -> None:
        """Take the picture of the view as it is (before the zoom changes), once per
        gesture; each step then restarts the settle timer."""
        if self._picture is None:
            self._picture = self._grab()
            self._picture_map = self.view.viewportTransform()
        self.timer.start()
        self.view.viewport().update()

    def end(self) -> None:
        """Drop the picture and let the view draw sharply (the gesture paused, or something
        else needs the real frame: a click, a fit, a resize)."""
        self.timer.stop()
        if self._picture is None:
            return
        self._picture = None
        self._settle()
        self.view.viewport().update()

    def cancel(self) -> None:
        """Drop the picture without the settle call (the caller zooms and tells the scene
        itself: a fit, an absolute zoom)."""
        self.timer.stop()
        if self._picture is not None:
            self._picture = None
            self.view.viewport().update()

    def _grab(self) -> QPixmap:
        viewport = self.view.viewport()
        ratio = viewport.devicePixelRatioF()
        picture = QPixmap(viewport.size() * ratio)
        picture.setDevicePixelRatio(ratio)
        picture.fill(self.view.scene().backgroundBrush().color())
        self.grabbing = True
        try:
            viewport.render(picture, QPoint(), QRegion(), QWidget.RenderFlag(0))
        finally:
            self.grabbing = False
        return picture

    def paint(self, painter: QPainter) -> None:
        """The picture, mapped from the zoom it was taken at to the view's zoom now."""
        assert self._picture is not None
        viewport = QRectF(self.view.viewport().rect())
        inverse, _ok = self._picture_map.inverted()
        mapping = inverse * self.view.viewportTransform()
        if not mapping.mapRect(viewport).contains(viewport):  # zoomed out: a border shows
            painter.fillRect(viewport, self.view.scene().backgroundBrush().color())
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.setTransform(mapping)
        painter.drawPixmap(0, 0, self._picture)
        painter.resetTransform()
        self.timer.start()  # the gesture settles SETTLE_MS after its last frame is shown

    def timed(self, paint: Callable[[], None], full: bool) -> None:
        """Run ``paint`` (the view's own repaint), timing it when it covers the whole view."""
        if not full:
            paint()
            return
        start = time.perf_counter()
        paint()
        self.full_paint_s = time.perf_counter() - start

"""What floats over the canvas while a run is shown: the fleet GPU-utilisation gauge (top
left), the simulation legend (top right, collapsible with a click) and the caption of the
moment (bottom).  :class:`CanvasOverlays` places them, scales them with the UI scale, follows
the theme, and tells the view's Fit which parts of the canvas they cover.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter
from PySide6.QtWidgets import QGraphicsView, QWidget

from fabricstudio.ui.canvas.items.host import ItemScene
from fabricstudio.ui.simview.painters import (
    GaugeData,
    caption_layout,
    gauge_size,
    paint_caption,
    paint_gauge,
)
from fabricstudio.ui.simview.style import legend_size, paint_legend

MARGIN = 12


def _dark(view: QGraphicsView) -> bool:
    scene = view.scene()
    return not isinstance(scene, ItemScene) or scene.theme.dark


class _Floating(QWidget):
    """A widget painted over the view's viewport."""

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.view = view
        self.scale = 1.0
        self.hide()

    def covered(self) -> QRectF:
        """The viewport rectangle this widget covers (empty when hidden)."""
        if not self.isVisible():
            return QRectF()
        return QRectF(self.geometry()).adjusted(-MARGIN / 2, -MARGIN / 2, MARGIN / 2,
                                                MARGIN / 2)


class FleetGauge(_Floating):
    """The fleet's GPU utilisation so far and the GPUs by state now."""

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.data = GaugeData(0.0, (0, 0, 0, 0))
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

    def set_data(self, data: GaugeData) -> None:
        """Show new values (no repaint when unchanged)."""
        if data != self.data:
            self.data = data
            self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return gauge_size(self.scale).toSize() + QSize(2, 2)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        size = gauge_size(self.scale)
        paint_gauge(painter, QRectF(0.5, 0.5, size.width(), size.height()), self.data,
                    _dark(self.view), self.scale)
        painter.end()


class CaptionBar(_Floating):
    """The caption of the shown moment, large, centred at the bottom of the canvas."""

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.text = ""
        self.kind = ""
        #: Kept free on each side (the presenter's step counter sits in a corner).
        self.side_margin = 0.0
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

    def set_caption(self, text: str, kind: str = "") -> bool:
        """Show ``text`` (empty hides the bar); True when it changed."""
        if (text, kind) == (self.text, self.kind):
            return False
        self.text, self.kind = text, kind
        self.update()
        return True

    def reserved(self) -> QRectF:
        """The band the bar may take (two lines), so Fit leaves room before any caption."""
        view = self.view.viewport()
        size, _font = caption_layout("Two lines of caption text.\nSecond line.",
                                     self.max_width(), self.scale)
        height = max(size.height(), self.height() if self.text else 0)
        return QRectF((view.width() - self.max_width()) / 2, view.height() - height - MARGIN,
                      self.max_width(), height).adjusted(0, -MARGIN / 2, 0, MARGIN / 2)

    def max_width(self) -> float:
        """Widest the bar may be: most of the view, and readable line lengths."""
        return min(self.view.viewport().width() - 2 * (MARGIN + self.side_margin),
                   980 * self.scale)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        if not self.text:
            return QSize(0, 0)
        size, _font = caption_layout(self.text, self.max_width(), self.scale)
        return size.toSize() + QSize(2, 2)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt override
        if not self.text:
            return
        painter = QPainter(self)
        paint_caption(painter, QRectF(self.rect()).adjusted(0.5, 0.5, -1.5, -1.5), self.text,
                      self.kind, _dark(self.view), self.scale)
        painter.end()


class SimLegend(_Floating):
    """The simulation legend; a click on it folds it to its header line (and back)."""

    toggled = Signal(bool)  # collapsed

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.caption = ""
        self.collapsed = False
        self.gpus = True
        #: A flow-level run is shown: its note replaces the event markers.
        self.flow = False
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Click to fold or unfold the legend")

    def set_caption(self, caption: str) -> None:
        """Header text: ``t = … · what runs`` (no-op if unchanged)."""
        if caption != self.caption:
            self.caption = caption
            self.update()

    def set_collapsed(self, collapsed: bool) -> None:
        """Fold to the header line, or unfold."""
        if collapsed != self.collapsed:
            self.collapsed = collapsed
            self.toggled.emit(collapsed)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        width, height = legend_size(self.scale, self.collapsed, self.gpus, self.flow)
        return QSize(int(width) + 2, int(height) + 2)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton:
            self.set_collapsed(not self.collapsed)
            event.accept()
            return
        super().mousePressEvent(event)

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        width, height = legend_size(self.scale, self.collapsed, self.gpus, self.flow)
        paint_legend(painter, QRectF(0.5, 0.5, width, height), self.caption,
                     dark=_dark(self.view), scale=self.scale, collapsed=self.collapsed,
                     gpus=self.gpus, flow=self.flow)
        painter.end()


class CanvasOverlays(QObject):
    """The gauge, the legend and the caption bar of one view, kept in place."""

    def __init__(self, view: QGraphicsView) -> None:
        super().__init__(view)
        self.view = view
        self.gauge = FleetGauge(view)
        self.legend = SimLegend(view)
        self.caption = CaptionBar(view)
        self.scale = 1.0  # the UI scale; the overlays shrink further on a small canvas
        self.active = False
        #: Whether the gauge and the caption are wanted (the legend always is while active).
        self.show_gauge = True
        self.show_caption = True
        #: A story step's caption, shown instead of the run's while set.
        self.story_caption: str | None = None
        self.legend.toggled.connect(self._on_legend_toggled)
        #: The user folded or unfolded the legend: keep their choice.
        self.legend_chosen = False
        view.installEventFilter(self)
        view.covers.append(self.covered)

    def widgets(self) -> tuple[_Floating, ...]:
        """The three floating widgets."""
        return (self.gauge, self.legend, self.caption)

    def set_active(self, active: bool, gpus: bool = True, flow: bool = False) -> None:
        """Show the overlays (a run is shown) or hide them all; ``gpus`` says whether the run
        knows its GPUs' states (the gauge and the GPU rows of the legend), ``flow`` whether it
        is a flow-level run (no event markers: the legend says so).  On a small canvas the
        legend starts folded (unless the user unfolded it)."""
        if active and not self.active and not self.legend_chosen:
            self.legend.collapsed = self.view.viewport().width() < 1100 * self.scale
        self.active = active
        self.legend.gpus = gpus
        self.legend.flow = flow
        self.view.legend_suppressed = active
        self.place()
        self.view.viewport().update()

    def set_scale(self, scale: float) -> None:
        """UI scale of the overlays (1.0 = 100 %)."""
        self.scale = scale
        self.place()

    def effective_scale(self) -> float:
        """The UI scale, shrunk (to 72 % at least) when the canvas is small beside docks."""
        viewport = self.view.viewport()
        fits = min(viewport.width() / 1150, viewport.height() / 620)
        return self.scale * min(1.0, max(0.72, fits))

    def _on_legend_toggled(self, _collapsed: bool) -> None:
        self.legend_chosen = True
        self.place()

    def set_story_caption(self, text: str | None) -> None:
        """A story step's own caption, shown instead of the run's (None: the run's)."""
        self.story_caption = text

    def set_caption(self, text: str, kind: str = "") -> None:
        """The caption of the moment (empty: none)."""
        if self.caption.set_caption(text, kind):
            self.place()

    def place(self) -> None:
        """Position and show or hide the widgets for the view's current size."""
        scale = self.effective_scale()
        for widget in self.widgets():
            widget.scale = scale
        viewport = self.view.viewport()
        right = viewport.width()
        wanted = {self.gauge: self.active and self.show_gauge and self.legend.gpus,
                  self.legend: self.active,
                  # a story step's caption also shows before its run does (while the
                  # presenter's runs are prepared)
                  self.caption: ((self.active or bool(self.story_caption)) and self.show_caption
                                 and bool(self.caption.text))}
        for widget, shown in wanted.items():
            if shown:
                widget.resize(widget.sizeHint())
        self.gauge.move(MARGIN, MARGIN)
        self.legend.move(max(0, right - self.legend.width() - MARGIN), MARGIN)
        self.caption.move(max(0, (right - self.caption.width()) // 2),
                          max(0, viewport.height() - self.caption.height() - MARGIN))
        for widget, shown in wanted.items():
            widget.setVisible(shown)
            if shown:
                widget.raise_()
                widget.update()

    def covered(self) -> list[QRectF]:
        """Viewport rectangles the overlays cover (for Fit; the caption's band even while no
        caption is up)."""
        found = [widget.covered() for widget in (self.gauge, self.legend) if widget.isVisible()]
        if (self.active or bool(self.story_caption)) and self.show_caption:
            found.append(self.caption.reserved())  # a story's caption shows before its run
        return found

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.view and event.type() == QEvent.Type.Resize:
            self.place()
        return False

"""Side by side: two or four recorded runs of the same design on one synchronised timeline.

Each pane draws the design with its run's link state, PAUSE / ECN / drop markers, GPU rings,
a header with the fabric and its GPU utilisation so far, and the run's caption of the moment.
One clock and one scrubber drive every pane: at simulated time t each pane shows the frame of
its own run covering t (a run that ended earlier stays on its last frame).
"""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QComboBox,
    QGraphicsView,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.sim.moments import caption_at
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.fit import narrow_combos
from fabricstudio.ui.simview.controller import MAX_SPAN, window_frame
from fabricstudio.ui.simview.controls import format_time
from fabricstudio.ui.simview.gpu_rings import GpuRings
from fabricstudio.ui.simview.overlay import SimOverlay
from fabricstudio.ui.simview.painters import (
    GaugeData,
    caption_layout,
    gauge_data,
    paint_caption,
    paint_pane_header,
    pane_header_height,
)

TICK_MS = 33
#: A pane's caption is this much smaller than the main canvas's.
CAPTION_SCALE = 0.72
SCRUB_STEPS = 2000
#: Replay speeds offered: label -> simulated seconds per wall second.
SPEEDS = (("10 µs/s", 1e-5), ("100 µs/s", 1e-4), ("250 µs/s", 2.5e-4), ("1 ms/s", 1e-3),
          ("whole run in 20 s", None))


class RunPane(QGraphicsView):
    """One run's canvas in the side-by-side view (read-only)."""

    def __init__(self, record: RecordedRun, theme, parent=None) -> None:
        self.record = record
        scene = FabricScene(record.design.copy())
        scene.set_theme(theme)
        scene.set_port_badges(False)  # a replay: no editing chrome
        super().__init__(scene, parent)
        self.overlay = SimOverlay(scene, scene.design)
        self.overlay.bind(record.stream.links, record.stream.fabric)
        self.rings = GpuRings(scene)
        self.rings.bind(record.timeline)
        self.scale_ui = 1.0
        self.shown_index = -1
        self._over = False
        self.caption = ""
        self.caption_kind = ""
        self.gauge = GaugeData(0.0, (0, 0, 0, 0))
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setInteractive(False)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)

    def detach(self) -> None:
        """Disconnect the scene from its design (the pane is going away)."""
        self.scene().detach()

    def fit(self) -> None:
        """The whole design between the header and the caption."""
        rect = QRectF()
        for item in self.scene().device_items.values():
            rect = rect.united(item.sceneBoundingRect())
        if rect.isEmpty():
            return
        rect = rect.adjusted(-45, -45, 45, 45)
        top = pane_header_height(self.scale_ui) + 8
        two_lines, _font = caption_layout("A caption\nof two lines", self.viewport().width() - 16,
                                          self.scale_ui * CAPTION_SCALE)
        bottom = two_lines.height() + 10
        free = QRectF(self.viewport().rect()).adjusted(4, top, -4, -bottom)
        zoom = min(free.width() / rect.width(), free.height() / rect.height(), 1.5)
        if zoom <= 0:
            return
        self.resetTransform()
        self.scale(zoom, zoom)
        offset = QRectF(self.viewport().rect()).center() - free.center()
        self.centerOn(rect.center() + offset / zoom)
        self.scene().set_view_scale(zoom)

    def show_time(self, t: float, previous: float | None) -> None:
        """Show the frame covering ``t`` (with ``previous``, what happened since then)."""
        stream = self.record.stream
        if not len(stream):
            return
        index = stream.index_at(t)
        over = t >= self.record.end_s  # its last frame ends after its last transfer
        if index == self.shown_index and over == self._over:
            return
        self._over = over
        first = index
        if previous is not None and 0 <= self.shown_index < index:
            first = max(self.shown_index + 1, index - MAX_SPAN + 1)
        self.overlay.apply_frame(window_frame(stream, first, index))
        self.rings.show_frame(index, done=over)
        self.shown_index = index
        self.gauge = gauge_data(self.record.timeline, index, self.record.result, over)
        caption = caption_at(self.record.captions, float(stream.times[index]))
        self.caption = caption.text if caption is not None else ""
        self.caption_kind = caption.kind if caption is not None else ""
        self.viewport().update()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.fit()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        dark = self.scene().theme.dark
        scale = self.scale_ui
        painter.save()
        painter.resetTransform()
        view = QRectF(self.viewport().rect())
        header = QRectF(view.left() + 6, view.top() + 6, view.width() - 12,
                        pane_header_height(scale))
        paint_pane_header(painter, header, self.record.label, self.gauge, dark, scale)
        if self.caption:
            size, _font = caption_layout(self.caption, view.width() - 16, scale * CAPTION_SCALE)
            box = QRectF(view.center().x() - size.width() / 2,
                         view.bottom() - size.height() - 6, size.width(), size.height())
            paint_caption(painter, box, self.caption, self.caption_kind, dark,
                          scale * CAPTION_SCALE)
        painter.restore()


class SideBySideView(QWidget):
    """The panes and one set of playback controls; ``closed`` asks to go back to the canvas."""

    closed = Signal()
    time_shown = Signal(float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.panes: list[RunPane] = []
        self.display_time = 0.0
        self.end_s = 0.0
        self.speed: float | None = 2.5e-4
        self.playing = False
        self._last_tick = 0.0
        self._updating = False
        self.grid = QGridLayout()
        self.grid.setSpacing(4)
        self.controls = self._build_controls()
        self.banner = QLabel()
        self.banner.setObjectName("sideBySideBanner")
        self.banner.setWordWrap(True)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.hide()
        self._banner_scale = 1.0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(self.grid, 1)
        layout.addWidget(self.banner)
        layout.addWidget(self.controls)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)

    def _build_controls(self) -> QWidget:
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(8, 2, 8, 4)
        self.play_button = QToolButton()
        self.play_button.setText("Play")
        self.play_button.clicked.connect(lambda _c=False: self.toggle_play())
        self.speed_box = QComboBox()
        for label, value in SPEEDS:
            self.speed_box.addItem(label, value)
        self.speed_box.setCurrentIndex(2)
        self.speed_box.currentIndexChanged.connect(
            lambda _i: self.set_speed(self.speed_box.currentData()))
        self.scrubber = QSlider(Qt.Orientation.Horizontal)
        self.scrubber.setRange(0, SCRUB_STEPS)
        self.scrubber.setToolTip("One timeline for every pane")
        self.scrubber.valueChanged.connect(self._on_scrub)
        self.time_label = QLabel("t = -")
        self.time_label.setMinimumWidth(self.time_label.fontMetrics().horizontalAdvance(
            "t = 00.000 ms"))
        self.back_button = QToolButton()
        self.back_button.setText("◀ Canvas")
        self.back_button.setToolTip("Back to the canvas")
        self.back_button.clicked.connect(lambda _c=False: self.closed.emit())
        for widget in (self.play_button, self.speed_box):
            row.addWidget(widget)
        row.addWidget(self.scrubber, 1)
        row.addWidget(self.time_label)
        row.addWidget(self.back_button)
        narrow_combos(bar, 6)  # fits 1366 x 768 at 150 % (ui/fit.py)
        return bar

    # ------------------------------------------------------------------ runs
    def set_runs(self, records: list[RecordedRun], theme) -> None:
        """Show these runs (2 or 4; more are cut to 4) from the start."""
        self.clear()
        records = records[:4]
        columns = 2 if len(records) > 1 else 1
        for k, record in enumerate(records):
            pane = RunPane(record, theme, self)
            self.panes.append(pane)
            self.grid.addWidget(pane, k // columns, k % columns)
        self.end_s = max((r.end_s for r in records), default=0.0)
        self.seek_time(0.0)

    def clear(self) -> None:
        """Drop the panes."""
        self.pause()
        for pane in self.panes:
            self.grid.removeWidget(pane)
            pane.hide()
            pane.detach()
            pane.deleteLater()
        self.panes = []

    def set_banner(self, text: str) -> None:
        """A line across the panes (a story step's caption; empty hides it)."""
        font = self.banner.font()
        font.setPixelSize(round(19 * self._banner_scale))
        self.banner.setFont(font)
        self.banner.setText(text)
        self.banner.setVisible(bool(text))

    def banner_text(self) -> str:
        """The line shown across the panes."""
        return self.banner.text()

    def set_ui_scale(self, scale: float) -> None:
        """Scale the panes' headers and captions."""
        self._banner_scale = scale
        self.set_banner(self.banner.text())
        for pane in self.panes:
            pane.scale_ui = scale
            pane.fit()
            pane.viewport().update()

    def set_theme(self, theme) -> None:
        """Follow the theme."""
        for pane in self.panes:
            pane.scene().set_theme(theme)

    # ------------------------------------------------------------------ clock
    def set_speed(self, speed: float | None) -> None:
        """Simulated seconds per wall second (None: the longest run in 20 s)."""
        self.speed = speed

    def replay_speed(self) -> float:
        """The speed in effect."""
        return self.speed if self.speed is not None else self.end_s / 20.0

    def play(self) -> None:
        """Play from the shown time (from the start when at the end)."""
        if not self.panes:
            return
        if self.display_time >= self.end_s:
            self.seek_time(0.0)
        self.playing = True
        self._last_tick = 0.0
        self.timer.start()
        self.play_button.setText("Pause")

    def pause(self) -> None:
        """Freeze every pane."""
        self.playing = False
        self.timer.stop()
        self.play_button.setText("Play")

    def toggle_play(self) -> None:
        """Play or pause."""
        if self.playing:
            self.pause()
        else:
            self.play()

    def seek_time(self, t: float, previous: float | None = None) -> None:
        """Show simulated time ``t`` in every pane."""
        self.display_time = min(max(t, 0.0), self.end_s)
        for pane in self.panes:
            pane.show_time(self.display_time, previous)
        self._updating = True
        if self.end_s > 0:
            self.scrubber.setValue(round(SCRUB_STEPS * self.display_time / self.end_s))
        self._updating = False
        self.time_label.setText(f"t = {format_time(self.display_time)}")
        self.time_shown.emit(self.display_time)

    def _on_scrub(self, value: int) -> None:
        if not self._updating:
            self.pause()
            self.seek_time(self.end_s * value / SCRUB_STEPS)

    def tick(self) -> None:
        """Advance the shared clock."""
        now = time.perf_counter()
        dt = now - self._last_tick if self._last_tick else TICK_MS / 1000
        self._last_tick = now
        previous = self.display_time
        target = previous + self.replay_speed() * min(dt, 0.25)
        if target >= self.end_s:
            target = self.end_s
            self.pause()
        self.seek_time(target, previous)
        for pane in self.panes:
            pane.overlay.advance_animation(min(dt, 0.25))

    def shown_indices(self) -> np.ndarray:
        """Frame index each pane shows."""
        return np.array([pane.shown_index for pane in self.panes])

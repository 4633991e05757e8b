"""Playback controls: play/pause, step, speed, the time scrubber, bookmarks and run progress."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QProgressBar,
    QSlider,
    QToolBar,
    QToolButton,
)

from fabricstudio.model.units import format_time
from fabricstudio.ui.simview.controller import SimController

#: Speed choices: label -> simulated seconds per wall second (None = newest frame, live).
SPEEDS = (("Live (replay in 20 s)", None), ("1 µs/s", 1e-6), ("10 µs/s", 1e-5), ("100 µs/s", 1e-4),
          ("1 ms/s", 1e-3), ("10 ms/s", 1e-2))


class SimControls(QToolBar):
    """The simulation toolbar bound to a SimController."""

    def __init__(self, controller: SimController, parent=None) -> None:
        super().__init__("Simulation", parent)
        self.setObjectName("simulationToolbar")
        self.controller = controller
        self.play_button = self._button("Play", "Play / pause (Ctrl+Space)", self._toggle_play)
        self.step_back = self._button("◀|", "Step one frame back", lambda: controller.step(-1))
        self.step_button = self._button("|▶", "Step one frame", lambda: controller.step(1))
        self.speed = QComboBox()
        self.speed.setToolTip("Playback speed in simulated time per wall second; Live shows "
                              "the newest frame while running and replays a finished run in 20 s")
        for label, value in SPEEDS:
            self.speed.addItem(label, value)
        self.speed.currentIndexChanged.connect(
            lambda: controller.set_speed(self.speed.currentData()))
        self.addWidget(self.speed)
        self.scrubber = QSlider(Qt.Orientation.Horizontal)
        self.scrubber.setMinimumWidth(240)
        self.scrubber.setToolTip("Time scrubber over the recorded run")
        self.scrubber.setEnabled(False)
        self.scrubber.valueChanged.connect(self._on_scrub)
        self.addWidget(self.scrubber)
        self.time_label = QLabel("t = -")
        self.time_label.setMinimumWidth(150)
        self.addWidget(self.time_label)
        self.addSeparator()
        #: The jump buttons by moment name (first_pause, peak_queue, first_drop).
        self.jump_buttons: dict[str, QToolButton] = {}
        for name, label, key in (("first_pause", "First PAUSE", "F6"),
                                 ("peak_queue", "Peak queue", "F7"),
                                 ("first_drop", "First drop", "F8")):
            self.jump_buttons[name] = self._button(
                label, f"Jump to the {label.lower().replace('pause', 'PAUSE')} ({key})",
                lambda n=name: controller.jump(n))
        self.addSeparator()
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setMaximumWidth(160)
        self.progress_bar.setFormat("%p%")
        self.addWidget(self.progress_bar)
        self.rate_label = QLabel("")
        self.rate_label.setMinimumWidth(200)
        self.addWidget(self.rate_label)
        self._updating = False
        controller.frame_shown.connect(self._on_frame)
        controller.progress.connect(self._on_progress)
        controller.state_changed.connect(self._on_state)
        controller.stream_changed.connect(lambda _s: self._on_frame(-1, 0.0))

    def _button(self, text: str, tip: str, slot) -> QToolButton:
        """A tool button calling ``slot()`` with no arguments.  ``clicked`` carries a bool
        (checked); passing it on would fill a lambda's default argument (``n=name`` became
        False and every jump button raised KeyError), so it is dropped here."""
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.clicked.connect(lambda _checked=False: slot())
        self.addWidget(button)
        return button

    def _toggle_play(self) -> None:
        if self.controller.playing:
            self.controller.pause()
        else:
            self.controller.play()
        self._sync_play()

    def _sync_play(self) -> None:
        self.play_button.setText("Pause" if self.controller.playing else "Play")

    def _on_scrub(self, value: int) -> None:
        if not self._updating:
            self.controller.pause()
            self.controller.seek_index(value)
            self._sync_play()

    def _on_frame(self, index: int, t: float) -> None:
        stream = self.controller.stream
        count = len(stream) if stream is not None else 0
        self._updating = True
        self.scrubber.setEnabled(count > 0)
        if self.scrubber.maximum() != max(0, count - 1):
            self.scrubber.setMaximum(max(0, count - 1))
        if index >= 0 and self.scrubber.value() != index:
            self.scrubber.setValue(index)
        self._updating = False
        text = f"t = {format_time(t)}  (frame {index + 1}/{count})" if index >= 0 else "t = -"
        if text != self.time_label.text():
            self.time_label.setText(text)
        self._sync_play()

    def _on_progress(self, now: float, fraction: float, rate: float) -> None:
        self.progress_bar.setValue(int(1000 * min(1.0, max(0.0, fraction))))
        self.rate_label.setText(f"sim {format_time(now)} · {_pace(rate)}")
        stream = self.controller.stream
        if stream is not None and self.scrubber.maximum() != max(0, len(stream) - 1):
            self._updating = True
            self.scrubber.setMaximum(max(0, len(stream) - 1))
            self._updating = False

    def _on_state(self, state: str) -> None:
        if state == "finished":
            self.progress_bar.setValue(1000)
        if state == "starting":
            self.progress_bar.setValue(0)
            self.rate_label.setText("building the simulation…")
        if state in ("stopped", "failed"):
            self.rate_label.setText(f"{state} at {self.rate_label.text()}")
        self._sync_play()


def _pace(rate: float) -> str:
    """Simulated time per wall second: ``12.5 µs/s``, ``3.20 ms/s``, ``0.43 s/s``."""
    if rate >= 0.1:
        return f"{rate:.3g} s/s"
    if rate >= 1e-3:
        return f"{rate * 1e3:.3g} ms/s"
    return f"{rate * 1e6:.1f} µs/s"

"""The window's central area as a stage: the canvas, or the side-by-side replay in its place.

Installed by the simulation view: the window's central widget (the canvas view) becomes the
first page of a stack, the side-by-side view the second.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QStackedWidget, QWidget

from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.ui.simview.side_by_side import SideBySideView


class Stage(QStackedWidget):
    """Canvas (page 0) or side by side (page 1) in the middle of the window."""

    def __init__(self, window: QMainWindow) -> None:
        canvas = window.takeCentralWidget()
        super().__init__(window)
        self.canvas: QWidget = canvas
        self.addWidget(canvas)
        self.side_by_side = SideBySideView()
        self.addWidget(self.side_by_side)
        self.side_by_side.closed.connect(self.show_canvas)
        window.setCentralWidget(self)
        self.setCurrentWidget(canvas)

    @property
    def showing_side_by_side(self) -> bool:
        """True while the side-by-side replay is on stage."""
        return self.currentWidget() is self.side_by_side

    def show_side_by_side(self, records: list[RecordedRun], theme) -> None:
        """Put these runs side by side on stage."""
        self.side_by_side.set_runs(records, theme)
        self.setCurrentWidget(self.side_by_side)

    def show_canvas(self) -> None:
        """Back to the canvas."""
        self.side_by_side.pause()
        self.setCurrentWidget(self.canvas)
        self.canvas.setFocus()

"""The analysis dock: network-plane layers, then the live analysis of the design (errors and
warnings with click-to-select, oversubscription, bisection, hop counts, bill of materials).

Analysis is debounced (a single-shot timer restarted by each change) and runs on a frozen copy
of the design in a worker thread, so large fabrics never stall editing; a result that arrives
for an outdated revision is dropped.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, Plane
from fabricstudio.ui.theme import INVALID, PLANE_COLOURS, WARNING

DEBOUNCE_MS = 350
#: At most this long a closing window waits for a running analysis (seconds).
SHUTDOWN_WAIT_S = 0.1
OBJECTS_ROLE = Qt.ItemDataRole.UserRole + 1
SEVERITY_COLOURS = {"error": INVALID, "warning": WARNING}


class _Relay(QObject):
    """Carries a worker's result to the GUI thread (queued signal)."""

    finished = Signal(int, object, str)


class AnalysisPanel(QWidget):
    """Layers and analysis results; ``select_requested`` carries the ids of a clicked issue."""

    #: Emitted with a list of device/link ids to select.
    select_requested = Signal(list)
    #: Emitted when a network layer is shown (True) or hidden (False).
    plane_toggled = Signal(object, bool)

    def __init__(self, design: Design, parent=None) -> None:
        super().__init__(parent)
        self.design = design
        self.report = None
        #: Prices for the cost section (None: no cost section); see set_cost_book.
        self.cost_book = None
        self._pending_book = None
        self._worker: threading.Thread | None = None
        self._pending_revision = -1
        self._relay = _Relay()
        self._relay.finished.connect(self._on_finished)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.start_analysis)
        self.plane_boxes: dict[Plane, QCheckBox] = {}
        layers = QHBoxLayout()
        layers.addWidget(QLabel("Layers:"))
        for plane in Plane:
            box = QCheckBox(plane.value.capitalize())
            box.setChecked(True)
            colour = PLANE_COLOURS[plane].name()
            box.setStyleSheet(f"QCheckBox::indicator:checked {{ background: {colour}; "
                              f"border: 1px solid {colour}; border-radius: 3px; }}")
            box.toggled.connect(lambda on, p=plane: self.plane_toggled.emit(p, on))
            self.plane_boxes[plane] = box
            layers.addWidget(box)
        layers.addStretch(1)
        self.status = QLabel("Analysing…")
        self.status.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._on_item_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(layers)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)
        design.changed.connect(self.schedule)
        self.schedule()

    # ------------------------------------------------------------ scheduling
    def schedule(self) -> None:
        """(Re)start the debounce timer."""
        self.timer.start()

    def set_cost_book(self, book) -> None:
        """Price the bill of materials with ``book`` from now on (analyses again)."""
        self.cost_book = book
        self.schedule()

    def set_plane_checked(self, plane: Plane, on: bool) -> None:
        """Reflect a layer change made elsewhere (View menu)."""
        box = self.plane_boxes[plane]
        if box.isChecked() != on:
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)

    def start_analysis(self) -> None:
        """Analyse a frozen copy of the design in a worker thread."""
        if self._worker is not None and self._worker.is_alive():
            self.timer.start()  # try again when the current run is done
            return
        revision = self.design.revision
        data = self.design.to_data()
        self._pending_revision = revision
        self._pending_book = self.cost_book
        self.status.setText("Analysing…")
        self._worker = threading.Thread(target=self._work, args=(revision, data,
                                                                 self.cost_book),
                                        name="fabricstudio-analysis", daemon=True)
        self._worker.start()

    def _work(self, revision: int, data, cost_book=None) -> None:
        try:
            from fabricstudio.topology.analysis import analyze

            report = analyze(Design.from_data(data), cost_book=cost_book)
            self._relay.finished.emit(revision, report, "")
        except Exception as exc:  # noqa: BLE001 - shown to the user, never crashes the GUI
            self._relay.finished.emit(revision, None, f"{type(exc).__name__}: {exc}")

    def wait(self, timeout: float = 10.0) -> None:
        """Block until a running analysis finishes (tests, shutdown)."""
        if self._worker is not None:
            self._worker.join(timeout)

    def shutdown(self) -> None:
        """Stop the timer and give a running worker a moment to finish (window closing).

        A long analysis (tens of thousands of GPUs) is abandoned: its thread is a daemon that
        works on a frozen copy, so quitting never waits seconds for a result nobody will see.
        """
        self.timer.stop()
        try:
            self.design.changed.disconnect(self.schedule)
        except (TypeError, ValueError):
            pass
        self.wait(SHUTDOWN_WAIT_S)

    # --------------------------------------------------------------- results
    def _on_finished(self, revision: int, report, error: str) -> None:
        if revision != self.design.revision or self._pending_book is not self.cost_book:
            self.schedule()
            return
        if error:
            self.report = None
            self.status.setText(f"Analysis failed: {error}")
            self.tree.clear()
            return
        self.report = report
        self._show(report)

    def _show(self, report) -> None:
        from fabricstudio.ui.panels.analysis_view import fill_tree, headline

        if not self.design.devices:
            self.status.setText("Add devices or build a fabric: problems, oversubscription, "
                                "bisection, hops, the bill of materials and its cost appear "
                                "here.")
            self.tree.clear()
            return
        self.status.setText(headline(report))
        fill_tree(self.tree, report)

    def _on_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        ids = item.data(0, OBJECTS_ROLE)
        if ids:
            self.select_requested.emit(list(ids))

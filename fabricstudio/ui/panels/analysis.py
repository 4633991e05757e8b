"""The analysis dock: network-plane layers, then the live analysis of the design (errors and
warnings with click-to-select, oversubscription, bisection, hop counts, bill of materials).

Analysis is debounced (a single-shot timer restarted by each change) and runs on a snapshot of
the design in the background (``fabricstudio.ui.background``), so large fabrics never stall
editing; a result that arrives for an outdated revision is dropped.  A large design (from
CHILD_PROCESS_FROM devices and links) is analysed in a child process: its seconds of
pure-Python work (8.9 s of CPU at 32,768 GPUs) would otherwise hold the GUI's GIL and slow
every paint; a change while it runs ends the child at once and the analysis starts again
after the debounce.  A small one runs on a worker thread (no child to start; it takes well
under a second).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, Plane, freeze
from fabricstudio.ui.background import Call, ChildCall, Worker, abandon
from fabricstudio.ui.child_entry import ByName
from fabricstudio.ui.model_signals import ModelSignals
from fabricstudio.ui.theme import INVALID, PLANE_COLOURS, WARNING

DEBOUNCE_MS = 350
#: Designs with at least this many devices and links are analysed in a child process (an
#: 8,192-GPU rail-optimised fabric has about 25,600; 2,048 GPUs, 4,450, analysed in 0.1 s).
CHILD_PROCESS_FROM = 8_000
#: At most this long a closing window waits for a running analysis (seconds).
SHUTDOWN_WAIT_S = 0.1
OBJECTS_ROLE = Qt.ItemDataRole.UserRole + 1
SEVERITY_COLOURS = {"error": INVALID, "warning": WARNING}


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
        #: Elements marked failed (what-if): analysed as the fabric without them.
        self.failures: list = []
        self._pending_failures: list = []
        self._worker: Worker | None = None
        self._revision = -1  # of the design the running analysis looks at
        self._pending_book = None  # the cost book it prices with
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
        self.model_signals = ModelSignals(self)
        self.model_signals.connect(design.changed, self.schedule)
        self.schedule()

    # ------------------------------------------------------------ scheduling
    def schedule(self) -> None:
        """(Re)start the debounce timer; an analysis running in a child process is ended
        (its design is outdated) and starts again when the timer runs out."""
        if isinstance(self._worker, ChildCall) and self._worker.isRunning():
            self._cancel()
        self.timer.start()

    def _cancel(self) -> None:
        """End the running child analysis; its worker finishes on its own."""
        worker = self._worker
        if worker is not None:
            worker.request_stop()
            abandon(worker)
            self._worker = None

    def set_cost_book(self, book) -> None:
        """Price the bill of materials with ``book`` from now on (analyses again)."""
        self.cost_book = book
        self.schedule()

    def set_failures(self, failures: list) -> None:
        """Analyse the fabric without ``failures`` (Failure objects) from now on."""
        if list(failures) != self.failures:
            self.failures = list(failures)
            self.schedule()

    def set_plane_checked(self, plane: Plane, on: bool) -> None:
        """Reflect a layer change made elsewhere (View menu)."""
        box = self.plane_boxes[plane]
        if box.isChecked() != on:
            box.blockSignals(True)
            box.setChecked(on)
            box.blockSignals(False)

    def start_analysis(self) -> None:
        """Analyse a snapshot of the design in a background worker."""
        if self._worker is not None and self._worker.isRunning():
            self.timer.start()  # try again when the current run is done
            return
        if self._worker is not None:
            self._worker.deleteLater()
        snapshot, cost_book, failures = freeze(self.design), self.cost_book, list(self.failures)
        self._revision, self._pending_book = snapshot.revision, cost_book
        self._pending_failures = failures
        self.status.setText("Analysing…")
        worker: Worker
        if len(snapshot.devices) + len(snapshot.links) >= CHILD_PROCESS_FROM:
            worker = ChildCall(ByName("fabricstudio.topology.analysis", "analyze"), snapshot,
                               parent=self, cost_book=cost_book, failures=failures)
        else:
            worker = Call(lambda: _analyze(snapshot, cost_book, failures), self)
        worker.succeeded.connect(self._on_report)
        worker.failed.connect(self._on_error)
        self._worker = worker
        worker.start()

    @property
    def worker(self) -> Worker | None:
        """The worker of the latest analysis (None before the first, or once cancelled)."""
        return self._worker

    @property
    def running(self) -> bool:
        """True while an analysis runs in the background."""
        return self._worker is not None and self._worker.isRunning()

    def wait(self, timeout: float = 10.0) -> None:
        """Block until a running analysis finishes (tests, shutdown)."""
        if self._worker is not None:
            self._worker.wait(int(timeout * 1000))

    def shutdown(self) -> None:
        """Stop the timer and give a running worker a moment to finish (window closing).

        A long analysis (tens of thousands of GPUs) is not waited for: its child process is
        ended, or a worker thread lets go of this panel and finishes on its own (its result
        is dropped), so closing the window or quitting never waits seconds for a report
        nobody will see.
        """
        self.timer.stop()
        self.model_signals.disconnect_all()
        if isinstance(self._worker, ChildCall):
            self._worker.request_stop()
        self.wait(SHUTDOWN_WAIT_S)
        if self._worker is not None:
            abandon(self._worker)  # a running QThread must not die with its parent

    # --------------------------------------------------------------- results
    def _on_report(self, report: object) -> None:
        if self.sender() is self._worker:  # not one cancelled after it had finished
            self._on_finished(self._revision, report, "")

    def _on_error(self, error: str) -> None:
        if self.sender() is self._worker:
            self._on_finished(self._revision, None, error)

    def _on_finished(self, revision: int, report, error: str) -> None:
        if (revision != self.design.revision or self._pending_book is not self.cost_book
                or self._pending_failures != self.failures):
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


def _analyze(design: Design, cost_book: object = None, failures: list | None = None) -> object:
    """The analysis report of ``design`` without the ``failures`` (on a worker thread)."""
    from fabricstudio.topology.analysis import analyze

    return analyze(design, cost_book=cost_book, failures=failures or ())

"""Compare designs (A/B) in the designer: the open design (A) and another design file (B) run
the scenario panel's scenario, then a table of their key figures with B - A deltas (the same
figures as ``fabricstudio compare A B``, docs/compare.md) and a synchronised side-by-side
replay of both runs (the comparison's side-by-side view, one time cursor for both).

Each design runs on its own technology as saved (as on the command line); both runs use the
same workload, seed and engine settings, in parallel child processes like the fabric
comparison (:class:`~fabricstudio.ui.simview.worker.CompareWorker`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, FrozenDesign, Technology, freeze
from fabricstudio.sim.compare import (
    Comparison,
    design_figures,
    format_delta,
    format_value,
    pair_comparison,
)
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.request import RunRequest
from fabricstudio.ui.simview.install import COMPARE_HEIGHT
from fabricstudio.ui.simview.process_worker import picklable
from fabricstudio.ui.simview.source import SourceFactory
from fabricstudio.ui.simview.worker import CompareWorker

#: Table columns.
HEADERS = ("Figure", "A", "B", "B - A", "Better")
#: Colour of the better side's mark (Okabe-Ito bluish green, readable on dark and light).
BETTER_COLOUR = "#009E73"


def request_on(design: Design, request: RunRequest) -> RunRequest:
    """``request`` on ``design``'s own technology (DCQCN kept only on RoCE)."""
    technology = design.fabric.technology
    return request.with_changes(technology=technology,
                                dcqcn=request.dcqcn and technology is Technology.ROCE)


class DesignPairWorker(CompareWorker):
    """Runs one request on two designs (each on its own technology) like the fabric comparison
    runs its variants, then analyses both designs; ``succeeded`` carries the two design
    figure dicts and the currency."""

    def __init__(self, factory: SourceFactory, designs: list[tuple[str, FrozenDesign]],
                 request: RunRequest, cost_book: Any = None, parent: Any = None,
                 use_process: bool = False) -> None:
        super().__init__(factory, designs[0][1], request, parent, use_process=use_process,
                         variants=(), parallel=len(designs))
        self.designs = designs
        self.cost_book = cost_book

    def jobs(self) -> list[tuple[str, FrozenDesign, RunRequest]]:
        return [(label, design, request_on(design, self._request))
                for label, design in self.designs]

    def work(self) -> tuple[list[dict[str, float | None]], str | None]:
        super().work()
        self.check_stop()
        figures = [design_figures(design, self.cost_book) for _label, design in self.designs]
        return [found for found, _currency in figures], figures[0][1]


class DesignComparePanel(QWidget):
    """Choose B, run A and B, the delta table, Side by side."""

    #: Side by side of the two runs: [RecordedRun of A, RecordedRun of B].
    side_by_side_requested = Signal(object)
    finished = Signal()

    def __init__(self, factory_source, design: Design, request_source,
                 cost_book_source=lambda: None, path_source=lambda: None,
                 parent=None) -> None:
        super().__init__(parent)
        #: Returns the SourceFactory runs are built with (the simulation view's).
        self.factory_source = factory_source
        self.design = design
        #: Returns the scenario panel's RunRequest (ValueError with a message when invalid).
        self.request_source = request_source
        self.cost_book_source = cost_book_source
        #: Returns the open design's file (None: never saved).
        self.path_source = path_source
        self.b_design: Design | None = None
        self.b_path: Path | None = None
        self.labels = ("A", "B")
        self.records: dict[str, RecordedRun] = {}
        self.comparison: Comparison | None = None
        self.worker: DesignPairWorker | None = None
        self.request: RunRequest | None = None
        #: The dock (set by install_design_compare_dock).
        self.dock: Any = None
        self.choose_button = QPushButton("Choose B…")
        self.choose_button.setToolTip("The design file to compare the open design with")
        self.choose_button.clicked.connect(lambda _checked=False: self.choose_b())
        self.run_button = QPushButton("Run A/B")
        self.run_button.setToolTip("Run the Scenario panel's scenario on A and on B")
        self.run_button.clicked.connect(lambda _checked=False: self.start())
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(lambda _checked=False: self.stop())
        self.side_button = QPushButton("Side by side")
        self.side_button.setToolTip("Replay A and B side by side on one time cursor")
        self.side_button.clicked.connect(lambda _checked=False: self.show_side_by_side())
        self.names = QLabel()
        self.names.setWordWrap(True)
        self.bars = {label: self._bar(label) for label in self.labels}
        self.status = QLabel("Choose a design B to compare the open design (A) with.")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self._layout()
        self._sync()

    def _bar(self, label: str) -> QProgressBar:
        bar = QProgressBar()
        bar.setRange(0, 1000)
        bar.setFormat(f"{label}: %p%")
        bar.setTextVisible(True)
        return bar

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        for button in (self.choose_button, self.run_button, self.stop_button, self.side_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        bars = QHBoxLayout()
        for bar in self.bars.values():
            bars.addWidget(bar)
        left = QVBoxLayout()
        left.addLayout(buttons)
        left.addWidget(self.names)
        left.addLayout(bars)
        left.addWidget(self.status)
        left.addStretch(1)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        outer.addLayout(left, 38)
        outer.addWidget(self.table, 62)

    # ------------------------------------------------------------------ B
    def choose_b(self) -> bool:
        """Ask for design B's file; True when one was loaded."""
        start = str(self.b_path.parent) if self.b_path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Compare with design", start,
                                              "FabricStudio designs (*.json);;All files (*)")
        return bool(path) and self.load_b(path)

    def load_b(self, path: str | os.PathLike[str]) -> bool:
        """Use the design in ``path`` as B; False (the reason in the status line) when it
        cannot be read."""
        from fabricstudio.formats import DesignFileError, load_design

        try:
            design = load_design(path)
        except DesignFileError as exc:
            self.status.setText(str(exc))
            return False
        self.b_design, self.b_path = design, Path(path)
        self.records, self.comparison = {}, None
        self.table.setRowCount(0)
        self.status.setText("Press Run A/B: the Scenario panel's scenario runs on both.")
        self._sync()
        return True

    def choose_and_run(self) -> None:
        """What-if > Compare with design…: show the dock, ask for B, then run both."""
        if self.dock is not None:
            self.dock.show()
            self.dock.raise_()
            window = self.dock.parentWidget()
            if isinstance(window, QMainWindow):  # room for the table, still fits 1366 x 768
                window.resizeDocks([self.dock], [COMPARE_HEIGHT], Qt.Orientation.Vertical)
        if self.running or not self.choose_b():
            return
        self.start()

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        """True while A and B run."""
        return self.worker is not None

    def _name(self, design: Design, fallback: str) -> str:
        return design.name or fallback

    def start(self) -> bool:
        """Run the scenario on A and B (False, with the reason shown, when it cannot)."""
        if self.running or self.b_design is None:
            return False
        try:
            request = self.request_source()
        except ValueError as exc:
            self.status.setText(f"The scenario cannot run: {exc}")
            return False
        self.request = request
        self.records, self.comparison = {}, None
        self.table.setRowCount(0)
        for bar in self.bars.values():
            bar.setValue(0)
        designs = [("A", freeze(self.design)), ("B", freeze(self.b_design))]
        factory = self.factory_source()
        worker = DesignPairWorker(factory, designs, request, self.cost_book_source(), self,
                                  use_process=picklable(factory))
        # a stopped run's signals still queued when the next run starts reach no one: its
        # late 'finished' would end the new run (and wait for it on the GUI thread)
        worker.variant_progress.connect(self._while_current(worker, self._on_progress))
        worker.variant_done.connect(self._while_current(worker, self._on_run_done))
        worker.succeeded.connect(self._while_current(worker, self._on_figures))
        worker.failed.connect(self._while_current(
            worker, lambda text: self.status.setText(f"A/B stopped: {text}")))
        worker.finished.connect(self._while_current(worker, self._on_finished))
        self.worker = worker
        self.status.setText(f"Running {request.workload_label} on A and B in parallel…")
        self._sync()
        worker.start()
        return True

    def _while_current(self, worker: DesignPairWorker, slot):
        """``slot``, called only while ``worker`` is the run this panel shows."""
        return lambda *args: slot(*args) if worker is self.worker else None

    def stop(self) -> None:
        """Abandon the runs at once."""
        if self.worker is not None:
            self.worker.request_stop()
            self.worker.wait()
            self._on_finished()

    def shutdown(self) -> None:
        """Stop (the window is closing)."""
        self.stop()

    def _on_progress(self, label: str, fraction: float, _now: float) -> None:
        self.bars[label].setValue(int(1000 * min(1.0, max(0.0, fraction))))

    def short_name(self, side: str) -> str:
        """How a side is called on the replay's panes: its file's name, else the design's."""
        path = self.path_source() if side == "A" else self.b_path
        design = self.design if side == "A" else self.b_design
        if path:
            return Path(path).stem
        return self._name(design, side) if design is not None else side

    def _on_run_done(self, label: str, record: RecordedRun) -> None:
        record.label = f"{label}: {self.short_name(label)}"
        self.records[label] = record
        self.bars[label].setValue(1000)

    def _on_figures(self, found: tuple[list[dict[str, float | None]], str | None]) -> None:
        figures, currency = found
        a, b = self.records.get("A"), self.records.get("B")
        if a is None or b is None or a.result is None or b.result is None:
            return
        name = self.request.workload_label if self.request is not None else "scenario"
        self.comparison = pair_comparison(
            (self._name(self.design, "A"), self._name(self.b_design or self.design, "B")),
            (figures[0], figures[1]), currency, [(name, a.result, b.result)])
        self._fill_table()

    def _on_finished(self) -> None:
        worker, self.worker = self.worker, None
        if worker is None:
            return
        worker.wait()
        worker.deleteLater()
        if self.comparison is not None:
            self.status.setText(f"Same scenario on both: {self.comparison.scenarios[0]}. "
                                "Side by side replays them on one time cursor.")
        elif not self.status.text().startswith("A/B stopped"):
            self.status.setText("A/B stopped before both runs finished")
        self._sync()
        self.finished.emit()

    # ------------------------------------------------------------------ table
    def _fill_table(self) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        rows = comparison.rows
        sections = [*comparison.scenarios, "design"]
        self.table.setRowCount(0)
        bold = QFont()
        bold.setBold(True)
        for section in sections:
            title = "Design" if section == "design" else f"Run: {section}"
            line = self.table.rowCount()
            self.table.insertRow(line)
            head = QTableWidgetItem(title)
            head.setFont(bold)
            self.table.setItem(line, 0, head)
            self.table.setSpan(line, 0, 1, len(HEADERS))
            for row in (r for r in rows if r.section == section):
                line = self.table.rowCount()
                self.table.insertRow(line)
                cells = (row.kpi.label, format_value(row.kpi, row.a, comparison.currency),
                         format_value(row.kpi, row.b, comparison.currency),
                         format_delta(row, comparison.currency),
                         {"a": "A", "b": "B", "same": "="}.get(row.better or "", ""))
                for col, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    if col:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                              | Qt.AlignmentFlag.AlignVCenter)
                    if col == 4 and text in ("A", "B"):
                        item.setForeground(QBrush(QColor(BETTER_COLOUR)))
                        item.setFont(bold)
                    self.table.setItem(line, col, item)

    def cell_text(self, section: str, key: str, column: str) -> str:
        """The table's text of one figure (``column``: a header of HEADERS)."""
        if self.comparison is None:
            return ""
        label = self.comparison.row(section, key).kpi.label
        col = HEADERS.index(column)
        in_section = False
        for line in range(self.table.rowCount()):
            first = self.table.item(line, 0)
            text = first.text() if first is not None else ""
            if self.table.columnSpan(line, 0) > 1:
                in_section = text == ("Design" if section == "design" else f"Run: {section}")
            elif in_section and text == label:
                item = self.table.item(line, col)
                return item.text() if item is not None else ""
        return ""

    # ------------------------------------------------------------------ replay
    def show_side_by_side(self) -> None:
        """Ask for the side-by-side replay of A and B."""
        if "A" in self.records and "B" in self.records:
            self.side_by_side_requested.emit([self.records["A"], self.records["B"]])

    def _sync(self) -> None:
        a = self._name(self.design, "the open design")
        b = (f"{self._name(self.b_design, 'B')} ({self.b_path.name})"
             if self.b_design is not None and self.b_path is not None else "not chosen")
        self.names.setText(f"A: {a}    B: {b}")
        self.run_button.setEnabled(self.b_design is not None and not self.running)
        self.choose_button.setEnabled(not self.running)
        self.stop_button.setEnabled(self.running)
        self.side_button.setEnabled(not self.running and len(self.records) == 2)


def install_design_compare_dock(window) -> DesignComparePanel:
    """The Compare designs dock of a MainWindow (bottom, behind Charts; What-if > Compare
    with design… asks for B and runs)."""
    simulation = window.simulation
    costs = window.costs
    panel = DesignComparePanel(lambda: simulation.factory, window.design,
                               simulation.scenario.request, lambda: costs.book,
                               lambda: window.path)
    dock = window.add_bottom_tab("Compare designs", "simCompareDesignsDock", panel,
                                 window.docks.get("simSweepDock"))
    panel.side_by_side_requested.connect(simulation.side_by_side)
    panel.dock = dock
    return panel

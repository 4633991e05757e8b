"""The Sweep dock: open a sweep file, run it in the background (cached points come back at
once, a local process pool runs the others), watch the points and the Pareto front appear,
and save the results table and the plot (docs/sweeps.md)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.ui.background import Worker

#: Seconds between two redraws of the plot while points arrive.
REDRAW_S = 0.4


class SweepWorker(Worker):
    """Runs a sweep off the GUI thread; each finished point and the progress come back as
    signals, and ``request_stop`` ends it after the points in progress."""

    point_done = Signal(object)
    progressed = Signal(object)

    def __init__(self, spec, cost_book: Any, cache_dir: Path, workers: int, parent=None) -> None:
        super().__init__(parent)
        self.spec, self.cost_book, self.cache_dir, self.workers = (spec, cost_book, cache_dir,
                                                                   workers)

    def work(self) -> list[dict[str, Any]]:
        from fabricstudio.sim.sweep import Executor, PointCache, run_sweep

        return run_sweep(self.spec, cost_book=self.cost_book, cache=PointCache(self.cache_dir),
                         executor=Executor("local", workers=self.workers),
                         progress=self.progressed.emit, on_point=self.point_done.emit,
                         should_stop=self.stop_event.is_set)


class SweepPanel(QWidget):
    """Open / Run / Stop a sweep, its progress, the Pareto plot, Save results / plot."""

    def __init__(self, cost_book_source=lambda: None, parent=None) -> None:
        super().__init__(parent)
        self.cost_book_source = cost_book_source
        self.spec = None
        self.spec_path: Path | None = None
        self.rows: list[dict[str, Any]] = []
        self.front: list[int] = []
        self.worker: SweepWorker | None = None
        #: The dock and the What-if menu action (set by install_sweep_dock).
        self.dock: Any = None
        self.show_action: Any = None
        self._drawn = 0.0
        self.open_button = QPushButton("Open sweep…")
        self.open_button.clicked.connect(lambda _checked=False: self.open_dialog())
        self.info = QLabel("Open a sweep file (docs/sweeps.md): a grid of fabrics and runs")
        self.info.setWordWrap(True)
        self.workers = QSpinBox()
        self.workers.setRange(1, max(1, os.cpu_count() or 1))
        self.workers.setValue(self.workers.maximum())
        self.workers.setToolTip("Local worker processes (1 = in the background thread)")
        self.run_button = QPushButton("Run sweep")
        self.run_button.clicked.connect(lambda _checked=False: self.start())
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(lambda _checked=False: self.stop())
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.x_axis, self.y_axis = QComboBox(), QComboBox()
        from fabricstudio.sim.sweep.point import FIGURE_COLUMNS
        from fabricstudio.sim.sweep.results import axis_label

        for combo in (self.x_axis, self.y_axis):
            for key in FIGURE_COLUMNS:
                combo.addItem(axis_label(key), key)
            combo.currentIndexChanged.connect(lambda _i: self.redraw())
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(140)
        self.save_results_button = QPushButton("Save results…")
        self.save_results_button.clicked.connect(lambda _checked=False: self.save_results_dialog())
        self.save_plot_button = QPushButton("Save plot…")
        self.save_plot_button.clicked.connect(lambda _checked=False: self.save_plot_dialog())
        self._layout()
        self._sync()

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(QLabel("Workers"))
        buttons.addWidget(self.workers)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        axes = QHBoxLayout()
        for text, combo in (("x", self.x_axis), ("y", self.y_axis)):
            axes.addWidget(QLabel(text))
            axes.addWidget(combo, 1)
        saves = QHBoxLayout()
        saves.addWidget(self.save_results_button)
        saves.addWidget(self.save_plot_button)
        saves.addStretch(1)
        left = QVBoxLayout()
        left.addLayout(buttons)
        left.addWidget(self.info)
        left.addWidget(self.progress)
        left.addWidget(self.status)
        left.addLayout(axes)
        left.addLayout(saves)
        left.addStretch(1)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 2)
        layout.addWidget(self.plot, 3)

    @property
    def running(self) -> bool:
        """True while a sweep runs."""
        return self.worker is not None

    def _sync(self) -> None:
        self.run_button.setEnabled(self.spec is not None and not self.running)
        self.open_button.setEnabled(not self.running)
        self.stop_button.setEnabled(self.running)
        self.save_results_button.setEnabled(bool(self.rows) and not self.running)
        self.save_plot_button.setEnabled(bool(self.rows) and not self.running)

    # ------------------------------------------------------------------ opening
    def show_dock(self) -> None:
        """Show the dock in front, asking for a sweep file when none is open (What-if >
        Sweep…)."""
        if self.dock is not None:
            self.dock.show()
            self.dock.raise_()
        if self.spec is None:
            self.open_dialog()

    def open_dialog(self) -> None:
        """Ask for a sweep file and load it."""
        path, _ = QFileDialog.getOpenFileName(self, "Open sweep", "",
                                              "Sweep files (*.json);;All files (*)")
        if path:
            self.load(path)

    def load(self, path: str | os.PathLike[str]) -> bool:
        """Load a sweep file; False (and the reason shown) when it cannot run."""
        from fabricstudio.sim.sweep import SweepError, load_sweep

        try:
            spec = load_sweep(path)
        except SweepError as exc:
            self.status.setText(str(exc))
            return False
        self.spec, self.spec_path = spec, Path(path)
        grid = ", ".join(f"{k} ({len(v)})" for k, v in spec.grid.items()) or "no grid"
        self.info.setText(f"<b>{self.spec_path.name}</b>: {spec.size:,} points over {grid}")
        self.info.setToolTip(f"Finished points are kept in {self.cache_dir()}, so a stopped "
                             f"sweep resumes where it stopped")
        self.rows, self.front = [], []
        self.status.setText("")
        self.progress.setValue(0)
        self.redraw()
        self._sync()
        return True

    def cache_dir(self) -> Path:
        """Where the points of the loaded sweep are cached (beside the sweep file)."""
        assert self.spec_path is not None
        return self.spec_path.with_name(self.spec_path.name + ".cache")

    # ------------------------------------------------------------------ running
    def start(self) -> None:
        """Run the loaded sweep in the background."""
        if self.spec is None or self.running:
            return
        self.rows, self.front = [], []
        worker = SweepWorker(self.spec, self.cost_book_source(), self.cache_dir(),
                             self.workers.value(), self)
        worker.point_done.connect(self._on_point)
        worker.progressed.connect(self._on_progress)
        worker.succeeded.connect(self._on_done)
        worker.failed.connect(lambda text: self.status.setText(f"The sweep stopped: {text}"))
        worker.finished.connect(self._on_finished)
        self.worker = worker
        self.progress.setRange(0, self.spec.size)
        self.status.setText("Starting…")
        self._sync()
        worker.start()

    def stop(self) -> None:
        """Stop after the points in progress (they are cached; Run resumes)."""
        if self.worker is not None:
            self.worker.request_stop()
            self.status.setText("Stopping after the points in progress…")

    def shutdown(self) -> None:
        """Stop and wait (window closing)."""
        if self.worker is not None:
            self.worker.request_stop()
            self.worker.wait()

    def _on_point(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        if time.monotonic() - self._drawn > REDRAW_S:
            self.redraw()

    def _on_progress(self, p) -> None:
        from fabricstudio.sim.sweep import format_progress

        self.progress.setValue(p.done)
        self.status.setText(format_progress(p).removeprefix("sweep ").split("] ", 1)[-1])

    def _on_done(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        failed = sum(1 for r in rows if r.get("error"))
        total = self.spec.size if self.spec is not None else len(rows)
        self.status.setText(f"{len(rows):,} of {total:,} points"
                            + (f", {failed:,} could not run (error column)" if failed else "")
                            + (f"; Pareto front: {len(self.front)} points" if rows else ""))

    def _on_finished(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.deleteLater()
        self.rows.sort(key=lambda r: r["point"])
        self._choose_axes()
        self.redraw()
        if self.rows and self.spec is not None:
            self._on_done(self.rows)
        self._sync()

    def _choose_axes(self) -> None:
        from fabricstudio.sim.sweep import default_axes

        if not self.rows:
            return
        x, y = default_axes(self.rows)
        for combo, key in ((self.x_axis, x), (self.y_axis, y)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(key))
            combo.blockSignals(False)

    def redraw(self) -> None:
        """Draw the points so far and their Pareto front."""
        from fabricstudio.ui.sweep_plot import fill_plot

        self._drawn = time.monotonic()
        if self.x_axis.currentIndex() < 0 or not self.rows:
            self.plot.getPlotItem().clear()
            self.front = []
            return
        if self.x_axis.currentData() == self.y_axis.currentData() or (
                self.x_axis.currentIndex() == 0 and self.y_axis.currentIndex() == 0):
            self._choose_axes()
        self.front = fill_plot(self.plot.getPlotItem(), self.rows, self.x_axis.currentData(),
                               self.y_axis.currentData())

    # ------------------------------------------------------------------ saving
    def save_results_dialog(self) -> None:
        """Ask for a file name and write the table (.csv or .parquet)."""
        path, _ = QFileDialog.getSaveFileName(self, "Save sweep results", "results.csv",
                                              "CSV (*.csv);;Parquet (*.parquet)")
        if path:
            self.save_results(path)

    def save_results(self, path: str) -> bool:
        """Write the table through the safe writer; the outcome goes to the status line."""
        from fabricstudio.formats import OutputError
        from fabricstudio.sim.sweep import write_results

        if self.spec is None:
            return False
        try:
            write_results(path, self.rows, list(self.spec.grid),
                          inputs=[self.spec_path] if self.spec_path else [])
        except (OutputError, ValueError) as exc:
            self.status.setText(f"Could not write {path}: {exc}")
            return False
        self.status.setText(f"Wrote {len(self.rows):,} points to {path}")
        return True

    def save_plot_dialog(self) -> None:
        """Ask for a file name and write the Pareto plot (.png or .svg)."""
        path, _ = QFileDialog.getSaveFileName(self, "Save Pareto plot", "pareto.png",
                                              "PNG (*.png);;SVG (*.svg)")
        if path:
            self.save_plot(path)

    def save_plot(self, path: str) -> bool:
        """Write the plot of the chosen axes as PNG or SVG (white page)."""
        from fabricstudio.formats import OutputError
        from fabricstudio.ui.sweep_plot import render_pareto

        try:
            render_pareto(self.rows, self.x_axis.currentData(), self.y_axis.currentData(),
                          path, title=self.spec_path.stem if self.spec_path else "")
        except (OutputError, ValueError) as exc:
            self.status.setText(f"Could not write {path}: {exc}")
            return False
        self.status.setText(f"Saved the plot to {path}")
        return True


def install_sweep_dock(window) -> SweepPanel:
    """The Sweep dock of a MainWindow (bottom, behind Charts; What-if > Sweep… shows it)."""
    costs = window.costs
    panel = SweepPanel(lambda: costs.book)
    dock = window.add_bottom_tab("Sweep", "simSweepDock", panel,
                                 window.simulation.docks.get("charts"))
    panel.dock, panel.show_action = dock, window.act.show_sweep
    return panel

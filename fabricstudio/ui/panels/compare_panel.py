"""Compare: the same design and workload on InfiniBand, RoCE (+/- DCQCN) and lossy Ethernet.

A side-by-side table of the outcomes and bar charts of completion time, GPU utilisation and
drops: the demo moment.  With a training workload the table also prices the GPU time each
fabric loses: money per day against GPUs that never wait, and per month against the best
fabric of the comparison (GPU-hour price from the cost book, docs/cost.md).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, freeze
from fabricstudio.sim.request import RunRequest
from fabricstudio.sim.result import Result
from fabricstudio.ui.panels.results_summary import figures, format_figure
from fabricstudio.ui.simview.process_worker import picklable
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, SourceFactory
from fabricstudio.ui.simview.worker import CompareWorker

COLUMNS = (("completion_time_s", "Completion"), ("gpu_utilisation", "GPU util."),
           ("busbw_gbps", "Bus bw"), ("dropped", "Drops"),
           ("retransmitted_bytes", "Retransmitted"), ("pauses", "PAUSEs"),
           ("ecn_marks", "ECN marks"), ("idle_per_day", "Idle GPUs /day"),
           ("idle_vs_best_month", "vs best /month"))
#: Money columns (filled from the training utilisation and the cost book's GPU-hour price).
MONEY_COLUMNS = ("idle_per_day", "idle_vs_best_month")
CHARTS = (("completion_time_s", "Completion time (µs)", 1e6),
          ("gpu_utilisation", "GPU utilisation (%)", 100.0), ("dropped", "Drops", 1.0))
#: Shown in place of GPU utilisation when the workload has no compute (not a training step).
FALLBACK_CHART = ("pauses", "PFC PAUSE frames", 1.0)
_BAR_COLOURS = ("#0072B2", "#009E73", "#56B4E9", "#D55E00")
CHART_BACKGROUND = "#16181D"


class ComparePanel(QWidget):
    """Runs COMPARE_VARIANTS in a worker thread and shows them side by side."""

    finished = Signal()

    def __init__(self, factory: SourceFactory, parent=None) -> None:
        super().__init__(parent)
        self.factory = factory
        self.status = QLabel("Press 'Compare fabrics' in the scenario panel.")
        # one line: a wrapping label would make the panel height-for-width, and the dock's
        # scroll area would then keep it at its preferred height (charts cut off, scrolling)
        self.status.setWordWrap(False)
        labels = [label for label, _t, _d in COMPARE_VARIANTS]
        self.table = QTableWidget(len(labels), len(COLUMNS))
        self.table.setHorizontalHeaderLabels([title for _k, title in COLUMNS])
        self.table.setVerticalHeaderLabels(labels)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        rows_height = sum(self.table.verticalHeader().sectionSize(r) for r in range(len(labels)))
        self.table.setFixedHeight(rows_height + self.table.horizontalHeader().height() + 6)
        self.charts = pg.GraphicsLayoutWidget()
        self.charts.setBackground(CHART_BACKGROUND)
        self.charts.setMinimumHeight(150)
        self._bars: dict[str, pg.PlotItem] = {}
        for col, (key, title, _scale) in enumerate(CHARTS):
            plot = self.charts.addPlot(row=0, col=col, title=title)
            plot.getAxis("bottom").setTicks([list(enumerate(["IB", "RoCE+DCQCN", "RoCE PFC",
                                                             "Ethernet"]))])
            plot.setMouseEnabled(x=False, y=False)
            self._bars[key] = plot
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.table)
        layout.addWidget(self.charts, 1)
        self.chart_keys = [key for key, _t, _s in CHARTS]
        self.results: dict[str, dict] = {}
        #: label -> (utilisation, GPUs) of runs with a training workload.
        self.training: dict[str, tuple[float, int]] = {}
        #: Returns the cost book for GPU-idle money (None: no money columns filled).
        self.cost_book_source = None
        self.design_revision = -1
        self.worker: CompareWorker | None = None

    @property
    def running(self) -> bool:
        """True while the comparison runs."""
        return self.worker is not None

    def start(self, design: Design, request: RunRequest) -> None:
        """Compare ``request`` on a frozen copy of ``design`` across the four fabrics."""
        if self.running:
            return
        self.results = {}
        self.training = {}
        #: Revision of the design the comparison runs on (the proposal uses it if current).
        self.design_revision = design.revision
        self.table.clearContents()
        self._draw_charts()
        self.request = request
        worker = CompareWorker(self.factory, freeze(design), request, self,
                               use_process=picklable(self.factory))
        worker.variant_started.connect(
            lambda label: self.status.setText(f"Running {label}… ({request.workload_label})"))
        worker.variant_done.connect(self._on_variant)
        worker.failed.connect(lambda text: self.status.setText(f"Comparison failed: {text}"))
        worker.finished.connect(self._on_finished)
        self.worker = worker
        worker.start()

    def stop(self) -> None:
        """Abandon the comparison at once."""
        if self.worker is not None:
            self.worker.request_stop()
            self.worker.wait()
            self._on_finished()

    def _on_variant(self, label: str, result: Result, stream) -> None:
        from fabricstudio.sim.money import training_utilisation

        values = figures(result, stream)
        self.results[label] = values
        found = training_utilisation(result)
        if found is not None and found[1]:
            self.training[label] = found
        row = [lab for lab, _t, _d in COMPARE_VARIANTS].index(label)
        for col, (key, _title) in enumerate(COLUMNS):
            if key not in MONEY_COLUMNS:
                self.table.setItem(row, col,
                                   QTableWidgetItem(format_figure(key, values.get(key))))
        self.update_money()
        self._draw_charts()

    def update_money(self) -> None:
        """(Re)price the GPU time lost by each fabric (also after the cost book changed)."""
        from fabricstudio.topology.cost import compare_idle_money, format_money

        book = self.cost_book_source() if self.cost_book_source is not None else None
        labels = [lab for lab, _t, _d in COMPARE_VARIANTS]
        if book is None or not self.training:
            return
        gpus = max(g for _u, g in self.training.values())
        money = compare_idle_money({lab: self.training.get(lab, (None, 0))[0]
                                    for lab in labels if lab in self.results}, gpus, book)
        for label, pair in money.items():
            row = labels.index(label)
            for key, value, tip in (
                    ("idle_per_day", None if pair is None else pair[0].per_day,
                     "GPU time lost against GPUs that never wait, per day"),
                    ("idle_vs_best_month", None if pair is None else pair[1].per_month,
                     "GPU time lost against the best fabric here, per month")):
                self.results[label][key] = value
                item = QTableWidgetItem(format_money(value, book.currency))
                if pair is not None:
                    m = pair[0]
                    item.setToolTip(f"{tip}: ({m.reference:.0%} - utilisation) x {m.gpus:,} "
                                    f"GPUs x {m.gpu_hour_price:,.2f} {m.currency}/GPU-hour "
                                    f"({m.confidence})")
                self.table.setItem(row, [k for k, _t in COLUMNS].index(key), item)

    def _on_finished(self) -> None:
        worker, self.worker = self.worker, None
        if worker is None:
            return
        worker.wait()
        worker.deleteLater()
        done = len(self.results)
        if done == len(COMPARE_VARIANTS):
            self.status.setText("Same design and workload on four fabrics: "
                                f"{self.request.workload_label}")
        elif not self.status.text().startswith("Comparison failed"):
            self.status.setText(f"Comparison stopped after {done} of {len(COMPARE_VARIANTS)}")
        self.finished.emit()

    def _charts(self) -> list[tuple[str, str, float]]:
        """The three charts; GPU utilisation gives way to PAUSE frames when no run has it."""
        has_gpu = any(v.get("gpu_utilisation") is not None for v in self.results.values())
        return [chart if chart[0] != "gpu_utilisation" or has_gpu else FALLBACK_CHART
                for chart in CHARTS]

    def _draw_charts(self) -> None:
        labels = [label for label, _t, _d in COMPARE_VARIANTS]
        charts = self._charts()
        self.chart_keys = [key for key, _t, _s in charts]
        for plot, (key, title, scale) in zip(self._bars.values(), charts, strict=False):
            if key == "completion_time_s" and self._longest_completion() >= 1e-3:
                title, scale = "Completion time (ms)", 1e3
            plot.setTitle(title)
            plot.clear()
            heights = [self.results.get(label, {}).get(key) for label in labels]
            for i, height in enumerate(heights):
                if height is None:
                    continue
                plot.addItem(pg.BarGraphItem(x=[i], height=[float(height) * scale], width=0.7,
                                             brush=_BAR_COLOURS[i], pen=None))
            values = [float(h) * scale for h in heights if h is not None]
            top = max(values) * 1.1 if values and max(values) > 0 else 1
            plot.setYRange(0, 100 if key == "gpu_utilisation" else top, padding=0)
            plot.setXRange(-0.6, len(labels) - 0.4, padding=0)

    def _longest_completion(self) -> float:
        times = [v.get("completion_time_s") for v in self.results.values()]
        return max((float(t) for t in times if t is not None), default=0.0)

    def bar_heights(self, key: str) -> np.ndarray:
        """Heights of the bars of one chart in CHARTS units (completion time in µs even when
        the chart shows ms); nan where a fabric has no result."""
        scale = dict((k, s) for k, _t, s in (*CHARTS, FALLBACK_CHART))[key]
        return np.array([float(self.results[label][key]) * scale
                         if label in self.results and self.results[label].get(key) is not None
                         else np.nan for label, _t, _d in COMPARE_VARIANTS])

"""Compare: the same design and workload on InfiniBand, RoCE (+/- DCQCN) and lossy Ethernet.

The fabrics run in parallel child processes, each row showing its own progress.  A finished
row can be replayed on the canvas (its button, or a double click), and two or four ticked rows
side by side on one timeline.  Under the table, a few plain sentences say why the fabrics
differ (fabricstudio.sim.explain); beside it, bar charts labelled with the table's own
figures (compare_charts.py).
Laid out in two columns so the whole panel fits a 1366 x 768 projector without scrolling.
With a training workload the table also prices the GPU time each fabric loses: money per day
against GPUs that never wait, and per month against the best fabric of the comparison
(GPU-hour price from the cost book, docs/cost.md).
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import numpy as np
from PySide6.QtCore import QStandardPaths, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import Design, freeze
from fabricstudio.sim.explain import explain_fabrics
from fabricstudio.sim.recorded import RecordedRun
from fabricstudio.sim.request import RunRequest
from fabricstudio.sim.run_cache import RunCache, cache_enabled
from fabricstudio.ui.fit import ElidedLabel
from fabricstudio.ui.panels.compare_charts import Chart, CompareCharts
from fabricstudio.ui.panels.results_summary import figure_text, figures
from fabricstudio.ui.simview.process_worker import picklable
from fabricstudio.ui.simview.source import COMPARE_VARIANTS, SourceFactory, engine_source
from fabricstudio.ui.simview.worker import CompareWorker

COLUMNS = (("gpu_utilisation", "GPU util."), ("completion_time_s", "Completion"),
           ("busbw_gbps", "Bus bw"), ("dropped", "Drops"),
           ("retransmitted_bytes", "Resent"), ("pauses", "PAUSEs"), ("ecn_marks", "ECN"),
           ("idle_per_day", "Idle /day"), ("idle_vs_best_month", "vs best /month"))
#: Money columns (filled from the training utilisation and the cost book's GPU-hour price).
MONEY_COLUMNS = ("idle_per_day", "idle_vs_best_month")
#: Leading columns: tick for side by side, the fabric, its progress or replay button.
_PICK, _FABRIC, _STATE = 0, 1, 2
_FIRST = 3
#: The charts: figure, title, scale of :meth:`ComparePanel.bar_heights` (percent, µs, count).
CHARTS = (("gpu_utilisation", "GPU utilisation", 100.0),
          ("completion_time_s", "Completion time", 1e6), ("dropped", "Drops", 1.0))
#: Shown in place of GPU utilisation when the workload has no compute (not a training step).
FALLBACK_CHART = ("pauses", "PFC PAUSE frames", 1.0)
_BAR_COLOURS = ("#0072B2", "#009E73", "#56B4E9", "#D55E00")


def default_run_cache() -> RunCache | None:
    """The user's run cache (``runs`` in Qt's cache location: ~/.cache/FabricStudio/... on
    Linux); None when turned off (FABRICSTUDIO_RUN_CACHE=0) or there is no such folder."""
    if not cache_enabled():
        return None
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return RunCache(Path(base) / "runs") if base else None


def recorded_when(stamp: float, now: float | None = None) -> str:
    """When a cached run was recorded, short: "06:31" today, else "2 Dec 06:31"."""
    when = datetime.fromtimestamp(stamp)
    today = datetime.fromtimestamp(time.time() if now is None else now).date()
    clock = when.strftime("%H:%M")
    return clock if when.date() == today else f"{when.day} {when.strftime('%b')} {clock}"


class ComparePanel(QWidget):
    """Runs COMPARE_VARIANTS in parallel and shows them side by side."""

    finished = Signal()
    #: A row's replay was asked for: its RecordedRun.
    replay_requested = Signal(object)
    #: Side by side of the ticked rows: list of RecordedRun (2 or 4).
    side_by_side_requested = Signal(object)
    #: While running: label -> fraction done of every fabric started.
    progress_changed = Signal(object)

    def __init__(self, factory: SourceFactory, parent=None) -> None:
        super().__init__(parent)
        self.factory = factory
        self.labels = [label for label, _t, _d in COMPARE_VARIANTS]
        self.status = ElidedLabel("Press 'Compare fabrics' in the scenario panel.")
        self.table = self._build_table()
        self.explanation = QLabel()
        self.explanation.setObjectName("compareExplanation")
        self.explanation.setWordWrap(True)
        self.explanation.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.explanation.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.side_button = QPushButton("Side by side")
        self.side_button.setToolTip("Replay the ticked fabrics (2 or 4) on one timeline")
        self.side_button.setEnabled(False)
        self.side_button.clicked.connect(self._on_side_by_side)
        self.fresh_button = QPushButton("Run fresh")
        self.fresh_button.setToolTip("These runs were replayed from the run cache: simulate "
                                     "the four fabrics again now")
        self.fresh_button.clicked.connect(self.run_fresh)
        self.fresh_button.hide()
        self.charts = CompareCharts(self.labels, _BAR_COLOURS)
        self._layout()
        self.chart_keys = [key for key, _t, _s in CHARTS]
        self.results: dict[str, dict] = {}
        self.records: dict[str, RecordedRun] = {}
        self.worker: CompareWorker | None = None
        self.request: RunRequest | None = None
        self.fractions = {}
        #: label -> (utilisation, GPUs) of runs with a training workload.
        self.training: dict[str, tuple[float, int]] = {}
        #: Returns the cost book for GPU-idle money (None: no money columns filled).
        self.cost_book_source = None
        self.design_revision = -1
        #: Returns the run cache to use (None: compute every run).  Only runs of the product's
        #: own engine (``engine_source``) are cached.
        self.cache_source = default_run_cache
        self._frozen = None

    # ------------------------------------------------------------------ building
    def _build_table(self) -> QTableWidget:
        table = QTableWidget(len(self.labels), _FIRST + len(COLUMNS))
        table.setHorizontalHeaderLabels(["", "Fabric", ""] + [t for _k, t in COLUMNS])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        for row, label in enumerate(self.labels):
            pick = QTableWidgetItem()
            pick.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            pick.setCheckState(Qt.CheckState.Checked)
            pick.setToolTip("Include in the side-by-side replay")
            table.setItem(row, _PICK, pick)
            table.setItem(row, _FABRIC, QTableWidgetItem(label))
            table.setCellWidget(row, _STATE, self._idle_cell())
        table.cellDoubleClicked.connect(lambda row, _col: self._replay(row))
        table.itemChanged.connect(lambda _item: self._sync_side_button())
        for row in range(table.rowCount()):
            table.setRowHeight(row, 26)  # room for the replay buttons
        table.horizontalScrollBar().rangeChanged.connect(lambda *_: self._fit_table_height())
        self.table = table
        self._fit_table_height()
        return table

    def _fit_table_height(self) -> None:
        """Every row in view, and the horizontal scroll bar below them when the panel is too
        narrow for every column (1366 x 768 at 150 %)."""
        table = self.table
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        bar = table.horizontalScrollBar()
        extra = bar.sizeHint().height() if bar.maximum() > 0 else 0
        table.setFixedHeight(rows + table.horizontalHeader().sizeHint().height() + 4 + extra)

    def _layout(self) -> None:
        left = QVBoxLayout()
        top = QHBoxLayout()
        top.addWidget(self.status, 1)
        top.addWidget(self.fresh_button)
        top.addWidget(self.side_button)
        left.addLayout(top)
        left.addWidget(self.table)
        left.addWidget(self.explanation, 1)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        outer.addLayout(left, 62)
        outer.addWidget(self.charts, 38)

    def _idle_cell(self) -> QWidget:
        label = QLabel("")
        label.setMinimumWidth(96)
        return label

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        """True while the comparison runs."""
        return self.worker is not None

    def start(self, design: Design, request: RunRequest, use_cache: bool = True) -> None:
        """Compare ``request`` on a frozen copy of ``design`` across the four fabrics (runs
        recorded before by this engine are replayed from the run cache unless ``use_cache``
        is False)."""
        if self.running:
            return
        self._frozen = freeze(design)
        self.results = {}
        self.records = {}
        self.fractions: dict[str, float] = {}
        self.training = {}
        #: Revision of the design the comparison runs on (the proposal uses it if current).
        self.design_revision = design.revision
        for row in range(len(self.labels)):
            fabric = self.table.item(row, _FABRIC)
            font = fabric.font()
            font.setItalic(False)
            fabric.setFont(font)
            fabric.setToolTip("")
            for col in range(_FIRST, self.table.columnCount()):
                self.table.setItem(row, col, QTableWidgetItem(""))
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setFormat("waiting")
            bar.setTextVisible(True)
            self.table.setCellWidget(row, _STATE, bar)
        self.explanation.setText("")
        self._draw_charts()
        self.request = request
        self.status.setText(f"Running four fabrics in parallel… ({request.workload_label})")
        self.fresh_button.hide()
        worker = CompareWorker(self.factory, self._frozen, request, self,
                               use_process=picklable(self.factory))
        if use_cache and self.factory is engine_source:
            worker.cache = self.cache_source()
        # a stopped comparison's signals still queued when the next one starts (Run fresh,
        # or the presenter re-preparing) reach no one: its late 'finished' used to end the
        # new comparison at "stopped after 0 of 4" and wait for it on the GUI thread
        worker.variant_started.connect(self._while_current(worker, self._on_started))
        worker.variant_progress.connect(self._while_current(worker, self._on_progress))
        worker.variant_done.connect(self._while_current(worker, self._on_variant))
        worker.failed.connect(self._while_current(
            worker, lambda text: self.status.setText(f"Comparison failed: {text}")))
        worker.finished.connect(self._while_current(worker, self._on_finished))
        self.worker = worker
        self._sync_side_button()
        worker.start()

    def _while_current(self, worker: CompareWorker, slot):
        """``slot``, called only while ``worker`` is the comparison this panel runs."""
        return lambda *args: slot(*args) if worker is self.worker else None

    def stop(self) -> None:
        """Abandon the comparison at once."""
        if self.worker is not None:
            self.worker.request_stop()
            self.worker.wait()
            self._on_finished()

    def _row(self, label: str) -> int:
        return self.labels.index(label)

    def _on_started(self, label: str) -> None:
        bar = self.table.cellWidget(self._row(label), _STATE)
        if isinstance(bar, QProgressBar):
            bar.setFormat("%p%")

    def _on_progress(self, label: str, fraction: float, now: float) -> None:
        bar = self.table.cellWidget(self._row(label), _STATE)
        if isinstance(bar, QProgressBar):
            bar.setValue(int(1000 * min(1.0, max(0.0, fraction))))
            bar.setToolTip(f"simulated {now * 1e3:.3f} ms")
        self.fractions[label] = fraction
        self.progress_changed.emit(dict(self.fractions))

    def _on_variant(self, label: str, record: RecordedRun) -> None:
        from fabricstudio.sim.money import training_utilisation

        values = figures(record.result, record.stream)
        self.records[label] = record
        found = training_utilisation(record.result) if record.result is not None else None
        if found is not None and found[1]:
            self.training[label] = found
        # in the table's order, whichever fabric finished first
        self.results = {name: self.results.get(name, values) for name in self.labels
                        if name in self.results or name == label}
        row = self._row(label)
        for col, (key, _title) in enumerate(COLUMNS, start=_FIRST):
            if key in MONEY_COLUMNS:
                continue
            item = QTableWidgetItem(figure_text(key, values, "n/a"))
            if item.text() == "n/a":
                item.setToolTip("Not modelled by the flow-level engine this run used")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, col, item)
        self.update_money()
        button = QPushButton("▶ Replay")
        button.setToolTip(f"Show the {label} run on the canvas (double click the row too)")
        fabric = self.table.item(row, _FABRIC)
        font = fabric.font()
        font.setItalic(record.cached_at is not None)  # replayed (the status line says so)
        fabric.setFont(font)
        fabric.setToolTip("Simulated now" if record.cached_at is None else
                          f"Replayed from the run cache: recorded "
                          f"{recorded_when(record.cached_at)} by this engine")
        button.clicked.connect(lambda _checked=False, r=row: self._replay(r))
        self.table.setCellWidget(row, _STATE, button)
        self._draw_charts()
        self._explain()
        self._sync_side_button()

    def update_money(self) -> None:
        """(Re)price the GPU time lost by each fabric (also after the cost book changed)."""
        from fabricstudio.topology.cost import compare_idle_money, format_money

        book = self.cost_book_source() if self.cost_book_source is not None else None
        if book is None or not self.training:
            return
        gpus = max(g for _u, g in self.training.values())
        money = compare_idle_money({lab: self.training.get(lab, (None, 0))[0]
                                    for lab in self.labels if lab in self.results}, gpus, book)
        keys = [k for k, _t in COLUMNS]
        for label, pair in money.items():
            row = self._row(label)
            for key, value, tip in (
                    ("idle_per_day", None if pair is None else pair[0].per_day,
                     "GPU time lost against GPUs that never wait, per day"),
                    ("idle_vs_best_month", None if pair is None else pair[1].per_month,
                     "GPU time lost against the best fabric here, per month")):
                self.results[label][key] = value
                item = QTableWidgetItem(format_money(value, book.currency))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
                if pair is not None:
                    m = pair[0]
                    item.setToolTip(f"{tip}: ({m.reference:.0%} - utilisation) x {m.gpus:,} "
                                    f"GPUs x {m.gpu_hour_price:,.2f} {m.currency}/GPU-hour "
                                    f"({m.confidence})")
                self.table.setItem(row, _FIRST + keys.index(key), item)

    def _on_finished(self) -> None:
        worker, self.worker = self.worker, None
        if worker is None:
            return
        worker.wait()
        worker.deleteLater()
        done = len(self.results)
        for row in range(len(self.labels)):
            if isinstance(self.table.cellWidget(row, _STATE), QProgressBar):
                self.table.setCellWidget(row, _STATE, self._idle_cell())
        if done == len(COMPARE_VARIANTS):
            label = self.request.workload_label if self.request else ""
            note, details = self._cache_note(worker)
            # the cache note first: on a narrow screen the workload's name is what is elided
            text = (f"{note}: {label}" if note
                    else f"Same design and workload on four fabrics: {label}")
            self.status.setText(text)
            self.status.setToolTip("\n".join([text, *details]))
        elif not self.status.text().startswith("Comparison failed"):
            self.status.setText(f"Comparison stopped after {done} of {len(COMPARE_VARIANTS)}")
        self._sync_side_button()
        self.finished.emit()

    def cached_labels(self) -> list[str]:
        """Fabrics whose shown run was replayed from the run cache."""
        return [label for label in self.labels
                if label in self.records and self.records[label].cached_at is not None]

    def _cache_note(self, worker: CompareWorker) -> tuple[str, list[str]]:
        """("Runs replayed from the cache (recorded 06:31)" or "", the lines of the status
        tooltip: which runs came from the cache, and why any others were computed)."""
        cached = self.cached_labels()
        details = [f"{label}: its cached run was {found.status} ({found.detail}): simulated now"
                   for label, found in worker.lookups.items()
                   if found.status in ("stale", "corrupt")]
        self.fresh_button.setVisible(bool(cached) and self._frozen is not None)
        if not cached:
            return "", ["Every run simulated now", *details]
        oldest = min(self.records[label].cached_at or 0.0 for label in cached)
        count = (f"{len(cached)} of {len(self.labels)} runs"
                 if len(cached) < len(self.labels) else "Runs")
        details.insert(0, f"Replayed from the run cache: {', '.join(cached)} (recorded by this "
                          f"engine for this design and scenario; 'Run fresh' simulates them "
                          f"again)")
        return f"{count} replayed from the cache (recorded {recorded_when(oldest)})", details

    def run_fresh(self) -> None:
        """Simulate the last comparison again without the run cache."""
        if self._frozen is not None and self.request is not None and not self.running:
            self.start(self._frozen, self.request, use_cache=False)

    def value_text(self, label: str, key: str) -> str:
        """The table's text of one figure of one fabric."""
        column = _FIRST + [k for k, _t in COLUMNS].index(key)
        item = self.table.item(self._row(label), column)
        return item.text() if item is not None else ""

    # ------------------------------------------------------------------ replay
    def _replay(self, row: int) -> None:
        record = self.records.get(self.labels[row])
        if record is not None:
            self.replay_requested.emit(record)

    def ticked(self) -> list[str]:
        """Labels of the ticked rows that have a finished run."""
        return [label for row, label in enumerate(self.labels)
                if self.table.item(row, _PICK).checkState() == Qt.CheckState.Checked
                and label in self.records]

    def _sync_side_button(self) -> None:
        count = len(self.ticked())
        self.side_button.setEnabled(count in (2, 4) and not self.running)
        self.side_button.setText(f"Side by side ({count})" if count else "Side by side")

    def _on_side_by_side(self) -> None:
        labels = self.ticked()
        if len(labels) in (2, 4):
            self.side_by_side_requested.emit([self.records[label] for label in labels])

    # ------------------------------------------------------------------ explanation
    def _explain(self) -> None:
        facts = {label: self.records[label].facts for label in self.labels
                 if label in self.records and self.records[label].facts is not None}
        sentences = explain_fabrics(facts) if len(facts) >= 2 else []
        self.explanation.setText(" ".join(sentences))
        self.explanation.setToolTip("Why the fabrics differ, from the runs' own counters")

    # ------------------------------------------------------------------ charts
    def set_colours(self, background: QColor, text: QColor) -> None:
        """Follow the canvas theme (charts, their titles and value labels)."""
        self.charts.set_colours(background, text)

    def _charts(self) -> list[tuple[str, str, float]]:
        """The three charts; GPU utilisation gives way to PAUSE frames when no run has it."""
        has_gpu = any(v.get("gpu_utilisation") is not None for v in self.results.values())
        return [chart if chart[0] != "gpu_utilisation" or has_gpu else FALLBACK_CHART
                for chart in CHARTS]

    def _draw_charts(self) -> None:
        charts = self._charts()
        self.chart_keys = [key for key, _t, _s in charts]
        self.charts.set_charts([self._chart(key, title) for key, title, _s in charts])

    def _chart(self, key: str, title: str) -> Chart:
        """One chart, labelled with the table's own text of each figure."""
        values = [self.results.get(label, {}).get(key) for label in self.labels]
        return Chart(key, title, [None if v is None else float(v) for v in values],
                     [figure_text(key, self.results.get(label, {}), "") for label in self.labels],
                     1.0 if key == "gpu_utilisation" else None)

    def bar_heights(self, key: str) -> np.ndarray:
        """Heights of the bars of one chart in CHARTS units (completion time in µs even when
        the chart shows ms); nan where a fabric has no result."""
        scale = {k: s for k, _t, s in (*CHARTS, FALLBACK_CHART)}[key]
        return np.array([float(self.results[label][key]) * scale
                         if label in self.results and self.results[label].get(key) is not None
                         else np.nan for label in self.labels])

"""The results panel: key figures of the shown run and metrics CSV export."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QFileDialog,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.formats.output import OutputError
from fabricstudio.sim.export import write_metrics_csv
from fabricstudio.sim.metrics import MetricStream
from fabricstudio.sim.result import Result
from fabricstudio.ui.panels.results_summary import (
    NOT_AT_FLOW_LEVEL,
    NOT_MODELLED_TEXT,
    RESULT_FIGURES,
    failure_summary,
    figures,
    format_figure,
)

_EXTRA = (("paused_s", "Time senders were paused"), ("peak_queue_bytes", "Peak queue"))
_FIRST = ("gpu_utilisation", "completion_time_s")


class ResultsPanel(QWidget):
    """Completion time, bandwidths, drops, retransmissions, pauses, marks, GPU utilisation."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.title = QLabel("No run yet")
        self.title.setWordWrap(True)
        rows = [(key, label) for key, label, _unit in RESULT_FIGURES] + list(_EXTRA)
        # the headline first: a short dock must not cut off GPU utilisation
        rows.sort(key=lambda row: _FIRST.index(row[0]) if row[0] in _FIRST else len(_FIRST))
        self._keys = [key for key, _ in rows]
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["Figure", "Value"])
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, (_key, label) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(label))
            self.table.setItem(r, 1, QTableWidgetItem("-"))
        self.export_button = QPushButton("Export metrics CSV…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self._on_export)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        self.failure_note = QLabel()
        self.failure_note.setWordWrap(True)
        self.failure_note.setVisible(False)
        layout.addWidget(self.failure_note)
        layout.addWidget(self.export_button)
        self.stream: MetricStream | None = None
        self.values: dict[str, object] = {}

    def show_run(self, title: str, result: Result | None, stream: MetricStream | None) -> None:
        """Show the figures of a run (``result`` may be None while it is still going)."""
        self.stream = stream
        self.title.setText(title)
        self.values = figures(result, stream)
        flow = (result.engine.kind if result is not None else
                stream.engine if stream is not None else "cell") == "flow"
        for r, key in enumerate(self._keys):
            text = (NOT_MODELLED_TEXT if flow and key in NOT_AT_FLOW_LEVEL
                    else format_figure(key, self.values.get(key)))
            if self.table.item(r, 1).text() != text:
                self.table.item(r, 1).setText(text)
        self.export_button.setEnabled(stream is not None and len(stream) > 0)
        note = failure_summary(result)
        self.failure_note.setText(note)
        self.failure_note.setVisible(bool(note))

    def value_text(self, key: str) -> str:
        """The shown text of one figure."""
        return self.table.item(self._keys.index(key), 1).text()

    def _on_export(self) -> None:
        if self.stream is not None:
            status = export_metrics_dialog(self, self.stream)
            if status:
                self.title.setText(status)


def export_metrics_dialog(parent: QWidget, stream: MetricStream) -> str:
    """Ask for a file name and write the run's metrics CSV (the one writer the CLI uses too);
    returns the line to show ('' when cancelled)."""
    path, _ = QFileDialog.getSaveFileName(parent, "Export metrics", "metrics.csv",
                                          "CSV files (*.csv)")
    if not path:
        return ""
    try:
        rows = write_metrics_csv(stream, path)
    except OutputError as exc:  # refused by the safe writer: its reason names the problem
        return f"Could not write {path}: {exc.problem}"
    except (OSError, ValueError) as exc:
        return f"Could not write {path}: {exc}"
    return f"Wrote {rows:,} rows to {path}"

"""File > Export to (one entry per registered format) and File > Import… of the main window.

A collaborator of the window: it needs the window's ``design``, ``files`` (unsaved-changes
prompt, folder, replacing the design), ``view`` and ``show_message``.  Export asks for the part
of the design (whole, pod, scalable unit, rail, network) and, for containerlab, the node
kinds; import replaces the design (after the unsaved-changes prompt) and shows what was
guessed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QSpinBox,
    QVBoxLayout,
)

from fabricstudio.model import Plane
from fabricstudio.topology.groups import leaf_units, pods, rail_count

LABELS = {"air": "NVIDIA &Air…", "containerlab": "&containerlab…", "dot": "Graphviz &DOT…",
          "drawio": "d&raw.io…", "graphml": "&GraphML…", "netbox": "&NetBox CSV set…",
          "slurm": "&Slurm topology…"}
PARTS = (("Whole design", ""), ("Pod", "pod"), ("Scalable unit", "su"), ("Rail", "rail"),
         ("Network", "network"))
#: What each part holds, shown under the choice.
PART_HELP = {
    "": "every device and cable",
    "pod": "{n} pods: a pod's leaves, spines and servers (no cores)",
    "su": "{n} scalable units: the unit's leaves, servers and the spines above",
    "rail": "{n} rails: NIC N of every server, its rail leaves and the spines above",
    "network": "one network's devices and cables",
}


@contextmanager
def busy() -> Iterator[None]:
    """A wait cursor while a large export or import runs."""
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()


class ExportOptionsDialog(QDialog):
    """The part of the design to export and, for containerlab, the node kinds."""

    def __init__(self, design, fmt: str, parent=None) -> None:
        super().__init__(parent)
        self.fmt = fmt
        self.setWindowTitle(f"Export to {fmt}")
        self.part = QComboBox()
        counts = {"pod": len(pods(design)), "su": len(leaf_units(design)),
                  "rail": rail_count(design)}
        for label, key in PARTS:
            if key in counts and counts[key] == 0:
                continue
            self.part.addItem(label, key)
        self.counts = counts
        self.number = QSpinBox()
        self.network = QComboBox()
        for plane in Plane:
            self.network.addItem(plane.value.capitalize(), plane.value)
        self.count_label = QLabel()
        self.count_label.setWordWrap(True)
        self.form = form = QFormLayout()
        form.addRow("Export", self.part)
        form.addRow("Number", self.number)
        form.addRow("Network", self.network)
        form.addRow("", self.count_label)
        self.switch_kind = self.server_kind = None
        if fmt == "containerlab":
            from fabricstudio.interop.clab import DEFAULT_SERVER_KIND, DEFAULT_SWITCH_KIND

            self.switch_kind = self._kind_box(DEFAULT_SWITCH_KIND)
            self.server_kind = self._kind_box(DEFAULT_SERVER_KIND)
            form.addRow("Switch kind", self.switch_kind)
            form.addRow("Server kind", self.server_kind)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.part.currentIndexChanged.connect(self._update)
        self._update()

    def _kind_box(self, default: str) -> QComboBox:
        from fabricstudio.interop.clab import IMAGES

        box = QComboBox()
        box.setEditable(True)
        box.addItems(list(IMAGES))
        box.setCurrentText(default)
        return box

    def _update(self) -> None:
        key = self.part.currentData()
        self.form.setRowVisible(self.number, key in self.counts)
        self.form.setRowVisible(self.network, key == "network")
        if key in self.counts:
            self.number.setRange(1, max(1, self.counts[key]))
            self.form.labelForField(self.number).setText(self.part.currentText())
        self.count_label.setText(PART_HELP[key].format(n=self.counts.get(key, 0)))

    def subset(self) -> str | None:
        """The --subset spec chosen (None = whole design)."""
        key = self.part.currentData()
        if not key:
            return None
        if key == "network":
            return f"network:{self.network.currentData()}"
        return f"{key}:{self.number.value()}"

    def option_pairs(self) -> list[str]:
        """-O KEY=VALUE pairs chosen."""
        if self.switch_kind is None:
            return []
        return [f"switch-kind={self.switch_kind.currentText().strip()}",
                f"server-kind={self.server_kind.currentText().strip()}"]


class InteropMenu:
    """Builds the actions and runs exports and imports for ``window``.  The interop package
    (YAML, XML, the format registry) loads when the menu first opens, not at start-up."""

    def __init__(self, window) -> None:
        self.window = window
        self.export_menu = QMenu("Export &to", window)
        self.export_menu.setToolTipsVisible(True)
        self.export_menu.aboutToShow.connect(self._fill_export_menu)
        self._export_actions: dict[str, QAction] = {}
        self.act_import = QAction("&Import…", window)
        self.act_import.setToolTip("Make a design from GraphML, DOT, containerlab or a NetBox "
                                   "CSV set")
        self.act_import.triggered.connect(lambda _=False: self.import_file())

    @property
    def export_actions(self) -> dict[str, QAction]:
        """One action per export format, by format name."""
        self._fill_export_menu()
        return self._export_actions

    def _fill_export_menu(self) -> None:
        if self._export_actions:
            return
        from fabricstudio.interop import export_formats

        for name, fmt in export_formats().items():
            action = self.export_menu.addAction(LABELS.get(name, f"{name}…"))
            action.setToolTip(fmt.summary)
            action.setStatusTip(fmt.summary)
            action.triggered.connect(lambda _=False, n=name: self.export(n))
            self._export_actions[name] = action

    # ----------------------------------------------------------------- export
    def export(self, name: str, path: str | None = None) -> bool:
        """Export the design to format ``name`` (asking for options and a file)."""
        from fabricstudio.interop import InteropError, export_design, export_formats, write_bundle

        window = self.window
        dialog = ExportOptionsDialog(window.design, name, window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return False
        fmt = export_formats()[name]
        if path is None:
            path = self._ask_target(name, fmt)
            if not path:
                return False
        try:
            with busy():
                bundle = export_design(window.design, name, dialog.option_pairs(),
                                       dialog.subset())
                written = write_bundle(bundle, path, name,
                                       inputs=[p for p in [window.path] if p])
        except InteropError as exc:
            QMessageBox.critical(window, "Export failed", str(exc))
            return False
        shown = written[0] if len(written) == 1 else Path(path)
        notes = "; ".join(bundle.notes)
        window.show_message(f"Exported {shown}" + (f" ({notes})" if notes else ""), 12000)
        return True

    def _ask_target(self, name: str, fmt) -> str:
        window = self.window
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in window.design.name)
        filters = [f"{name} ({' '.join('*' + s for s in fmt.suffixes)})"]
        default = fmt.suffixes[0]
        if fmt.multi_file:
            filters.insert(0, "Zip archive (*.zip)")
            default = ".zip"
        suggestion = str(Path(window.files.folder()) / f"{stem or 'design'}{default}")
        path, chosen = QFileDialog.getSaveFileName(window, f"Export to {name}", suggestion,
                                                   ";;".join(filters))
        if path and not Path(path).suffix:
            path += ".zip" if chosen.startswith("Zip") else default
        return path

    # ----------------------------------------------------------------- import
    def import_file(self, path: str | None = None) -> bool:
        """Import a file as the new design (after the unsaved-changes prompt)."""
        from fabricstudio.interop import InteropError, import_design, import_formats

        window = self.window
        if not window.files.maybe_save():
            return False
        if path is None:
            patterns = sorted({f"*{s}" for f in import_formats().values() for s in f.suffixes})
            path, _ = QFileDialog.getOpenFileName(
                window, "Import design", window.files.folder(),
                f"Topologies ({' '.join(patterns)});;All files (*)")
            if not path:
                return False
        try:
            with busy():
                result = import_design(path)
        except InteropError as exc:
            QMessageBox.critical(window, "Cannot import", str(exc))
            window.show_message(f"Not imported: {exc}")
            return False
        window.files.replace(result.design.to_data(), None)
        window.view.fit()
        design = result.design
        summary = (f"Imported {Path(path).name} ({result.format}): {len(design.devices)} "
                   f"devices, {len(design.links)} links.")
        window.show_message(summary, 12000)
        if result.report:
            box = QMessageBox(QMessageBox.Icon.Information, "Imported", summary, parent=window)
            box.setInformativeText("Guessed:\n" + "\n".join(f"• {line}"
                                                             for line in result.report))
            box.exec()
        return True

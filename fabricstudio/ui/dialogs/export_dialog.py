"""Export dialog: PNG (size, background, legend) or SVG, of the whole design or the selection.

The PNG's pixel size and an estimate of its file size show before anything is written; the
size is automatic (the longest side at most Preferences > Export > Default PNG size, 8,192 px
out of the box) unless the user sets a scale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMessageBox,
    QVBoxLayout,
)

from fabricstudio.ui import preferences as prefs
from fabricstudio.ui.export import (
    ExportError,
    ExportOptions,
    estimate_png_bytes,
    output_size,
    save_png,
    save_svg,
)


class ExportDialog(QDialog):
    """Options, then a file name; writes the file and reports the outcome."""

    def __init__(self, scene, fmt: str, parent=None,
                 show_message: Callable[[str], None] | None = None,
                 settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self._show_message = show_message
        self.fmt = fmt
        self.setWindowTitle(f"Export {fmt.upper()}")
        self.scope = QComboBox()
        self.scope.addItem("Whole design", False)
        self.scope.addItem("Selection only", True)
        self.scope.setEnabled(bool(scene.selected_device_ids()))
        self.longest = (prefs.get(settings, "exportLongestSide") if settings is not None
                        else prefs.EXPORT_PIXELS.default)
        self.auto = QCheckBox(f"Automatic: at most {self.longest:,} px on the longest side")
        self.auto.setToolTip("Picked from the design's size; large designs are drawn with "
                             "their groups folded so that names stay legible")
        self.auto.setChecked(True)
        self.scale = QDoubleSpinBox()
        self.scale.setRange(0.01, 8.0)
        self.scale.setDecimals(2)
        self.scale.setSingleStep(0.25)
        self.scale.setValue(2.0)
        self.scale.setSuffix(" px per canvas unit")
        self.scale.setEnabled(False)
        self.file_label = QLabel()
        self._estimate = QTimer(self)
        self._estimate.setSingleShot(True)
        self._estimate.setInterval(250)
        self._estimate.timeout.connect(self._update_estimate)
        self.background = QComboBox()
        for label, key in (("Canvas colour", "theme"), ("White", "white"),
                           ("Transparent", "transparent")):
            self.background.addItem(label, key)
        self.background.setCurrentIndex(1)
        self.legend = QCheckBox("Include the legend")
        self.legend.setChecked(True)
        self.size_label = QLabel()
        form = QFormLayout()
        form.addRow("Export", self.scope)
        if fmt == "png":
            form.addRow("Size", self.auto)
            form.addRow("Scale", self.scale)
            form.addRow("Pixels", self.size_label)
            form.addRow("File", self.file_label)
        form.addRow("Background", self.background)
        form.addRow("", self.legend)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.auto.toggled.connect(self._auto_toggled)
        self.scale.valueChanged.connect(self._update_size)
        self.scope.currentIndexChanged.connect(self._update_size)
        self.background.currentIndexChanged.connect(self._update_size)
        self.legend.toggled.connect(self._update_size)
        self._update_size()

    def options(self) -> ExportOptions:
        """The chosen options."""
        if self.fmt != "png":
            scale: float | None = 1.0
        else:
            scale = None if self.auto.isChecked() else self.scale.value()
        return ExportOptions(scale=scale, background=self.background.currentData(),
                             legend=self.legend.isChecked(),
                             selection_only=bool(self.scope.currentData()),
                             longest_side=self.longest)

    def _auto_toggled(self, on: bool) -> None:
        self.scale.setEnabled(not on)
        if not on:  # start from the automatic scale
            from fabricstudio.ui.export import export_rect, export_scale, page_size

            try:
                options = self.options()
                page = page_size(self.scene, export_rect(self.scene, options.selection_only),
                                 options)
                self.scale.setValue(export_scale(page, ExportOptions(
                    longest_side=self.longest)))
            except ExportError:
                pass
        self._update_size()

    def _update_size(self) -> None:
        """Pixel size now; the file size estimate once the choices settle (it renders
        samples)."""
        if self.fmt != "png":
            return
        try:
            size = output_size(self.scene, self.options())
        except ExportError as exc:
            self.size_label.setText(str(exc))
            self.file_label.setText("")
            return
        self.size_label.setText(f"{size.width():,} × {size.height():,} px")
        self.file_label.setText("estimating…")
        self._estimate.start()

    def _update_estimate(self) -> None:
        try:
            estimate = estimate_png_bytes(self.scene, self.options())
        except ExportError as exc:
            self.file_label.setText(str(exc))
            return
        self.file_label.setText(f"about {_megabytes(estimate)} (PNG)")

    def accept(self) -> None:
        name = f"{self.scene.design.name}.{self.fmt}"
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.fmt.upper()}",
                                              str(Path.home() / name),
                                              f"{self.fmt.upper()} image (*.{self.fmt})")
        if not path:
            return
        if not path.lower().endswith(f".{self.fmt}"):
            path += f".{self.fmt}"
        try:
            if self.fmt == "png":
                save_png(self.scene, path, self.options())
            else:
                save_svg(self.scene, path, self.options())
        except ValueError as exc:  # ExportError, or OutputError from the writer
            QMessageBox.critical(self, "Export failed", str(exc))
            return
        if self._show_message is not None:
            self._show_message(f"Exported {path}")
        super().accept()


def _megabytes(count: int) -> str:
    """'4.2 MB', '850 KB'."""
    if count >= 1e6:
        return f"{count / 1e6:.1f} MB"
    return f"{max(count / 1e3, 1):.0f} KB"

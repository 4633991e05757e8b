"""Export dialog: PNG (scale, background, legend) or SVG, of the whole design or the selection."""

from __future__ import annotations

from pathlib import Path

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

from fabricstudio.ui.export import ExportError, ExportOptions, output_size, save_png, save_svg


class ExportDialog(QDialog):
    """Options, then a file name; writes the file and reports the outcome."""

    def __init__(self, scene, fmt: str, parent=None) -> None:
        super().__init__(parent)
        self.scene = scene
        self.fmt = fmt
        self.setWindowTitle(f"Export {fmt.upper()}")
        self.scope = QComboBox()
        self.scope.addItem("Whole design", False)
        self.scope.addItem("Selection only", True)
        self.scope.setEnabled(any(hasattr(i, "device_id") for i in scene.selectedItems()))
        self.scale = QDoubleSpinBox()
        self.scale.setRange(0.25, 8.0)
        self.scale.setSingleStep(0.5)
        self.scale.setValue(2.0)
        self.scale.setSuffix(" ×")
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
            form.addRow("Scale", self.scale)
            form.addRow("Size", self.size_label)
        form.addRow("Background", self.background)
        form.addRow("", self.legend)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.scale.valueChanged.connect(self._update_size)
        self.scope.currentIndexChanged.connect(self._update_size)
        self._update_size()

    def options(self) -> ExportOptions:
        """The chosen options."""
        return ExportOptions(scale=self.scale.value() if self.fmt == "png" else 1.0,
                             background=self.background.currentData(),
                             legend=self.legend.isChecked(),
                             selection_only=bool(self.scope.currentData()))

    def _update_size(self) -> None:
        try:
            size = output_size(self.scene, self.options())
            self.size_label.setText(f"{size.width():,} × {size.height():,} px")
        except ExportError as exc:
            self.size_label.setText(str(exc))

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
        parent = self.parent()
        if parent is not None and hasattr(parent, "show_message"):
            parent.show_message(f"Exported {path}")
        super().accept()

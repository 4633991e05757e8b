"""Fabric settings dialog: technology plus the PFC, ECN, DCQCN, InfiniBand credit and TCP
parameters, built from the FabricSettings model; a refused value keeps the dialog open and
says why."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.model import FabricSettings, format_validation_error
from fabricstudio.ui.forms import FieldEditor, field_label

GROUP_TITLES = {"pfc": "PFC (RoCE)", "ecn": "ECN", "dcqcn": "DCQCN",
                "infiniband": "InfiniBand credits", "tcp": "TCP (lossy)"}


class FabricSettingsDialog(QDialog):
    """Edit a FabricSettings value; :attr:`result_settings` holds the accepted value."""

    def __init__(self, settings: FabricSettings, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Fabric settings")
        self.setMinimumWidth(520)
        self.settings = settings
        self.result_settings: FabricSettings | None = None
        self.editors: dict[tuple[str, ...], FieldEditor] = {}
        tabs = QTabWidget()
        general = QWidget()
        general_form = QFormLayout(general)
        for name, info in FabricSettings.model_fields.items():
            annotation = info.annotation
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                page = QWidget()
                form = QFormLayout(page)
                for sub, sub_info in annotation.model_fields.items():
                    self._add(form, (name, sub), sub_info, getattr(getattr(settings, name), sub))
                tabs.addTab(page, GROUP_TITLES.get(name, name))
            else:
                self._add(general_form, (name,), info, getattr(settings, name))
        tabs.insertTab(0, general, "General")
        tabs.setCurrentIndex(0)
        self.error = QLabel()
        self.error.setObjectName("errorLabel")
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.RestoreDefaults)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            lambda: self._show(FabricSettings(technology=self.settings.technology)))
        layout = QVBoxLayout(self)
        layout.addWidget(tabs)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def _add(self, form: QFormLayout, path: tuple[str, ...], info, value) -> None:
        editor = FieldEditor(path[-1], info)
        editor.show(value)
        if info.description:
            editor.widget.setToolTip(info.description)
        self.editors[path] = editor
        form.addRow(field_label(path[-1]), editor.widget)

    def _show(self, settings: FabricSettings) -> None:
        for path, editor in self.editors.items():
            value = settings
            for part in path:
                value = getattr(value, part)
            editor.show(value)

    def entered(self) -> FabricSettings:
        """The settings as entered (ValueError with a readable message when invalid)."""
        data: dict = {}
        for path, editor in self.editors.items():
            target = data
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = editor.value()
        try:
            return FabricSettings.model_validate(data)
        except ValidationError as exc:
            raise ValueError(format_validation_error(exc)) from None

    def accept(self) -> None:
        try:
            self.result_settings = self.entered()
        except ValueError as exc:
            self.error.setText(f"Refused: {exc}")
            self.error.show()
            return
        super().accept()

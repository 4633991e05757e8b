"""Edit > Preferences: application settings that outlive a design.

THE Preferences dialog is built from the registry in :mod:`fabricstudio.ui.preferences`
(pages, one row per setting); the cost-book field below is one of its custom fields.  Each
custom field validates on accept: a value that cannot be used keeps the dialog open and says
why in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QWidget,
)

from fabricstudio.formats.costbook import CostBookError
from fabricstudio.ui import preferences as prefs
from fabricstudio.ui.cost_book import CostBookSetting
from fabricstudio.ui.forms import validating_dialog_body

COST_BOOK_FILTER = "Cost books (*.json);;All files (*)"


@runtime_checkable
class CustomField(Protocol):
    """A custom field of the dialog: validates and keeps its value on accept."""

    def apply(self) -> str:
        """Keep the entered value; returns '' or the one-line reason it cannot be used."""
        ...


class CostBookField(QWidget):
    """A cost-book override file: path, Browse…, Defaults; ``apply()`` uses it."""

    def __init__(self, costs: CostBookSetting, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.costs = costs
        self.edit = QLineEdit(costs.path)
        self.edit.setPlaceholderText("default cost book (docs/cost.md)")
        self.edit.setToolTip("A JSON cost book whose items override the default prices and "
                             "power figures (format: docs/cost.md)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda _checked=False: self.browse())
        clear = QPushButton("Defaults")
        clear.setToolTip("Use the default cost book only")
        clear.clicked.connect(lambda _checked=False: self.edit.clear())
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(browse)
        row.addWidget(clear)

    def browse(self) -> None:
        """Pick a file."""
        start = self.edit.text() or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Cost book", start, COST_BOOK_FILTER)
        if path:
            self.edit.setText(path)

    def apply(self) -> str:
        """Use the file; '' when done, else the one-line reason (nothing changed)."""
        path = self.edit.text().strip()
        if path == self.costs.path:
            return ""
        try:
            self.costs.set_path(path)
        except CostBookError as exc:
            return str(exc)
        return ""


class PreferencesDialog(QDialog):
    """THE Preferences dialog: one tab per page of the registry
    (:mod:`fabricstudio.ui.preferences`), one row per setting.  OK checks every field first
    (a refused value keeps the dialog open with the reason in one line), then stores the
    values in the window's QSettings and puts them into effect."""

    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.window = window
        self.settings = window.settings
        self.setWindowTitle("Preferences")
        self.setMinimumWidth(560)
        self.fields: dict[str, Any] = {}
        self.tabs = QTabWidget()
        for page, settings in prefs.pages():
            form = QFormLayout()
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            for setting in settings:
                widget = self._field(setting)
                self.fields[setting.key] = widget
                label = QLabel(setting.label + ("  (at next start)" if setting.restart else ""))
                label.setToolTip(setting.tip)
                widget.setToolTip(setting.tip)
                form.addRow(label, widget)
                if setting.note:
                    note = QLabel(setting.note)
                    note.setWordWrap(True)
                    note.setStyleSheet("color: palette(placeholder-text);")
                    form.addRow("", note)
            page_widget = QWidget()
            page_widget.setLayout(form)
            self.tabs.addTab(page_widget, page)
        self.cost_book = self.fields.get("costBookPath")
        self.error = validating_dialog_body(self, self.tabs, self.restore_defaults)

    def _field(self, setting: prefs.Setting) -> QWidget:
        value = prefs.get(self.settings, setting.key)
        if setting.kind == "custom" and setting.widget is not None:
            return setting.widget(self.window)
        if setting.kind == "bool":
            box = QCheckBox()
            box.setChecked(bool(value))
            return box
        if setting.kind == "int":
            spin = QSpinBox()
            spin.setRange(setting.minimum, setting.maximum)
            spin.setSuffix(setting.suffix)
            spin.setGroupSeparatorShown(True)
            spin.setValue(int(value))
            return spin
        combo = QComboBox()
        for choice, text in setting.choices:
            combo.addItem(text, choice)
        combo.setCurrentIndex(max(0, combo.findData(value)))
        return combo

    def value(self, key: str) -> Any:
        """The value a field shows now."""
        widget = self.fields[key]
        if isinstance(widget, QCheckBox):
            return widget.isChecked()
        if isinstance(widget, QSpinBox):
            return widget.value()
        if isinstance(widget, QComboBox):
            return widget.currentData()
        return None

    def restore_defaults(self) -> None:
        """Show every plain setting's default (nothing is stored before OK)."""
        for key, widget in self.fields.items():
            default = prefs.REGISTRY[key].default
            if isinstance(widget, QCheckBox):
                widget.setChecked(bool(default))
            elif isinstance(widget, QSpinBox):
                widget.setValue(int(default))
            elif isinstance(widget, QComboBox):
                widget.setCurrentIndex(max(0, widget.findData(default)))

    def accept(self) -> None:  # noqa: D102 - Qt override
        for widget in self.fields.values():
            if isinstance(widget, CustomField):
                problem = widget.apply()
                if problem:
                    self.error.setText(f"Refused: {problem}")
                    self.error.show()
                    return
        for key in self.fields:
            setting = prefs.REGISTRY[key]
            if setting.kind == "custom":
                continue
            new = self.value(key)
            if new == prefs.get(self.settings, key):
                continue
            prefs.put(self.settings, key, new)
            if setting.apply is not None:
                setting.apply(self.window, new)
        self.settings.sync()
        super().accept()

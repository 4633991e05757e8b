"""Edit > Preferences: application settings that outlive a design.

This is a minimal Preferences dialog holding the cost-book field; the dialog itself belongs
to the large-fabrics work (issue 14), which folds :class:`CostBookField` into its own page.
Each field widget validates on accept: a value that cannot be used keeps the dialog open and
says why in one line.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from fabricstudio.formats.costbook import CostBookError
from fabricstudio.ui.cost_book import CostBookSetting

COST_BOOK_FILTER = "Cost books (*.json);;All files (*)"


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
    """Application preferences (currently: the cost book)."""

    def __init__(self, costs: CostBookSetting, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.setMinimumWidth(560)
        self.cost_book = CostBookField(costs)
        form = QFormLayout()
        form.addRow("Cost book", self.cost_book)
        hint = QLabel("Prices, power figures and the GPU-hour price used by the Analysis dock, "
                      "Compare fabrics, the cable plan and the proposal. Items in the file "
                      "override the defaults one by one.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(placeholder-text);")
        form.addRow("", hint)
        self.error = QLabel()
        self.error.setObjectName("errorLabel")
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def accept(self) -> None:  # noqa: D102 - Qt override
        problem = self.cost_book.apply()
        if problem:
            self.error.setText(f"Refused: {problem}")
            self.error.show()
            return
        super().accept()

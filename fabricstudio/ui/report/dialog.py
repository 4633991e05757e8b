"""File > Export proposal: customer, logo, prices shown or hidden, and the fabric comparison
of the Compare fabrics dock when it ran on the design as it is now."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QWidget,
)

from fabricstudio.formats import OutputError
from fabricstudio.model.costbook import CostBook
from fabricstudio.ui.forms import validating_dialog_body
from fabricstudio.ui.report.compare import Comparison, Outcome
from fabricstudio.ui.simview.source import COMPARE_VARIANTS

if TYPE_CHECKING:
    from fabricstudio.ui.main_window import MainWindow

LOGO_FILTER = "Images (*.png *.jpg *.jpeg *.svg);;All files (*)"
PDF_FILTER = "PDF (*.pdf)"


def comparison_of(window: MainWindow) -> Comparison | None:
    """The Compare fabrics results when all four fabrics ran on the current design."""
    panel = window.simulation.compare
    if panel.running or len(panel.results) != len(COMPARE_VARIANTS):
        return None
    if panel.design_revision != window.design.revision:
        return None
    outcomes = []
    for label, technology, dcqcn in COMPARE_VARIANTS:
        utilisation, gpus = panel.training.get(label, (None, 0))
        outcomes.append(Outcome(label, technology.value, dcqcn, dict(panel.results[label]),
                                utilisation, gpus))
    label = panel.request.workload_label if panel.request is not None else ""
    workload = label or "the Compare fabrics workload"
    return Comparison("Compare fabrics", workload, outcomes)


class ProposalDialog(QDialog):
    """Options of the proposal."""

    def __init__(self, parent: QWidget | None, has_comparison: bool, settings: Any) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export proposal")
        self.setMinimumWidth(520)
        self.settings = settings
        self.customer = QLineEdit(str(settings.value("proposal/customer", "") or ""))
        self.customer.setMaxLength(200)
        self.customer.setPlaceholderText("Customer name (cover and footer)")
        self.logo = QLineEdit(str(settings.value("proposal/logo", "") or ""))
        self.logo.setPlaceholderText("optional PNG, JPEG or SVG")
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda _checked=False: self._browse())
        logo_row = QWidget()
        row = QHBoxLayout(logo_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.logo, 1)
        row.addWidget(browse)
        self.hide_prices = QCheckBox("Hide prices (quantities, power and GPU-idle money stay)")
        self.comparison = QCheckBox("Include the fabric comparison (Compare fabrics)")
        self.comparison.setChecked(has_comparison)
        self.comparison.setEnabled(has_comparison)
        if not has_comparison:
            self.comparison.setToolTip("Run Compare fabrics on this design first (Simulation "
                                       "> Compare fabrics)")
        form = QFormLayout()
        form.addRow("Customer", self.customer)
        form.addRow("Logo", logo_row)
        form.addRow("", self.hide_prices)
        form.addRow("", self.comparison)
        self.error = validating_dialog_body(self, form)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Logo", self.logo.text() or str(Path.home()),
                                              LOGO_FILTER)
        if path:
            self.logo.setText(path)

    def accept(self) -> None:  # noqa: D102 - Qt override
        logo = self.logo.text().strip()
        if logo and not Path(logo).is_file():
            self.error.setText(f"Refused: {logo}: no such logo file")
            self.error.show()
            return
        self.settings.setValue("proposal/customer", self.customer.text().strip())
        self.settings.setValue("proposal/logo", logo)
        super().accept()


def export_proposal(window: Any, book: CostBook, path: str | None = None,
                    ask: bool = True) -> Path | None:
    """Ask for the options and a file, then write the proposal; the file written or None."""
    from fabricstudio.ui.report.pdf import ReportError, write_proposal
    from fabricstudio.ui.report.proposal import build_proposal

    comparison = comparison_of(window)
    dialog = ProposalDialog(window, comparison is not None, window.settings)
    if ask and not dialog.exec():
        return None
    if path is None:
        folder = Path(window.path).parent if window.path else Path.home()
        path, _ = QFileDialog.getSaveFileName(window, "Export proposal",
                                              str(folder / f"{window.design.name} proposal.pdf"),
                                              PDF_FILTER)
        if not path:
            return None
        if not path.lower().endswith(".pdf"):
            path += ".pdf"
    from fabricstudio.ui.interop_menu import busy

    try:
        with busy():
            proposal = build_proposal(
                window.design.copy(), book, customer=dialog.customer.text(),
                logo=dialog.logo.text().strip() or None,
                hide_prices=dialog.hide_prices.isChecked(),
                comparison=comparison if dialog.comparison.isChecked() else None)
            write_proposal(proposal, path, inputs=tuple(p for p in [window.path] if p))
    except (ReportError, OutputError) as exc:
        QMessageBox.critical(window, "Cannot export the proposal", str(exc))
        return None
    window.show_message(f"Wrote the proposal {path}")
    return Path(path)

"""From design to order in the designer: Edit > Preferences (the cost book), File > Export
cable plan and File > Export proposal.

A collaborator of the main window (like the interop menu): it owns the cost book in use
(``window.costs`` is ``window.order.costs``), hands it to the Analysis dock and follows its
changes, and runs the two exports.  It needs the window's ``design``, ``analysis``, ``path``
and ``show_message``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox

from fabricstudio.formats import OutputError
from fabricstudio.ui.cost_book import CostBookSetting

if TYPE_CHECKING:  # pragma: no cover
    from fabricstudio.ui.main_window import MainWindow

CABLE_PLAN_FILTERS = "Excel workbook (*.xlsx);;CSV (*.csv)"


class OrderMenu:
    """Builds the actions and runs the order-side dialogs and exports for ``window``."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.costs = CostBookSetting(window.settings, window)
        self.act_preferences = self._action("Pre&ferences…", self.preferences,
                                            "Cost book and other application settings")
        self.act_export_cable_plan = self._action(
            "Export &cable plan…", self.export_cable_plan,
            "One row per cable: racks, U, ports, media, transceivers, lengths (XLSX or CSV)")
        self.act_export_proposal = self._action(
            "Export pr&oposal (PDF)…", self.export_proposal,
            "A customer proposal: design picture, key figures, bill of materials, cost and "
            "power, fabric comparison, findings and assumptions")
        window.analysis.set_cost_book(self.costs.book)
        self.costs.changed.connect(window.analysis.set_cost_book)
        if self.costs.problem:
            window.show_message(self.costs.problem, 12000)

    def _action(self, text: str, slot: Any, tip: str) -> QAction:
        action = QAction(text, self.window)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        self.window.addAction(action)
        return action

    # ------------------------------------------------------------------ actions
    def preferences(self) -> None:
        """Edit > Preferences."""
        from fabricstudio.ui.dialogs.preferences import PreferencesDialog
        from fabricstudio.ui.presenter import preferences  # noqa: F401 - its rows

        before = self.costs.path
        dialog = PreferencesDialog(self.window)
        if dialog.exec() and self.costs.path != before:
            self.window.show_message(f"Prices from the {self.costs.description}")

    def export_cable_plan(self, path: str | None = None) -> list[Path]:
        """Ask for a file (XLSX or CSV) and write the cable plan; the files written."""
        from fabricstudio.formats.tables import write_tables
        from fabricstudio.topology.cableplan import cable_plan

        window = self.window
        if path is None:
            folder = Path(window.path).parent if window.path else Path.home()
            suggestion = str(folder / f"{window.design.name} cable plan.xlsx")
            path, chosen = QFileDialog.getSaveFileName(window, "Export cable plan", suggestion,
                                                       CABLE_PLAN_FILTERS)
            if not path:
                return []
            if not path.lower().endswith((".xlsx", ".csv")):
                path += ".csv" if "csv" in chosen.lower() else ".xlsx"
        from fabricstudio.ui.interop_menu import busy

        try:
            with busy():  # about 20 s for the 49,152 cables of 16,384 GPUs (XLSX)
                plan = cable_plan(window.design)
                written = write_tables(path, plan.sheets(), inputs=[p for p in [window.path] if p])
        except OutputError as exc:
            QMessageBox.critical(window, "Cannot export the cable plan", str(exc))
            return []
        racks = len({slot.rack for slot in plan.racks.values()})
        window.show_message(f"Wrote {written[0]}: {len(plan.rows):,} cables in {racks} racks")
        return written

    def export_proposal(self, path: str | None = None) -> Path | None:
        """Ask for options and a file, then write the proposal PDF."""
        from fabricstudio.ui.report.dialog import export_proposal

        return export_proposal(self.window, self.costs.book, path)

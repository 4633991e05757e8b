"""The main window's dialogs: fabric wizard (replace or add alongside), fabric settings, auto
layout, shortcuts, about and export (a mixin of MainWindow)."""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMessageBox

from fabricstudio.model.commands import MoveDevices, ReplaceContents, SetFabric
from fabricstudio.topology.layout import design_layout
from fabricstudio.ui.dialogs.fabric_settings import FabricSettingsDialog
from fabricstudio.ui.panels.inspector import design_summary


class DialogActions:
    """Dialog commands of :class:`~fabricstudio.ui.main_window.MainWindow`; needs its
    ``design``, ``editor``, ``view``, ``_commit``, ``fit_selection`` and ``show_message``."""

    def open_wizard(self) -> None:
        """Generate a fabric; the build replaces the canvas as one undo step."""
        from fabricstudio.ui.dialogs.wizard import FabricWizard

        wizard = FabricWizard(self.design.fabric.technology, self,
                              can_add=bool(self.design.devices))
        if wizard.exec() and wizard.build is not None:
            if wizard.add_alongside.isChecked() and self.design.devices:
                self.add_build_alongside(wizard.build)
            else:
                self.apply_build(wizard.build)

    def apply_build(self, build) -> None:
        """Put a FabricBuild on the canvas (one undo step) and fit it."""
        data = build.to_data()
        self._commit(ReplaceContents(data, label=f"Build {build.name}"))
        self.view.fit()
        self.show_message(f"Built {build.name}: {design_summary(self.design)}")

    def add_build_alongside(self, build) -> list[str]:
        """Add a FabricBuild to the right of the current devices (one undo step)."""
        right = max(d.x for d in self.design.devices.values())
        top = min(d.y for d in self.design.devices.values())
        left = min(d.x for d in build.devices)
        build_top = min(d.y for d in build.devices)
        fragment = {"devices": [d.model_dump(mode="json") for d in build.devices],
                    "links": [lk.model_dump(mode="json") for lk in build.links],
                    "groups": [g.model_dump(mode="json") for g in build.groups]}
        offset = QPointF(right + 300 - left, top - build_top)
        ids = self.editor.add_fragment(fragment, offset, f"Add {build.name}", mark_copies=False)
        if ids:
            self.fit_selection()
            self.show_message(f"Added {build.name}: {design_summary(self.design)}")
        return ids

    def open_fabric_settings(self) -> None:
        """Edit PFC/ECN/DCQCN/credit parameters (one undo step)."""
        dialog = FabricSettingsDialog(self.design.fabric, self)
        if dialog.exec() and dialog.result_settings is not None:
            if dialog.result_settings != self.design.fabric:
                self._commit(SetFabric(dialog.result_settings))

    def auto_layout(self) -> None:
        """Arrange all devices in role-sorted rows (one undo step)."""
        positions = design_layout(self.design)
        if positions:
            command = MoveDevices(positions)
            command.label = "Auto layout"
            self._commit(command)
            self.view.fit()

    def show_shortcuts(self) -> None:
        """List every action with its shortcut."""
        rows = []
        seen = set()
        for action in self.findChildren(QAction):  # the window's and its menus' actions
            if id(action) in seen or not action.text():
                continue
            seen.add(id(action))
            keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText)
                             for k in action.shortcuts())
            if keys:
                rows.append(f"<tr><td>{action.text().replace('&', '')}</td>"
                            f"<td><b>{keys}</b></td></tr>")
        rows += ["<tr><td>Zoom</td><td><b>Mouse wheel (under the cursor)</b></td></tr>",
                 "<tr><td>Pan</td><td><b>Middle drag, or Space + drag</b></td></tr>",
                 "<tr><td>Draw a link</td><td><b>Drag from a device's blue handle, or Connect "
                 "tool</b></td></tr>",
                 "<tr><td>Cancel</td><td><b>Esc</b></td></tr>",
                 "<tr><td>Nudge the selection</td><td><b>Arrow keys (one grid step)</b></td></tr>",
                 "<tr><td>Place several</td><td><b>Shift + drop from the palette</b></td></tr>"]
        QMessageBox.information(self, "Keyboard shortcuts",
                                "<table cellspacing='6'>" + "".join(rows) + "</table>")

    def show_about(self) -> None:
        """About box."""
        from fabricstudio import __version__

        QMessageBox.about(self, "About FabricStudio",
                          f"<h3>FabricStudio {__version__}</h3><p>Design, analyse and simulate "
                          "AI data-centre fabrics: InfiniBand, RoCE and lossy Ethernet.</p>")

    def export_dialog(self, fmt: str) -> None:
        """Ask for options and a file name, then export PNG or SVG."""
        from fabricstudio.ui.dialogs.export_dialog import ExportDialog

        dialog = ExportDialog(self.scene, fmt, self)
        dialog.exec()
